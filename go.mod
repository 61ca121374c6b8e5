module github.com/bglua/bglua

go 1.24

require github.com/yuin/gopher-lua v1.1.2

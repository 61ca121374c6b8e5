module github.com/bglua/bglua

go 1.24

require github.com/yuin/gopher-lua v1.1.2

require github.com/spf13/pflag v1.0.10 // indirect

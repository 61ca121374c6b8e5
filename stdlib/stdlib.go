// Package stdlib embeds the Lua modules shipped with bglua, which every
// program can require by name (require "topo").
package stdlib

import "embed"

// FS holds the modules, one *.lua file each at its root, and the LuaLS
// definition files of the bglua modules under types/.
//
//go:embed *.lua types/*.lua
var FS embed.FS

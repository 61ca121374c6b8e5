package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bglua/bglua"
)

// editorFlags defines the flags of editor-setup; help goes to stdout.
func editorFlags(stdout, stderr io.Writer) (fs *pflag.FlagSet, force *bool) {
	fs = pflag.NewFlagSet("bglua editor-setup", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	force = fs.Bool("force", false, "overwrite an existing .luarc.json instead of merging bglua's settings into it")
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: bglua editor-setup [--force] [DIR]   (default: the current directory)\n\nflags:\n%s", fs.FlagUsages())
	}
	return fs, force
}

// editorSetup is `bglua editor-setup [DIR]`: it installs the LuaLS
// definition files of mpi, ml, bcs, expect and the sandbox's base library
// in DIR/.bglua/types and points the Lua language server at them in
// DIR/.luarc.json, merged into the user's file if there is one (--force
// overwrites it), so that editors complete mpi.* and flag blocking calls
// and what the sandbox removes.
func editorSetup(args []string, stdout, stderr io.Writer) int {
	fs, force := editorFlags(stdout, stderr)
	if err := parseFlags(fs, args); err != nil {
		if err == pflag.ErrHelp {
			return exitOK
		}
		fmt.Fprintf(stderr, "bglua editor-setup: %v\n", err)
		return exitUsage
	}
	dir := "."
	if fs.NArg() > 0 {
		dir = fs.Arg(0)
	}
	how, err := installTypes(dir, *force)
	if err != nil {
		fmt.Fprintf(stderr, "bglua editor-setup: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "wrote %s and %s %s\n", filepath.Join(dir, ".bglua", "types"), how, filepath.Join(dir, ".luarc.json"))
	return exitOK
}

// luarcSettings are what bglua needs of LuaLS: Lua 5.1, its definitions,
// its globals, and LuaLS's own definitions of what the sandbox removes
// turned off (sandbox.d.lua stands for the base library and os instead).
var luarcSettings = []struct {
	key string
	val any
}{
	{"runtime.version", "Lua 5.1"},
	{"runtime.builtin", map[string]any{"basic": "disable", "io": "disable", "os": "disable", "debug": "disable", "package": "disable"}},
	{"workspace.library", []any{".bglua/types"}},
	{"diagnostics.globals", []any{"mpi", "ml", "bcs", "expect", "describe", "it"}},
}

// installTypes writes the definitions and the .luarc.json and says how it
// wrote the latter: "wrote", "merged bglua's settings into" or
// "overwrote".
func installTypes(dir string, force bool) (string, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	rc := filepath.Join(dir, ".luarc.json")
	cfg, how := map[string]any{}, "wrote"
	if b, err := os.ReadFile(rc); err == nil {
		how = "overwrote"
		if !force {
			if err := json.Unmarshal(b, &cfg); err != nil || cfg == nil {
				return "", fmt.Errorf("%s is not a JSON object (%v); fix it, or rerun with --force to overwrite it", rc, err)
			}
			how = "merged bglua's settings into"
		}
	}
	types := filepath.Join(dir, ".bglua", "types")
	if err := os.MkdirAll(types, 0o755); err != nil {
		return "", err
	}
	defs := bglua.LuaTypes()
	files, _ := fs.Glob(defs, "*.d.lua")
	for _, f := range files {
		b, _ := fs.ReadFile(defs, f)
		if err := os.WriteFile(filepath.Join(types, f), b, 0o644); err != nil {
			return "", err
		}
	}
	for _, s := range luarcSettings {
		mergeSetting(cfg, s.key, s.val)
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return how, os.WriteFile(rc, append(b, '\n'), 0o644)
}

// mergeSetting puts bglua's value of a LuaLS setting into cfg where the
// user keeps it: a flat key ("runtime.version"), one with LuaLS's "Lua."
// prefix, or nested objects ({"runtime": {"version": ...}}); a setting the
// user does not have goes in nested if its section is there, else flat.
// Lists gain bglua's entries, objects bglua's keys; a string is replaced.
// Everything else of the user's stays.
func mergeSetting(cfg map[string]any, key string, val any) {
	section, name, _ := strings.Cut(key, ".")
	parent, k := cfg, key
	switch {
	case has(cfg, key):
	case has(cfg, "Lua."+key):
		k = "Lua." + key
	default:
		if sec, ok := cfg[section].(map[string]any); ok {
			parent, k = sec, name
		}
	}
	parent[k] = mergeValue(parent[k], val)
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// mergeValue is old with bglua's val merged in: the union of two lists
// (old's entries first), old's object with val's keys set, or val.
func mergeValue(old, val any) any {
	switch v := val.(type) {
	case []any:
		o, ok := old.([]any)
		if !ok {
			return slices.Clone(v)
		}
		for _, x := range v {
			if !slices.Contains(o, x) {
				o = append(o, x)
			}
		}
		return o
	case map[string]any:
		o, ok := old.(map[string]any)
		if !ok {
			return maps.Clone(v)
		}
		for k, x := range v {
			o[k] = x
		}
		return o
	}
	return val
}

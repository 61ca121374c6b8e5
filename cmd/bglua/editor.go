package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/bglua/bglua"
)

// editorFlags defines the flags of editor-setup; help goes to stdout.
func editorFlags(stdout, stderr io.Writer) (fs *pflag.FlagSet, force *bool) {
	fs = pflag.NewFlagSet("bglua editor-setup", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	force = fs.Bool("force", false, "overwrite an existing .luarc.json")
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: bglua editor-setup [--force] [DIR]   (default: the current directory)\n\nflags:\n%s", fs.FlagUsages())
	}
	return fs, force
}

// editorSetup is `bglua editor-setup [DIR]`: it installs the LuaLS
// definition files of mpi, ml, bcs and expect in DIR/.bglua/types and a
// .luarc.json that points the Lua language server at them, so that editors
// complete mpi.* and flag blocking calls.
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
	if err := installTypes(dir, *force); err != nil {
		fmt.Fprintf(stderr, "bglua editor-setup: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(dir, ".bglua", "types"), filepath.Join(dir, ".luarc.json"))
	return exitOK
}

func installTypes(dir string, force bool) error {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	rc := filepath.Join(dir, ".luarc.json")
	if _, err := os.Stat(rc); err == nil && !force {
		return fmt.Errorf("%s exists; add \".bglua/types\" to its workspace.library and runtime.version \"Lua 5.1\", or rerun with --force", rc)
	}
	types := filepath.Join(dir, ".bglua", "types")
	if err := os.MkdirAll(types, 0o755); err != nil {
		return err
	}
	defs := bglua.LuaTypes()
	files, _ := fs.Glob(defs, "*.d.lua")
	for _, f := range files {
		b, _ := fs.ReadFile(defs, f)
		if err := os.WriteFile(filepath.Join(types, f), b, 0o644); err != nil {
			return err
		}
	}
	cfg := map[string]any{
		"runtime.version":     "Lua 5.1",
		"workspace.library":   []string{".bglua/types"},
		"diagnostics.globals": []string{"mpi", "ml", "bcs", "expect", "describe", "it"},
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return os.WriteFile(rc, append(b, '\n'), 0o644)
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEditorSetup(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI("editor-setup", dir)
	if code != 0 || !strings.HasPrefix(out, "wrote ") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	for _, f := range []string{"mpi", "ml", "bcs", "expect"} {
		b, err := os.ReadFile(filepath.Join(dir, ".bglua", "types", f+".d.lua"))
		if err != nil || !strings.HasPrefix(string(b), "---@meta") {
			t.Errorf("%s.d.lua: %v", f, err)
		}
	}
	var rc map[string]any
	b, err := os.ReadFile(filepath.Join(dir, ".luarc.json"))
	if err != nil || json.Unmarshal(b, &rc) != nil || rc["runtime.version"] != "Lua 5.1" {
		t.Fatalf(".luarc.json: %v %s", err, b)
	}
	// A second run does not clobber the user's .luarc.json unless forced.
	if _, errOut, code := runCLI("editor-setup", dir); code != 2 || !strings.Contains(errOut, ".luarc.json exists") {
		t.Errorf("second run: exit %d %s", code, errOut)
	}
	if _, _, code := runCLI("editor-setup", "--force", dir); code != 0 {
		t.Errorf("--force: exit %d", code)
	}
	if _, errOut, code := runCLI("editor-setup", filepath.Join(dir, "missing")); code != 2 || !strings.Contains(errOut, "is not a directory") {
		t.Errorf("missing dir: exit %d %s", code, errOut)
	}
}

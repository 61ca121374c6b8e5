package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestEditorSetup(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCLI("editor-setup", dir)
	if code != 0 || !strings.HasPrefix(out, "wrote ") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	for _, f := range []string{"mpi", "ml", "bcs", "expect", "sandbox"} {
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
	// A second run merges into the file it wrote: nothing changes.
	if out, errOut, code := runCLI("editor-setup", dir); code != 0 || !strings.Contains(out, "merged bglua's settings into") {
		t.Errorf("second run: exit %d %s%s", code, out, errOut)
	}
	if b2, _ := os.ReadFile(filepath.Join(dir, ".luarc.json")); string(b2) != string(b) {
		t.Errorf("second run changed .luarc.json:\n%s\nwas\n%s", b2, b)
	}
	if out, _, code := runCLI("editor-setup", "--force", dir); code != 0 || !strings.Contains(out, "overwrote") {
		t.Errorf("--force: exit %d %s", code, out)
	}
	if _, errOut, code := runCLI("editor-setup", filepath.Join(dir, "missing")); code != 2 || !strings.Contains(errOut, "is not a directory") {
		t.Errorf("missing dir: exit %d %s", code, errOut)
	}
}

// editor-setup merges bglua's settings into the user's .luarc.json, in the
// form the user writes them (flat keys, "Lua." keys or nested sections),
// keeping the user's other settings; --force overwrites the file.
func TestEditorSetupMerge(t *testing.T) {
	sandbox := map[string]any{"basic": "disable", "io": "disable", "os": "disable", "debug": "disable", "package": "disable"}
	withBit := map[string]any{"bit": "enable"}
	for k, v := range sandbox {
		withBit[k] = v
	}
	globals := []any{"mpi", "ml", "bcs", "expect", "describe", "it"}
	cases := []struct {
		name, user string
		force      bool
		want       map[string]any
		fails      string
	}{
		{"flat keys", `{"runtime.version": "Lua 5.4", "workspace.library": ["lib"], "diagnostics.globals": ["vim", "mpi"], "hint.enable": true}`, false,
			map[string]any{"runtime.version": "Lua 5.1", "runtime.builtin": sandbox, "workspace.library": []any{"lib", ".bglua/types"},
				"diagnostics.globals": []any{"vim", "mpi", "ml", "bcs", "expect", "describe", "it"}, "hint.enable": true}, ""},
		{"nested sections", `{"runtime": {"version": "LuaJIT", "path": ["?.lua"], "builtin": {"bit": "enable"}}, "workspace": {"checkThirdParty": false}}`, false,
			map[string]any{"runtime": map[string]any{"version": "Lua 5.1", "path": []any{"?.lua"}, "builtin": withBit},
				"workspace":           map[string]any{"checkThirdParty": false, "library": []any{".bglua/types"}},
				"diagnostics.globals": globals}, ""},
		{"Lua. keys", `{"Lua.runtime.version": "Lua 5.3", "Lua.workspace.library": [".bglua/types"]}`, false,
			map[string]any{"Lua.runtime.version": "Lua 5.1", "Lua.workspace.library": []any{".bglua/types"},
				"runtime.builtin": sandbox, "diagnostics.globals": globals}, ""},
		{"empty object", `{}`, false,
			map[string]any{"runtime.version": "Lua 5.1", "runtime.builtin": sandbox, "workspace.library": []any{".bglua/types"}, "diagnostics.globals": globals}, ""},
		{"force overwrites", `{"hint.enable": true}`, true,
			map[string]any{"runtime.version": "Lua 5.1", "runtime.builtin": sandbox, "workspace.library": []any{".bglua/types"}, "diagnostics.globals": globals}, ""},
		{"not JSON", `{"runtime.version": "Lua 5.1", // a comment
}`, false, nil, "is not a JSON object"},
		{"not an object", `["a"]`, false, nil, "is not a JSON object"},
		{"null", `null`, false, nil, "is not a JSON object"},
		{"not JSON, forced", `{,`, true,
			map[string]any{"runtime.version": "Lua 5.1", "runtime.builtin": sandbox, "workspace.library": []any{".bglua/types"}, "diagnostics.globals": globals}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			rc := filepath.Join(dir, ".luarc.json")
			if err := os.WriteFile(rc, []byte(c.user), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"editor-setup", dir}
			if c.force {
				args = []string{"editor-setup", "--force", dir}
			}
			_, errOut, code := runCLI(args...)
			b, _ := os.ReadFile(rc)
			if c.fails != "" {
				if code != 2 || !strings.Contains(errOut, c.fails) || string(b) != c.user {
					t.Errorf("exit %d, stderr %q, file %s; want exit 2, %q, the file untouched", code, errOut, b, c.fails)
				}
				return
			}
			var got map[string]any
			if code != 0 || json.Unmarshal(b, &got) != nil {
				t.Fatalf("exit %d %s: %s", code, errOut, b)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got\n%s\nwant\n%v", b, c.want)
			}
		})
	}
}

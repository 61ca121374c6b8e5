package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bglua/bglua"
)

var luaBlock = regexp.MustCompile("(?s)```lua\n(.*?)```")

// Every Lua example of the README runs: programs on 64 ranks, suites case
// by case with their fields read as the command reads them, each passing.
func TestReadmeExamples(t *testing.T) {
	if n := runLuaExamples(t, "../../README.md"); n < 2 {
		t.Fatalf("found %d Lua examples in the README", n)
	}
}

// So does every Lua example of the reference in docs/.
func TestDocsExamples(t *testing.T) {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		n += runLuaExamples(t, f)
	}
	if n < 2 {
		t.Fatalf("found %d Lua examples in docs/*.md", n)
	}
}

// runLuaExamples runs the ```lua blocks of a Markdown file and returns how
// many there were. A block that returns a list of cases (return {...}) or
// declares them busted-style (describe(...)) is a suite.
func runLuaExamples(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(file, "../../")
	blocks := luaBlock.FindAllStringSubmatch(string(b), -1)
	for i, m := range blocks {
		src := m[1]
		prog := bglua.Program{Name: name + " example", Code: []byte(src)}
		trimmed := strings.TrimSpace(src)
		if !strings.HasPrefix(trimmed, "return {") && !strings.HasPrefix(trimmed, "describe(") {
			if _, err := bglua.Run(context.Background(), bglua.Config{Ranks: 64, Stdout: io.Discard}, prog); err != nil {
				t.Errorf("%s: example %d: %v", name, i+1, err)
			}
			continue
		}
		path := filepath.Join(t.TempDir(), "readme_test.lua")
		os.WriteFile(path, []byte(src), 0o644)
		s, err := bglua.LoadSuite(path)
		if err != nil {
			t.Fatalf("%s: example %d: %v", name, i+1, err)
		}
		if len(s.Cases) == 0 {
			t.Errorf("%s: example %d: a suite without cases", name, i+1)
		}
		for c := range s.Cases {
			if s.Cases[c].Pending != "" {
				continue // declared, not run
			}
			cfg, err := caseConfig(s, bglua.Config{Stdout: io.Discard}, c)
			if err != nil {
				t.Fatal(err)
			}
			_, runErr := bglua.Run(context.Background(), cfg, s.Program)
			if ok, why := s.Verdict(c, runErr); !ok {
				t.Errorf("%s: example %d, case %q: %s", name, i+1, s.Cases[c].Name, why)
			}
		}
	}
	return len(blocks)
}

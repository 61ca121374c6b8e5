package main

import (
	"context"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/bglua/bglua"
)

var luaBlock = regexp.MustCompile("(?s)```lua\n(.*?)```")

// Every Lua example of the README runs: programs on 64 ranks, suites case
// by case with their fields read as the command reads them, each passing.
func TestReadmeExamples(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := luaBlock.FindAllStringSubmatch(string(b), -1)
	if len(blocks) < 2 {
		t.Fatalf("found %d Lua examples in the README", len(blocks))
	}
	for i, m := range blocks {
		src := m[1]
		prog := bglua.Program{Name: "README example", Code: []byte(src)}
		if !strings.HasPrefix(strings.TrimSpace(src), "return {") {
			if _, err := bglua.Run(context.Background(), bglua.Config{Ranks: 64, Stdout: io.Discard}, prog); err != nil {
				t.Errorf("example %d: %v", i+1, err)
			}
			continue
		}
		dir := t.TempDir()
		file := dir + "/readme_test.lua"
		os.WriteFile(file, []byte(src), 0o644)
		s, err := bglua.LoadSuite(file)
		if err != nil {
			t.Fatalf("example %d: %v", i+1, err)
		}
		for c := range s.Cases {
			cfg, err := caseConfig(s, bglua.Config{Stdout: io.Discard}, c)
			if err != nil {
				t.Fatal(err)
			}
			_, runErr := bglua.Run(context.Background(), cfg, s.Program)
			if ok, why := s.Verdict(c, runErr); !ok {
				t.Errorf("example %d, case %q: %s", i+1, s.Cases[c].Name, why)
			}
		}
	}
}

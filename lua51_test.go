package bglua

import (
	"context"
	"strings"
	"testing"
)

// Script arguments are strings that tonumber reads as Lua 5.1 does.
func TestScriptArgsAsNumbers(t *testing.T) {
	var out strings.Builder
	prog := Program{Name: "args.lua", Code: []byte(`print(tonumber(arg[1]), tonumber(arg[2]), tonumber(arg[3]), arg[1] * 2)`)}
	_, err := Run(context.Background(), Config{Ranks: 1, Quiet: true, Stdout: &out, Args: []string{"1e6", "0x10", " 2.5 "}}, prog)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "1000000\t16\t2.5\t2000000\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

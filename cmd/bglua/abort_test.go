package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mpi.abort's code is the command's exit status, as a process's exit(code);
// an abort is never a success.
func TestAbortExitStatus(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		call string
		code int
		msg  string
	}{
		{`mpi.abort()`, 1, "aborted (code 1)"},
		{`mpi.abort("giving up")`, 1, "giving up (code 1)"},
		{`mpi.abort(3)`, 3, "aborted (code 3)"},
		{`mpi.abort("bad input", 42)`, 42, "bad input (code 42)"},
		{`mpi.abort(0)`, 1, "aborted (code 0)"},
		{`mpi.abort(261)`, 5, "aborted (code 261)"},
		{`mpi.abort(-1)`, 255, "aborted (code -1)"},
		{`pcall(mpi.abort, 9)`, 9, "aborted (code 9)"},
	} {
		prog := filepath.Join(dir, "abort.lua")
		src := "if mpi.rank() == 1 then " + c.call + " end\nmpi.barrier()\n"
		if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := runCLI("-n", "2", prog)
		if code != c.code || !strings.Contains(errOut, "called mpi.abort") || !strings.Contains(errOut, c.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.call, code, errOut, c.code, c.msg)
		}
	}
}

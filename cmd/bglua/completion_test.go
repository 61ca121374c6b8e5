package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The completion scripts are valid in their shells: bash always (CI has
// it), zsh and fish where they are installed.
func TestCompletionSyntax(t *testing.T) {
	for _, c := range []struct {
		shell string
		check []string // the command that parses the script without running it
	}{
		{"bash", []string{"bash", "-n"}},
		{"zsh", []string{"zsh", "-n"}},
		{"fish", []string{"fish", "--no-execute"}},
	} {
		t.Run(c.shell, func(t *testing.T) {
			if _, err := exec.LookPath(c.check[0]); err != nil {
				t.Skipf("%s is not installed: its completion script is not checked", c.shell)
			}
			out, errOut, code := runCLI("completion", c.shell)
			if code != 0 || errOut != "" || out == "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			file := filepath.Join(t.TempDir(), "bglua."+c.shell)
			os.WriteFile(file, []byte(out), 0o644)
			if msg, err := exec.Command(c.check[0], append(c.check[1:], file)...).CombinedOutput(); err != nil {
				t.Errorf("%s finds the script invalid: %v\n%s", c.shell, err, msg)
			}
		})
	}
}

// The bash script completes what a user types: subcommands, flags of the
// command at hand, the values of flags that take a word from a list.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	script, _, _ := runCLI("completion", "bash")
	file := filepath.Join(t.TempDir(), "bglua.bash")
	os.WriteFile(file, []byte(script), 0o644)
	for line, want := range map[string]string{
		"bglua comp":               "completion",
		"bglua test --fil":         "--filter --filter-out",
		"bglua test -o ":           "text tap",
		"bglua --mo":               "--mode",
		"bglua -n 4 --runtime ":    "direct bcs",
		"bglua completion ":        "bash zsh fish",
		"bglua help ":              "coll test sweep completion editor-setup",
		"bglua sweep --se":         "--seeds",
		"bglua sweep -n 2 --mode ": "co vn heater",
		"bglua -ranks 8 --rout":    "--routing",
		"bglua -n 4 x.lua --mod":   "", // the program's own arguments: files
	} {
		out, err := exec.Command("bash", "-c", `source "$0"; read -ra COMP_WORDS <<< "$1"; [[ "$1" == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _bglua; echo "${COMPREPLY[*]}"`, file, line).CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != want {
			t.Errorf("%q completes to %q (%v), want %q", line, got, err, want)
		}
	}
}

func TestCompletionUsage(t *testing.T) {
	if _, errOut, code := runCLI("completion", "tcsh"); code != 2 || errOut != "bglua completion: \"tcsh\" is not bash, zsh or fish\n" {
		t.Errorf("exit %d, %q", code, errOut)
	}
	if out, _, code := runCLI("help", "completion"); code != 0 || !strings.HasPrefix(out, "usage: bglua completion bash|zsh|fish") {
		t.Errorf("help completion: exit %d, %q", code, out)
	}
}

package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// The test binary runs the command itself when asked to (the signal tests
// need a process of their own to send signals to).
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("BGLUA_TEST_RUN"); ok {
		os.Exit(run(strings.Split(args, "\x1f"), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// command starts the command with args in a process of its own, and
// returns once the program has written its first line ("ready"): it
// prints that line, then more than the printer's buffer, so that the line
// reaches the pipe before the program goes on.
func command(t *testing.T, args ...string) (cmd *exec.Cmd, stderr *bytes.Buffer) {
	t.Helper()
	cmd = exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BGLUA_TEST_RUN="+strings.Join(args, "\x1f"))
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("first line %q, %v", line, err)
	}
	go func() { // drain the rest
		buf := make([]byte, 64<<10)
		for {
			if _, err := out.Read(buf); err != nil {
				return
			}
		}
	}()
	return cmd, stderr
}

func processStatus(t *testing.T, err error) int {
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if ee != nil {
		return ee.ExitCode()
	}
	return 0
}

// readyThen is a program whose rank 0 says it is ready, then does what.
func readyThen(t *testing.T, what string) string {
	f := t.TempDir() + "/prog.lua"
	src := "if mpi.rank() == 0 then\n  print('ready')\n  print(string.rep('.', 70000))\n  mpi.compute(1e-6)\n  print('going on')\nend\nmpi.barrier()\n" + what + "\n"
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// The first SIGINT stops ranks spinning in pure Lua, reports where they
// were and exits 130.
func TestSIGINTStopsSpinningRanks(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		prog := readyThen(t, "while true do end")
		cmd, stderr := command(t, "--quiet", "-n", "4", prog)
		cmd.Process.Signal(sig)
		if code := processStatus(t, cmd.Wait()); code != 130 {
			t.Errorf("%v: exit %d, want 130; stderr:\n%s", sig, code, stderr)
		}
		// The rank running is stopped at the line it has reached, the
		// barrier (7) or the loop (8).
		running := regexp.MustCompile(`^bglua: interrupted at t=\S+; running: rank \d at ` + regexp.QuoteMeta(prog) + `:[78]\n$`)
		if !running.MatchString(stderr.String()) {
			t.Errorf("%v: stderr %q, want the interrupt and the rank's line", sig, stderr)
		}
	}
}

// The first signal cancels the run; a second ends the process at once.
func TestSecondSignalExits(t *testing.T) {
	sigs := make(chan os.Signal)
	var stderr bytes.Buffer
	exited := make(chan int)
	ctx, stop := onSignals(sigs, &stderr, func(code int) { exited <- code })
	defer stop()
	sigs <- syscall.SIGINT
	<-ctx.Done()
	sigs <- syscall.SIGINT
	if code := <-exited; code != 130 || stderr.String() != "bglua: interrupted again: exiting at once\n" {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}

// ^C in bglua test names the case it stopped, and the JUnit file is still
// written, with that case as an error.
func TestSIGINTInSuite(t *testing.T) {
	dir := t.TempDir()
	suite, junit := dir+"/spin_test.lua", dir+"/out.xml"
	os.WriteFile(suite, []byte(`return {
  { name = "quick", run = function() end },
  { name = "spins", run = function() while true do end end },
}
`), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BGLUA_TEST_RUN="+strings.Join([]string{"test", "--junit", junit, suite}, "\x1f"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	if line, err := r.ReadString('\n'); err != nil || line != "ok   "+suite+": quick\n" {
		cmd.Process.Kill()
		t.Fatalf("first line %q, %v", line, err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	rest, _ := io.ReadAll(r)
	if code := processStatus(t, cmd.Wait()); code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	if want := "INTERRUPTED " + suite + ": spins\n1 passed, 0 failed\n"; string(rest) != want {
		t.Errorf("output %q, want %q", rest, want)
	}
	report, _ := readJUnit(t, junit)
	if s := report.Suites[0]; len(s.Cases) != 2 || s.Cases[1].Error == nil || s.Cases[1].Error.Type != "interrupted" {
		t.Errorf("JUnit: %+v", report)
	}
	validateJUnit(t, junit)
}

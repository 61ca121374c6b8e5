package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/bglua/bglua"
)

// peakMemory is the process's peak resident set (VmHWM), or the Go heap's
// high-water mark where /proc is not there.
func peakMemory() string {
	if f, err := os.Open("/proc/self/status"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				if err == nil {
					return fmt.Sprintf("%.1f MiB", float64(kb)/1024)
				}
			}
		}
	}
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return fmt.Sprintf("%.1f MiB", float64(ms.Sys)/(1<<20))
}

func printAlgorithms(w io.Writer) {
	fmt.Fprintln(w, "collective algorithms (--coll NAME=ALG; auto is the default):")
	for _, a := range bglua.Algorithms() {
		fmt.Fprintf(w, "  %-15s %-20s %s\n", a.Coll, a.Name, a.Doc)
	}
}

package main

import (
	"fmt"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"strconv"
)

// startProfiles starts the Go profiles asked for; the returned function
// writes them out. They profile bglua itself, for work on its speed.
func startProfiles(o *runOpts) (func(), error) {
	var cpu *os.File
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return nil, fmt.Errorf("--cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("--cpuprofile: %v", err)
		}
		cpu = f
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if o.memProfile != "" {
			f, err := os.Create(o.memProfile)
			if err != nil {
				fmt.Fprintf(os.Stderr, "bglua: --memprofile: %v\n", err)
				return
			}
			goruntime.GC()
			pprof.WriteHeapProfile(f)
			f.Close()
		}
	}, nil
}

// processFile is where process rank > 0 of an MPI job writes a file that
// names FILE: FILE.rank ("" stays "").
func processFile(name string, rank int) string {
	if name == "" || rank == 0 {
		return name
	}
	return name + "." + strconv.Itoa(rank)
}

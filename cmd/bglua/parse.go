package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/bglua/bglua"
)

// parseColl reads --coll (and a case's coll field):
// NAME=ALG[:KEY=VALUE,...][,NAME=ALG...] (bglua.ParseColl).
func parseColl(s string) (map[string]string, error) {
	m, err := bglua.ParseColl(s)
	if err != nil {
		return nil, fmt.Errorf("--coll %q: %v", s, err)
	}
	return m, nil
}

// parseDuration reads a virtual duration: "500us", "1.5ms", "2s" or a bare
// number of seconds.
func parseDuration(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case v != v || math.IsInf(v, 0):
			return 0, fmt.Errorf("%q is not a finite duration", s)
		case v < 0:
			return 0, fmt.Errorf("%q is negative", s)
		}
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (e.g. 500us, 1.5ms, 2s)", s)
	}
	return d.Seconds(), nil
}

// maxTimeout is the longest wall-time limit a case or --timeout may set.
const maxTimeout = 1000 * time.Hour

// parseSize reads a memory size: a whole number of bytes, or a number with a
// unit K, M, G or T (KB, KiB... alike: powers of 1,024), e.g. "512MiB",
// "1.5G" (bglua.ParseSize).
func parseSize(s string) (int64, error) {
	n, err := bglua.ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a memory size (e.g. 512MiB, 2G, 1073741824)", s)
	}
	return n, nil
}

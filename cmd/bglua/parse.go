package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// parseColl reads "NAME=ALG[,NAME=ALG]".
func parseColl(s string) (map[string]string, error) {
	m := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" || strings.Contains(v, "=") {
			return nil, fmt.Errorf("--coll %q: want NAME=ALG[,NAME=ALG] ('--coll help' lists them)", s)
		}
		if old, dup := m[k]; dup {
			return nil, fmt.Errorf("--coll %q: %s is given twice (%s and %s)", s, k, old, v)
		}
		m[k] = v
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
// "1.5G".
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	num := strings.TrimRightFunc(t, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' })
	unit := strings.ToUpper(strings.TrimSpace(t[len(num):]))
	num = strings.TrimSpace(num)
	mult := map[string]float64{"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20,
		"G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30, "T": 1 << 40, "TB": 1 << 40, "TIB": 1 << 40}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || math.IsNaN(v) || v <= 0 || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a memory size (e.g. 512MiB, 2G, 1073741824)", s)
	}
	return int64(v * mult), nil
}

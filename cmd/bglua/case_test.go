package main

import (
	"testing"
	"time"

	"github.com/bglua/bglua"
)

// A case's duration fields take seconds or a duration string, and say
// what is wrong with any other value.
func TestCaseDurations(t *testing.T) {
	for _, c := range []struct {
		field string
		v     any
		check func(bglua.Config) bool
		err   string
	}{
		{"timeslice", 250e-6, func(c bglua.Config) bool { return c.Timeslice == 250e-6 }, ""},
		{"timeslice", "1ms", func(c bglua.Config) bool { return c.Timeslice == 1e-3 }, ""},
		{"timeslice", "soon", nil, `s_test.lua: case "a": "soon" is not a duration (e.g. 500us, 1.5ms, 2s)`},
		{"timeslice", true, nil, `s_test.lua: case "a": field timeslice: want a duration such as "250us"`},
		{"timeslice", 0.0, nil, `s_test.lua: case "a": field timeslice: must be positive`},
		{"max_vtime", "10ms", func(c bglua.Config) bool { return c.MaxVTime == 10e-3 }, ""},
		{"max-vtime", false, nil, `s_test.lua: case "a": field max_vtime: want a duration such as "10ms"`},
		{"timeout", 30.0, func(c bglua.Config) bool { return c.Timeout == 30*time.Second }, ""},
		{"timeout", "2s", func(c bglua.Config) bool { return c.Timeout == 2*time.Second }, ""},
		{"timeout", "forever", nil, `s_test.lua: case "a": field timeout: "forever" is not a duration (e.g. 500us, 1.5ms, 2s)`},
		{"timeout", true, nil, `s_test.lua: case "a": field timeout: want a wall-clock duration such as "30s"`},
		{"timeout", -1.0, nil, `s_test.lua: case "a": field timeout: want a positive duration of at most 1000h0m0s`},
	} {
		s := &bglua.Suite{File: "s_test.lua", Cases: []bglua.Case{{Name: "a", Fields: map[string]any{c.field: c.v}}}}
		cfg, err := caseConfig(s, bglua.Config{}, 0)
		switch {
		case c.err == "" && (err != nil || !c.check(cfg)):
			t.Errorf("%s = %v: %v, %+v", c.field, c.v, err, cfg)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%s = %v: err %v, want %s", c.field, c.v, err, c.err)
		}
	}
}

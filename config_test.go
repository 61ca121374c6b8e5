package bglua

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Validate names the field that Run cannot use, and Run reports the same.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
		msg   string
	}{
		{Config{Timeout: -time.Second}, "Timeout", "Config.Timeout must not be negative (got -1s)"},
		{Config{MaxMemory: -1}, "MaxMemory", "Config.MaxMemory must not be negative (got -1)"},
		{Config{Ranks: -4}, "Ranks", "Config.Ranks must be at least 1 (got -4)"},
		{Config{Machine: "cray"}, "Machine", `Config.Machine "cray": unknown machine (valid: bgl, bgc, or a FILE.lua)`},
		{Config{EagerLimit: -1}, "EagerLimit", "Config.EagerLimit must not be negative (got -1)"},
		{Config{Mode: "turbo"}, "Mode", `Config.Mode "turbo": want co, vn or heater`},
		{Config{EMDS: true}, "EMDS", `Config.EMDS needs Config.Runtime "bcs" (it monitors the bcs runtime's slices)`},
		{Config{Runtime: "fast"}, "Runtime", `Config.Runtime "fast": want direct or bcs`},
		{Config{Grain: 5000}, "Grain", "Config.Grain 5000: want 0 to 4096 (0: exact, coarsened where nothing can tell; 1: the machine's FIFOs always; more: fewer events for large messages, coarser interleaving)"},
		{Config{Routing: "zigzag"}, "Routing", `Config.Routing "zigzag": want deterministic or adaptive (default: each protocol's own)`},
		{Config{Torus: "8x8"}, "Torus", ""},
		{Config{Ranks: 20000000}, "Ranks", "Config.Ranks 20000000 needs 20000000 nodes at 1 rank per node, more than a torus bglua models (at most 16777216 nodes)"},
	} {
		for _, err := range []error{c.cfg.Validate(), runErr(c.cfg)} {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != c.field || c.msg != "" && err.Error() != c.msg {
				t.Errorf("%+v: err = %v, want a *ConfigError of %s: %s", c.cfg, err, c.field, c.msg)
			}
		}
	}
	if err := (Config{Ranks: 64, Machine: "bgc", Mode: "vn", Runtime: "bcs", EMDS: true}).Validate(); err != nil {
		t.Errorf("a good Config: %v", err)
	}
}

// What depends on the machine is checked when Run has read it.
func TestConfigOnMachine(t *testing.T) {
	for _, c := range []struct {
		cfg Config
		msg string
	}{
		{Config{RzvLimit: 500}, "Config.RzvLimit 500 is below the eager limit 1000: want it at least the eager limit (the adaptive eager protocol runs between the two)"},
		{Config{MaxVTime: 1e-30}, "Config.MaxVTime 1e-30s is shorter than one cycle of the machine"},
		{Config{Runtime: "bcs", Timeslice: 1e30}, "Config.Timeslice 1e+30s is past what virtual time can hold (9223372036854775807 cycles, 1.318e+10s at 700 MHz)"},
	} {
		if err := c.cfg.Validate(); err != nil {
			t.Errorf("%+v: Validate: %v", c.cfg, err)
		}
		if err := runErr(c.cfg); err == nil || err.Error() != c.msg {
			t.Errorf("%+v: Run: %v, want %s", c.cfg, err, c.msg)
		}
	}
}

func runErr(cfg Config) error {
	_, err := Run(context.Background(), cfg, Program{Name: "x.lua"})
	return err
}

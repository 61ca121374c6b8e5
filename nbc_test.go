package bglua

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// nbcTraceProg runs a nonblocking allreduce (a Lua algorithm) beside
// computation.
const nbcTraceProg = `
local coll = require "coll"
mpi.coll.register("allreduce", "lua_rd", coll.recursive_doubling_allreduce)
local req = mpi.iallreduce(mpi.rank())
mpi.compute(1e-4)
assert(mpi.wait(req) == 6)
`

// A nonblocking collective is drawn on its rank's progress track, with its
// algorithm, and the calls its Lua algorithm made are there too, not on the
// rank's own track; --stats counts it under its algorithm, those calls
// nested under it.
func TestNBCTraceAndStats(t *testing.T) {
	var tr bytes.Buffer
	cfg := Config{Ranks: 4, Trace: &tr, Stats: true, Coll: map[string]string{"allreduce": "lua_rd"}, Quiet: true}
	res, err := Run(context.Background(), cfg, Program{Name: "nbc.lua", Code: []byte(nbcTraceProg)})
	if err != nil {
		t.Fatal(err)
	}
	var evs []struct {
		Name string         `json:"name"`
		Ph   string         `json:"ph"`
		Tid  int            `json:"tid"`
		Args map[string]any `json:"args"`
	}
	if err := json.Unmarshal(tr.Bytes(), &evs); err != nil {
		t.Fatalf("trace: %v", err)
	}
	progTid := 1<<29 + 2<<4 // rank 2, context 0
	var named, coll, inner, onRank bool
	for _, e := range evs {
		switch {
		case e.Ph == "M" && e.Tid == progTid:
			named = e.Args["name"] == "rank 2 progress 0"
		case e.Ph == "X" && e.Tid == progTid && e.Name == "mpi.iallreduce":
			coll = e.Args["algorithm"] == "lua_rd"
		case e.Ph == "X" && e.Tid == progTid && e.Name == "mpi.sendrecv":
			inner = true
		case e.Ph == "X" && e.Tid == 3 && e.Name == "mpi.sendrecv":
			onRank = true
		}
	}
	if !named || !coll || !inner || onRank {
		t.Errorf("trace: progress track named %v, iallreduce slice with its algorithm %v, sendrecv on it %v, sendrecv on the rank's track %v", named, coll, inner, onRank)
	}
	var rows []string
	for _, s := range res.Stats {
		rows = append(rows, s.Parent+"|"+s.Name+"|"+s.Algorithm)
	}
	all := strings.Join(rows, " ")
	for _, want := range []string{"|mpi.iallreduce|lua_rd", "mpi.iallreduce|mpi.sendrecv|lua_rd", "|mpi.iallreduce|"} {
		if !strings.Contains(" "+all+" ", " "+want+" ") {
			t.Errorf("stats rows %q lack %q", all, want)
		}
	}
}

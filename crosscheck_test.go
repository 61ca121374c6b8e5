package bglua

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/bglua/bglua/luabind"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
)

// TestCrossingsUnchanged runs programs in blocks (a torus of four, two
// threads) under the debug check of what crosses between partitions
// (runtime.CrossingCheck): every event sent to another partition carries,
// when it runs there, the fields it had when it was sent (the event's own,
// and its message's envelope, collective signature and the flow's fields
// the reader reads), as it must for a run whose partitions are in several
// processes, where it is encoded at Send. Every payload an event carries
// is written and read back by the payloads' codec (luabind.PayloadCodec):
// a payload of a type the codec does not know fails the test, naming it.
// The output is the same as without the check.
func TestCrossingsUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs programs of 2,048 ranks")
	}
	file := func(name string) Program {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return Program{Name: filepath.Base(name), Code: b, Dir: filepath.Dir(name)}
	}
	p2p := p2pColl
	cases := []struct {
		name    string
		prog    Program
		args    []string
		coll    map[string]string
		wantErr bool
		kinds   string // kinds of events checked, at least
	}{
		// Every rank prints: the I/O nodes' writes and replies.
		{"hello", file("scripts/hello.lua"), nil, nil, false, "*mpi.ioWrite *mpi.ioDone"},
		{"split", Program{Name: "split.lua", Code: []byte(splitProg)}, nil, nil, false, ""},
		{"active messages", Program{Name: "am.lua", Code: []byte(amProg)}, nil, nil, false, ""},
		{"lua collectives", Program{Name: "luacoll.lua", Code: []byte(luaCollProg)}, nil,
			map[string]string{"bcast": "lua_octree", "allreduce": "lua_recursive_doubling"}, false, ""},
		{"deposits", Program{Name: "dep.lua", Code: []byte(depProg)}, nil, nil, false, "*msglayer.depositTransit"},
		{"ring", file("scripts/ring.lua"), nil, nil, false, ""},
		{"mpi-3 point-to-point", Program{Name: "mpi3.lua", Code: []byte(mpi3Prog)}, nil, nil, false, ""},
		{"collectives", Program{Name: "coll.lua", Code: []byte(collProg)}, nil, p2p, false, ""},
		{"nonblocking collectives", Program{Name: "nbc.lua", Code: []byte(nbcProg)}, nil, map[string]string{"allreduce": "recursive_doubling"}, false, ""},
		{"tree and gi", Program{Name: "hw.lua", Code: []byte(hwProg)}, nil, map[string]string{"barrier": "gi"}, false, ""},
		{"error", Program{Name: "err.lua", Code: []byte(errProg)}, nil, nil, true, ""},
		{"payloads", Program{Name: "payloads.lua", Code: []byte(payloadsProg)}, nil,
			map[string]string{"bcast": "scatter_allgather", "allgather": "bruck"}, false, ""},
		{"bench halo3d", file("bench/workloads/halo3d.lua"), []string{"3", "8192", "16", "16", "8"}, nil, false, "*msglayer.linkRelease *msglayer.trainIn"},
		{"bench halo3d eager", file("bench/workloads/halo3d.lua"), []string{"2", "1000", "16", "16", "8"}, nil, false, ""},
		{"bench allreduce", file("bench/workloads/allreduce.lua"), []string{"3"}, p2p, false, "*msglayer.linkRelease *msglayer.trainHop *msglayer.trainIn"},
		{"bench bcast", file("bench/workloads/bcast.lua"), []string{"65536", "1"}, p2p, false, ""},
		{"bench pingpong", file("bench/workloads/pingpong.lua"), []string{"100000", "3", "2047"}, nil, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var outs [2]string
			count := &countingCheck{n: map[string]int{}}
			for i, check := range []bool{true, false} {
				var out bytes.Buffer
				cfg := Config{Ranks: 2048, Torus: "16x16x8", Threads: 2, Stats: true, Args: tc.args, Coll: tc.coll, Stdout: &out}
				if check {
					cfg.checkCrossings = count.wrap
				}
				res, err := Run(context.Background(), cfg, tc.prog)
				var ce *runtime.CrossingError
				if errors.As(err, &ce) {
					t.Fatalf("%v", err)
				}
				if res == nil || (err != nil) != tc.wantErr {
					t.Fatalf("check %v: error %v", check, err)
				}
				if res.Partitions != 4 || res.Crossings == 0 {
					t.Fatalf("%d partitions (%s), %d crossings", res.Partitions, res.OnePartition, res.Crossings)
				}
				res.HostSeconds = 0
				outs[i] = fmt.Sprintf("%s\n%+v\n%v", out.String(), *res, err)
			}
			var kinds []string
			for k := range count.n {
				kinds = append(kinds, k)
			}
			sort.Strings(kinds)
			t.Logf("forms checked: %v; payloads written and read back: %v", count.n, count.payloads)
			for typ, fail := range count.bad {
				t.Errorf("a payload of type %s does not cross: %s", typ, fail)
			}
			for _, k := range strings.Fields(tc.kinds) {
				if count.n[k] == 0 {
					t.Errorf("no %s checked (checked: %v)", k, kinds)
				}
			}
			if outs[0] != outs[1] {
				t.Errorf("the check changed the run:\n--- checked\n%s\n--- not\n%s", outs[0], outs[1])
			}
		})
	}
}

// payloadsProg sends payloads of every kind a program makes across the
// machine (tables of strings, tables in tables, arrays, phantoms in
// tables), and by the algorithms that carry MPI's own payloads: the
// scatter of the scatter-allgather broadcast, and Bruck's allgather, whose
// packs hold the ranks' tables (on communicators of 32 ranks, for time).
const payloadsProg = `
local n, me = mpi.size(), mpi.rank()
local far, from = (me + 8) % n, (me - 8) % n -- the other half in x: another block
local t = mpi.sendrecv({"a", "", name = "rank " .. me, nested = {1.5, "x", {}}, big = mpi.bytes(100)}, far, from)
local a = mpi.sendrecv({me, me + 0.5, -1}, far, from)
local sub = mpi.COMM_WORLD:split(me % 64) -- 32 ranks across the machine
local b = sub:bcast(sub:rank() == 5 and {"from " .. me, {1, 2, 3}, k = true} or nil, 5)
local g = sub:allgather({me, tostring(me)})
if me % 512 == 3 then
  print(string.format("%s %s %g %s %d %s %s %.9e", t.name, t.nested[2], a[2], b[1], #b[2], g[7][2], tostring(b.k), mpi.wtime()))
end
`

// countingCheck counts the forms a check makes, by the event's type, and
// puts the payload of every event that has one (msglayer.CrossingPayload)
// through the payloads' codec (luabind.PayloadCodec), as a run in several
// processes will: each must be written and read back equal.
type countingCheck struct {
	runtime.CrossingCheck
	mu       sync.Mutex
	n        map[string]int
	payloads map[string]int    // payloads written and read back, by type
	bad      map[string]string // by payload type, its first failure
}

// roundTrip writes v with the payloads' codec and reads it back.
func (c *countingCheck) roundTrip(v any) {
	codec := luabind.PayloadCodec()
	var fail string
	b, err := codec.AppendPayload(nil, v)
	if err != nil {
		fail = err.Error()
	} else if w, rest, err := codec.ReadPayload(b); err != nil || len(rest) != 0 {
		fail = fmt.Sprintf("written as %x, read with %d bytes left: %v", b, len(rest), err)
	} else if !reflect.DeepEqual(v, w) {
		fail = fmt.Sprintf("%#v read back as %#v", v, w)
	}
	typ := fmt.Sprintf("%T", v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.payloads == nil {
		c.payloads, c.bad = map[string]int{}, map[string]string{}
	}
	c.payloads[typ]++
	if _, seen := c.bad[typ]; fail != "" && !seen {
		c.bad[typ] = fail
	}
}

func (c *countingCheck) wrap(w runtime.CrossingCheck) runtime.CrossingCheck {
	c.CrossingCheck = w
	return c
}

func (c *countingCheck) Form(a runtime.Action) []byte {
	b := c.CrossingCheck.Form(a)
	if b != nil {
		c.mu.Lock()
		c.n[fmt.Sprintf("%T", a)]++
		c.mu.Unlock()
		if v, ok := msglayer.CrossingPayload(a); ok {
			c.roundTrip(v)
		}
	}
	return b
}

// spoilingCheck's forms differ at every call: each event fails the check.
type spoilingCheck struct {
	runtime.CrossingCheck
	mu sync.Mutex
	k  byte
}

func (c *spoilingCheck) Form(a runtime.Action) []byte {
	b := c.CrossingCheck.Form(a)
	if b != nil {
		c.mu.Lock()
		c.k++
		b = append(b, c.k)
		c.mu.Unlock()
	}
	return b
}

// TestCrossingCheckStops: a run whose events change between Send and
// their run stops with a *runtime.CrossingError that names the event.
func TestCrossingCheckStops(t *testing.T) {
	b, err := os.ReadFile("bench/workloads/halo3d.lua")
	if err != nil {
		t.Fatal(err)
	}
	halo := Program{Name: "halo3d.lua", Code: b, Dir: "bench/workloads"}
	cfg := Config{Ranks: 2048, Torus: "16x16x8", Threads: 2, Args: []string{"1", "1000", "16", "16", "8"}, Stdout: &bytes.Buffer{},
		checkCrossings: func(w runtime.CrossingCheck) runtime.CrossingCheck { return &spoilingCheck{CrossingCheck: w} }}
	_, err = Run(context.Background(), cfg, halo)
	var ce *runtime.CrossingError
	if !errors.As(err, &ce) || !strings.Contains(ce.Kind, "msglayer.") {
		t.Fatalf("error %v, want a crossing error", err)
	}
	t.Log(err)
}

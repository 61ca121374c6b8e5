package luabind

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/hw"
	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/msglayer"
	"github.com/bglua/bglua/runtime"
	"github.com/bglua/bglua/stdlib"
)

// blocking lists the functions that can block a rank in virtual time; their
// definitions must say ---@async so that editors flag them.
var blocking = map[string]bool{
	"send": true, "recv": true, "wait": true, "waitall": true, "waitany": true, "probe": true,
	"sendrecv": true, "barrier": true, "bcast": true, "reduce": true, "allreduce": true,
	"gather": true, "gatherv": true, "allgather": true, "allgatherv": true, "scatter": true,
	"scatterv": true, "alltoall": true, "alltoallv": true, "reduce_scatter": true, "scan": true,
	"exscan": true, "split": true, "dup": true, "compute": true,
	"ssend": true, "mprobe": true, "mrecv": true, "neighbor_allgather": true, "neighbor_alltoall": true,
}

// Every function bglua registers in Lua has a LuaLS definition, and the
// blocking ones are marked ---@async.
func TestEveryRegisteredFunctionIsAnnotated(t *testing.T) {
	mp, err := hw.MapXYZT(hw.Torus{Dims: hw.Dims{X: 1, Y: 1, Z: 1}}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := mpi.NewWorld(msglayer.New(hw.BGL(), mp, runtime.New()), 1)
	prog, _ := Compile("x.lua", "", nil)
	h := NewHost(Options{Program: prog}, w, nil)

	defs := map[string]string{}
	for _, f := range []string{"mpi", "ml", "bcs", "expect"} {
		b, err := fs.ReadFile(stdlib.FS, "types/"+f+".d.lua")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "---@meta") {
			t.Errorf("types/%s.d.lua does not start with ---@meta", f)
		}
		defs[f] = string(b)
	}
	check := func(file, owner, sep string, tab *lua.LTable, asyncName func(string) bool) {
		for _, name := range sortedKeys(tab) {
			if _, ok := tab.RawGetString(name).(*lua.LFunction); !ok {
				continue
			}
			decl := "function " + owner + sep + name + "("
			i := strings.Index(defs[file], decl)
			if i < 0 {
				t.Errorf("%s%s%s is registered but types/%s.d.lua does not define it", owner, sep, name, file)
				continue
			}
			if asyncName(name) && !strings.Contains(docBlock(defs[file], i), "---@async") {
				t.Errorf("%s%s%s blocks but is not marked ---@async", owner, sep, name)
			}
		}
	}
	isBlocking := func(n string) bool { return blocking[n] }
	for _, lib := range h.sh.libs {
		switch lib.name {
		case "mpi":
			check("mpi", "mpi", ".", lib.table, isBlocking)
		case "bcs":
			check("bcs", "bcs", ".", lib.table, func(n string) bool { return n == "test_event" || n == "compare_and_write" })
		case "ml":
			check("ml", "ml", ".", lib.table, func(n string) bool {
				return n == "wait" || n == "tree_bcast" || n == "tree_reduce" || n == "gi_barrier"
			})
		}
	}
	check("mpi", "Comm", ":", h.sh.commMT.RawGetString("__index").(*lua.LTable), isBlocking)
	// Cartesian communicators have every communicator method (Cart: Comm)
	// and their own.
	cart := h.sh.cartMT.RawGetString("__index").(*lua.LTable)
	comm := h.sh.commMT.RawGetString("__index").(*lua.LTable)
	own := newTable()
	for _, k := range sortedKeys(cart) {
		if comm.RawGetString(k) == lua.LNil {
			own.RawSetString(k, cart.RawGetString(k))
		}
	}
	check("mpi", "Cart", ":", own, isBlocking)
	for _, lib := range h.sh.libs {
		if lib.name == "mpi" {
			coll := lib.table.RawGetString("coll").(*lua.LUserData).Metatable.(*lua.LTable)
			check("mpi", "mpi.coll", ".", coll.RawGetString("__index").(*lua.LTable), isBlocking)
		}
	}
	check("mpi", "Request", ":", h.sh.reqMT.RawGetString("__index").(*lua.LTable), isBlocking)
	check("mpi", "Message", ":", h.sh.msgMT.RawGetString("__index").(*lua.LTable), isBlocking)
	for _, f := range []string{"expect", "describe", "it"} {
		if !strings.Contains(defs["expect"], "function "+f+"(") {
			t.Errorf("types/expect.d.lua lacks %s", f)
		}
	}
}

var docLine = regexp.MustCompile(`^---`)

// docBlock returns the ---comment lines right above position i.
func docBlock(src string, i int) string {
	lines := strings.Split(src[:i], "\n")
	var block []string
	for j := len(lines) - 2; j >= 0 && docLine.MatchString(lines[j]); j-- {
		block = append(block, lines[j])
	}
	return strings.Join(block, "\n")
}

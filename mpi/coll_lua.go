package mpi

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// External collective algorithms: algorithms written outside this package,
// in practice Lua functions registered by the program with mpi.coll.register.
//
// The built-in algorithms are registered once for the process (init); an
// external one belongs to one run. The program registers it while it runs,
// on every rank, after --coll has selected it by name (SetAlgorithm accepts a
// name that is not built in and leaves it pending). The first collective call
// that needs it looks it up; a name nobody registered fails there, on each
// rank, with an *UnregisteredError.
//
// The entry points (Bcast, Gather, ...) check the arguments as for the
// built-ins, then call the ExternalAlg with a view of the communicator
// (CollView) and the call's arguments, and check what it returns: a value per
// rank where the built-in returns one (gather at the root, allgather,
// alltoall), nothing where the built-in returns nothing (reduce and gather
// away from the root, exscan on rank 0, barrier).
//
// Contexts. A communicator owns two contexts, ctx for the user's messages and
// ctx+1 for the messages of built-in algorithms (a context id is even,
// ids.go). An external algorithm talks with ordinary point-to-point
// calls, so it gets a view: a communicator with the same group and a context
// pair of its own, derived from the communicator's (Rank.context with a
// sequence number no split or dup uses), the same on every rank without
// communication. Its messages can then match neither the user's nor those of
// the built-in algorithms, and collectives on the view are safe: they use the
// view's second context, and an external algorithm called there gets a view
// of the view, with yet another pair.

// ExternalAlg runs one call of an external collective algorithm on the
// calling rank. view is the communicator to communicate on (see CollView);
// call holds the arguments and receives the result. It must not keep the
// World reachable after it returns (the run's table of external algorithms
// is only freed with the World).
type ExternalAlg func(view *Comm, call *ExternalCall) error

// ResultKind says what a rank's part of a collective returns.
type ResultKind uint8

const (
	NoResult     ResultKind = iota // nothing: barrier; reduce and gather off the root; exscan on rank 0
	OneValue                       // Result
	ValuePerRank                   // Results, one per rank of the communicator
)

// ExternalCall is one call of an external algorithm on one rank.
type ExternalCall struct {
	Coll string // canonical collective: bcast, not bcastv; gather for gatherv
	Alg  string // the algorithm's registered name

	// Arguments, as the caller gave them to the entry point. Value is v of
	// bcast (meaningful at the root), reduce, allreduce, gather, allgather,
	// scan and exscan; Values is vs of scatter (at the root), alltoall and
	// reduce_scatter; Op of the reductions; Root of bcast, reduce, gather
	// and scatter (-1 for the others).
	Value  Value
	Values []Value
	Op     Op
	Root   int
	// Params are the parameters --coll gave the algorithm (nil for none).
	Params Params

	// Want is what this rank must return: the algorithm sets Result or
	// Results accordingly; the other is ignored.
	Want    ResultKind
	Result  Value
	Results []Value
}

// UnregisteredError is a collective call whose selected algorithm is neither
// built in nor registered on the calling rank.
type UnregisteredError struct {
	Coll, Alg string
}

func (e *UnregisteredError) Error() string {
	return fmt.Sprintf("--coll %s=%s: no algorithm %q registered for %s (call mpi.coll.register(%q, %q, fn) before the first %s; built-in: %s)",
		e.Coll, e.Alg, e.Alg, e.Coll, e.Coll, e.Alg, e.Coll, strings.Join(builtinNames(e.Coll), ", "))
}

// CanonColl returns the collective a name selects algorithms for (gatherv ->
// gather), or an error naming the valid collectives.
func CanonColl(coll string) (string, error) {
	c := canonColl(coll)
	if builtinNames(c) == nil {
		return "", unknownCollective(coll)
	}
	return c, nil
}

// RegisterExternal makes fn the algorithm name of collective coll for this
// run, selectable with SetAlgorithm (--coll coll=name) before or after. Every
// rank of a Lua program registers: the first registration of (coll, name)
// defines it and later ones are accepted (the Lua layer keeps each rank's own
// function and finds the caller's). The name must not be a built-in one.
// where, if not "", says where the program registered it (file:line), for
// Externals.
func (w *World) RegisterExternal(coll, name, where string, fn ExternalAlg) error {
	c, err := CanonColl(coll)
	if err != nil {
		return err
	}
	if err := checkExternalName(c, name); err != nil {
		return err
	}
	if fn == nil {
		return fmt.Errorf("no function given for %s algorithm %q", c, name)
	}
	t := w.externals()
	t.mu.Lock() // partitions share the table
	defer t.mu.Unlock()
	if _, ok := t.algs[c+"/"+name]; !ok {
		t.algs[c+"/"+name] = fn
		t.where[c+"/"+name] = Algorithm{Coll: c, Name: name, Where: where}
	}
	return nil
}

// Externals lists the external algorithms registered in this run so far,
// sorted by collective then name, each with where it was first registered.
func (w *World) Externals() []Algorithm {
	t := w.externals()
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Algorithm, 0, len(t.where))
	for _, a := range t.where {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Coll < out[j].Coll || out[i].Coll == out[j].Coll && out[i].Name < out[j].Name
	})
	return out
}

func checkExternalName(coll, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty %s algorithm name", coll)
	case name == "auto" || name == "help":
		return fmt.Errorf("%q is reserved by --coll; name your %s algorithm otherwise", name, coll)
	case strings.ContainsAny(name, ",=: \t\n"):
		return fmt.Errorf("%s algorithm name %q cannot be selected with --coll (no commas, '=', ':' or spaces)", coll, name)
	case lookup(coll, name) != nil:
		return fmt.Errorf("%q is a built-in %s algorithm (built-in: %s); register yours under another name",
			name, coll, strings.Join(builtinNames(coll), ", "))
	}
	return nil
}

// Registered reports whether an external algorithm name is registered for
// collective coll in this run.
func (w *World) Registered(coll, name string) bool {
	t := w.externals()
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.algs[canonColl(coll)+"/"+name]
	return ok
}

// externalChoice returns the algorithm selected for coll if it is not a
// built-in one.
func (c *Comm) externalChoice(coll string) (string, bool) {
	name := c.r.w.algs[coll]
	if name == "" || lookup(coll, name) != nil {
		return "", false
	}
	return name, true
}

// CollView returns a communicator with c's group and a context pair of its
// own, derived from c's, for an external algorithm to communicate on. Every
// rank gets the same contexts for the same c without communicating. The view
// supports every call, collectives included.
func (c *Comm) CollView() *Comm {
	v := *c
	if c.nbc != nil {
		// A nonblocking collective's communicator lives for one call:
		// so does the key of its view's context.
		v.ctx = c.r.takeContext(ctxKey{c.ctx, viewSeq, 0}, c.size)
	} else {
		v.ctx = c.r.context(c.ctx, viewSeq, 0)
	}
	v.seq = 0
	// The view's messages carry the signature of the call it serves;
	// collectives called on the view number their own.
	v.outer, v.cur = c.cur, collSig{}
	v.nbc = nil // collectives on the view are the algorithm's own
	v.Name = c.Name + "/coll"
	c.r.noteComm(&v)
	return &v
}

// viewSeq is the sequence number of the view in a context's key: split
// and dup number theirs from 0.
const viewSeq = -1

// runExternal calls the external algorithm call.Alg for call.Coll on c; the
// entry point has checked the arguments and charged the call.
func (c *Comm) runExternal(call *ExternalCall) error {
	w := c.r.w
	t := w.externals()
	t.mu.Lock()
	fn := t.algs[call.Coll+"/"+call.Alg]
	t.mu.Unlock()
	if fn == nil {
		return &UnregisteredError{Coll: call.Coll, Alg: call.Alg}
	}
	call.Want = c.want(call)
	call.Params = w.params[call.Coll]
	v := c.CollView()
	v.Name = fmt.Sprintf("%s (%s=%s)", c.Name, call.Coll, call.Alg)
	// Splits and dups of the view keep numbering from one call to the next,
	// so that communicators made in different calls get different contexts.
	k := viewKey{rank: c.r.ID, ctx: v.ctx}
	t.mu.Lock() // partitions share the table; each rank has its own keys
	v.seq = t.seqs[k]
	t.mu.Unlock()
	err := fn(v, call)
	if c.nbc != nil {
		c.r.home().forgetComm(v) // its context is not used again
	}
	if v.seq != 0 {
		t.mu.Lock()
		t.seqs[k] = v.seq
		t.mu.Unlock()
	}
	if err != nil {
		return err
	}
	switch call.Want {
	case NoResult:
		call.Result, call.Results = Value{}, nil
	case OneValue:
		call.Results = nil
	case ValuePerRank:
		call.Result = Value{}
		if len(call.Results) != c.size {
			where := ""
			if call.Coll == "gather" {
				where = " at the root"
			}
			return fmt.Errorf("%s algorithm %q returned %d values%s, want %d (one per rank of %s)",
				call.Coll, call.Alg, len(call.Results), where, c.size, c.Name)
		}
	}
	return nil
}

// want is what the built-in collective returns on this rank.
func (c *Comm) want(call *ExternalCall) ResultKind {
	me := c.Rank()
	switch call.Coll {
	case "barrier":
		return NoResult
	case "reduce":
		if me != call.Root {
			return NoResult
		}
	case "gather":
		if me != call.Root {
			return NoResult
		}
		return ValuePerRank
	case "allgather", "alltoall":
		return ValuePerRank
	case "exscan":
		if me == 0 {
			return NoResult
		}
	}
	return OneValue
}

// externalAdapter returns a function of coll's algorithm type that runs the
// external algorithm name, so that dispatch (and algorithms that compose
// others, as allreduce reduce_bcast) treat it as any other.
func externalAdapter(coll, name string) any {
	run := func(c *Comm, call ExternalCall) (ExternalCall, error) {
		call.Coll, call.Alg = coll, name
		err := c.runExternal(&call)
		return call, err
	}
	switch coll {
	case "barrier":
		return barrierAlg(func(c *Comm) error {
			_, err := run(c, ExternalCall{Root: -1})
			return err
		})
	case "bcast":
		return bcastAlg(func(c *Comm, v Value, root int) (Value, error) {
			call, err := run(c, ExternalCall{Value: v, Root: root})
			return call.Result, err
		})
	case "reduce":
		return reduceAlg(func(c *Comm, v Value, op Op, root int) (Value, error) {
			call, err := run(c, ExternalCall{Value: v, Op: op, Root: root})
			return call.Result, err
		})
	case "allreduce":
		return allreduceAlg(func(c *Comm, v Value, op Op) (Value, error) {
			call, err := run(c, ExternalCall{Value: v, Op: op, Root: -1})
			return call.Result, err
		})
	case "gather":
		return gatherAlg(func(c *Comm, v Value, root int) ([]Value, error) {
			call, err := run(c, ExternalCall{Value: v, Root: root})
			return call.Results, err
		})
	case "scatter":
		return scatterAlg(func(c *Comm, vs []Value, root int) (Value, error) {
			call, err := run(c, ExternalCall{Values: vs, Root: root})
			return call.Result, err
		})
	case "allgather":
		return allgatherAlg(func(c *Comm, v Value) ([]Value, error) {
			call, err := run(c, ExternalCall{Value: v, Root: -1})
			return call.Results, err
		})
	case "alltoall":
		return alltoallAlg(func(c *Comm, vs []Value) ([]Value, error) {
			call, err := run(c, ExternalCall{Values: vs, Root: -1})
			return call.Results, err
		})
	case "reduce_scatter":
		return reduceScatterAlg(func(c *Comm, vs []Value, op Op) (Value, error) {
			call, err := run(c, ExternalCall{Values: vs, Op: op, Root: -1})
			return call.Result, err
		})
	case "scan", "exscan":
		return scanAlg(func(c *Comm, v Value, op Op) (Value, error) {
			call, err := run(c, ExternalCall{Value: v, Op: op, Root: -1})
			return call.Result, err
		})
	}
	panic(fmt.Sprintf("mpi: no external adapter for collective %q", coll))
}

// The run's external algorithms live in the World (World.ext), made on
// first use.

type extTable struct {
	algs  map[string]ExternalAlg // "coll/name"
	where map[string]Algorithm   // "coll/name": the first registration
	seqs  map[viewKey]int        // splits and dups made on each rank's view
	mu    sync.Mutex             // algs and seqs (partitions share them)
}

type viewKey struct{ rank, ctx int }

// externals returns w's table, making it on first use.
func (w *World) externals() *extTable {
	if w.parted {
		w.hwcMu.Lock()
		defer w.hwcMu.Unlock()
	}
	if w.ext == nil {
		w.ext = &extTable{algs: map[string]ExternalAlg{}, where: map[string]Algorithm{}, seqs: map[viewKey]int{}}
	}
	return w.ext
}

package luabind

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/bglua/bglua/mpi"
)

// Collective algorithms written in Lua (mpi.coll.register), operators as
// functions (mpi.SUM(a, b)), and cartesian communicators (mpi.cart_create).
//
// mpi.coll.register(name, alg, fn) registers alg in the run's table of
// external algorithms (mpi.World.RegisterExternal) with one Go function for
// all ranks, luaAlg, and keeps fn in the registering rank's own state. When a
// collective selected as alg runs, luaAlg finds the calling rank's state
// through its process, and fn there; a rank that registered nothing under
// that name fails as if nobody had. fn runs on the thread that made the
// collective call (the running thread of the rank's state), so collectives
// called from coroutines work as any binding does.
//
// luaAlg holds nothing of the run (the table of external algorithms must not
// keep the World alive, see mpi.ExternalAlg), so each rank's functions live
// in its own state's registry, with the Host, where luaAlg finds them.

// collStateKey names the rank's registered algorithms in its registry.
const collStateKey = "bglua.coll"

// collState is one rank's Lua algorithms.
type collState struct {
	h     *Host
	funcs map[string]*lua.LFunction // "coll/alg"
}

func collStateOf(L *lua.LState) *collState {
	if ud, ok := L.G.Registry.RawGetString(collStateKey).(*lua.LUserData); ok {
		st, _ := ud.Value.(*collState)
		return st
	}
	return nil
}

// buildColl makes the shared mpi.coll: a userdata, so that no rank can write
// into what all ranks share.
func (h *Host) buildColl() lua.LValue {
	mt := newTable()
	mt.RawSetString("__index", funcTable(map[string]lua.LGFunction{
		"register":  h.bind((*rankCtx).collRegister),
		"algorithm": h.bind((*rankCtx).collAlgorithm),
	}))
	mt.RawSetString("__newindex", gfunc(func(L *lua.LState) int {
		L.RaiseError("mpi.coll is read-only (register algorithms with mpi.coll.register)")
		return 0
	}))
	mt.RawSetString("__tostring", gfunc(func(L *lua.LState) int {
		L.Push(lua.LString("mpi.coll"))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString("mpi.coll"))
	return &lua.LUserData{Env: newTable(), Metatable: mt}
}

// collRegister is mpi.coll.register(name, alg, fn).
func (rk *rankCtx) collRegister(L *lua.LState) int {
	coll := L.CheckString(1)
	name := L.CheckString(2)
	fn, ok := L.Get(3).(*lua.LFunction)
	if !ok {
		L.RaiseError("mpi.coll.register: argument 3 is %s, want the algorithm as a function(comm, ...)", L.Get(3).Type())
	}
	c, err := mpi.CanonColl(coll)
	if err != nil {
		L.RaiseError("mpi.coll.register: %s", err.Error())
	}
	if err := rk.h.W.RegisterExternal(c, name, registeredAt(L), luaAlg); err != nil {
		L.RaiseError("mpi.coll.register: %s", err.Error())
	}
	st := collStateOf(L)
	if st == nil {
		st = &collState{h: rk.h, funcs: map[string]*lua.LFunction{}}
		L.G.Registry.RawSetString(collStateKey, &lua.LUserData{Value: st, Env: newTable(), Metatable: lua.LNil})
	}
	if old, ok := st.funcs[c+"/"+name]; ok && old != fn {
		L.RaiseError("mpi.coll.register: %s algorithm %q is registered already, with another function; register it once, or the new one under another name", c, name)
	}
	st.funcs[c+"/"+name] = fn
	return 0
}

// registeredAt is where the program called the running Go function,
// file:line: the innermost Lua caller outside the shipped stdlib (a
// registration by coll.register_all() is where the program calls it), else
// the innermost ("" if none).
func registeredAt(L *lua.LState) string {
	first := ""
	for level := 1; ; level++ {
		if _, ok := L.GetStack(level); !ok {
			return first
		}
		w := strings.TrimSuffix(L.Where(level), ":")
		switch {
		case w == "" || w == "[G]":
		case !strings.HasPrefix(w, "stdlib/"):
			return w
		case first == "":
			first = w
		}
	}
}

// collAlgorithm is mpi.coll.algorithm(name [, comm]): the algorithm in
// force for the collective ("auto", the one chosen with --coll with its
// parameters, "torus:routes=2", or "bcs" for the bcs runtime's own), and the one that ran this rank's last call of it
// on comm (COMM_WORLD by default; what auto chose, or what a hardware
// algorithm fell back on), nil before the first.
//
// A nonblocking collective's name ("iallreduce") gives the algorithm in
// force for its blocking form, which it runs, and the one its last call ran.
func (rk *rankCtx) collAlgorithm(L *lua.LState) int {
	name := L.CheckString(1)
	c, err := mpi.CanonColl(name)
	last := c
	if b, ok := mpi.BlockingForm(name); err != nil && ok {
		c, last, err = b, "i"+b, nil
	}
	if err != nil {
		L.RaiseError("mpi.coll.algorithm: %s", err.Error())
	}
	comm := rk.r.World
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		comm = rk.checkComm(L, 2, "algorithm")
	}
	L.Push(lua.LString(comm.AlgorithmInForce(c)))
	if ran := comm.LastAlgorithm(last); ran != "" {
		L.Push(lua.LString(ran))
	} else {
		L.Push(lua.LNil)
	}
	return 2
}

// luaAlg is the mpi.ExternalAlg of every Lua algorithm: it calls the calling
// rank's function as fn(comm, args..., params) with the arguments of the
// user's call and a new table of the parameters --coll gave it (empty if
// none), and converts what it returns.
func luaAlg(view *mpi.Comm, call *mpi.ExternalCall) error {
	main, _ := view.Owner().Home().Proc.Data.(*lua.LState)
	if rk, ok := view.Owner().Home().Ext.(*rankCtx); ok && main == nil && view.Owner().IsProgress() {
		main = rk.L // the rank's program has ended; its state stays for this
	}
	var st *collState
	if main != nil {
		st = collStateOf(main)
	}
	var fn *lua.LFunction
	if st != nil {
		fn = st.funcs[call.Coll+"/"+call.Alg]
	}
	if fn == nil {
		return &mpi.UnregisteredError{Coll: call.Coll, Alg: call.Alg}
	}
	L := main.G.CurrentThread
	if L == nil {
		L = main
	}
	if x := view.Owner(); x.IsProgress() {
		// A nonblocking collective's: on its progress context's thread.
		L = st.h.rankOf(main).progressThread(x)
	}
	h := st.h
	top := L.GetTop()
	L.Push(fn)
	L.Push(&lua.LUserData{Value: view, Env: L.Env, Metatable: h.sh.commMT})
	nargs := 1
	arg := func(v lua.LValue) {
		L.Push(v)
		nargs++
	}
	root := lua.LNumber(call.Root)
	switch call.Coll {
	case "barrier":
	case "bcast", "gather":
		arg(Decode(L, call.Value.Data))
		arg(root)
	case "reduce":
		arg(Decode(L, call.Value.Data))
		arg(h.opValue(call.Op))
		arg(root)
	case "allreduce", "scan", "exscan":
		arg(Decode(L, call.Value.Data))
		arg(h.opValue(call.Op))
	case "allgather":
		arg(Decode(L, call.Value.Data))
	case "scatter":
		arg(valuesTable(L, call.Values))
		arg(root)
	case "alltoall":
		arg(valuesTable(L, call.Values))
	case "reduce_scatter":
		arg(valuesTable(L, call.Values))
		arg(h.opValue(call.Op))
	default:
		panic("luabind: no Lua arguments for collective " + call.Coll)
	}
	arg(paramsTable(L, call.Params))
	if err := h.rankOf(main).call(L, nargs, 1); err != nil {
		L.SetTop(top)
		return fmt.Errorf("%s algorithm %q: %v", call.Coll, call.Alg, err)
	}
	ret := L.Get(-1)
	L.SetTop(top)

	switch call.Want {
	case mpi.OneValue:
		if ret == lua.LNil && call.Value.Data != nil && reducesOwnValue(call, view.Rank()) {
			return fmt.Errorf("%s algorithm %q returned nothing for a value that is not nil (a missing return?)", call.Coll, call.Alg)
		}
		p, size, err := Encode(ret)
		if err != nil {
			return fmt.Errorf("%s algorithm %q returned a value that cannot be sent: %v", call.Coll, call.Alg, err)
		}
		call.Result = mpi.Value{Data: p, Size: size}
	case mpi.ValuePerRank:
		t, ok := ret.(*lua.LTable)
		if !ok {
			return fmt.Errorf("%s algorithm %q returned %s, want a table with one value per rank", call.Coll, call.Alg, ret.Type())
		}
		n := count(t)
		if n != view.Size() {
			// Checked before allocating: t.n or a stray key could be huge.
			return fmt.Errorf("%s algorithm %q returned %d values, want %d (one per rank of %s)", call.Coll, call.Alg, n, view.Size(), view.Name)
		}
		vs := make([]mpi.Value, n)
		for k := range vs {
			p, size, err := Encode(t.RawGetInt(k + 1))
			if err != nil {
				return fmt.Errorf("%s algorithm %q returned a value for rank %d that cannot be sent: %v", call.Coll, call.Alg, k, err)
			}
			vs[k] = mpi.Value{Data: p, Size: size}
		}
		call.Results = vs
	}
	return nil
}

// paramsTable is a Lua table of ps: numbers as numbers, others as strings.
func paramsTable(L *lua.LState, ps mpi.Params) *lua.LTable {
	t := L.CreateTable(0, len(ps))
	for _, p := range ps {
		switch v := p.Value.(type) {
		case float64:
			t.RawSetString(p.Name, lua.LNumber(v))
		default:
			t.RawSetString(p.Name, lua.LString(fmt.Sprint(v)))
		}
	}
	return t
}

// reducesOwnValue reports whether the result of call on this rank combines
// the rank's own value, so that nil cannot be the answer for a value that
// is not nil: reductions and scans (exscan past rank 0).
func reducesOwnValue(call *mpi.ExternalCall, rank int) bool {
	switch call.Coll {
	case "allreduce", "reduce", "scan":
		return true
	case "exscan":
		return rank > 0
	}
	return false
}

// count is the number of values in a result table: t.n if set (as
// table.pack sets it), else its largest positive integer key, so that nil
// values at the end count when t.n says so.
func count(t *lua.LTable) int {
	if n, ok := t.RawGetString("n").(lua.LNumber); ok && n >= 0 && n == lua.LNumber(int(n)) {
		return int(n)
	}
	n := t.Len()
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		if f, ok := k.(lua.LNumber); ok && f > lua.LNumber(n) && f == lua.LNumber(int(f)) {
			n = int(f)
		}
	}
	return n
}

// valuesTable is a Lua array of vs, one value per rank (nil for nil), with
// n set to their number so that nils at the end still count (nil for vs
// nil).
func valuesTable(L *lua.LState, vs []mpi.Value) lua.LValue {
	if vs == nil {
		return lua.LNil
	}
	t := L.CreateTable(len(vs), 1)
	for k, v := range vs {
		t.RawSetInt(k+1, Decode(L, v.Data))
	}
	t.RawSetString("n", lua.LNumber(len(vs)))
	return t
}

// opValue is what a Lua algorithm receives for op: the user's function, or
// the shared mpi.SUM... userdata, which Lua code can call (op(a, b)).
func (h *Host) opValue(op mpi.Op) lua.LValue {
	switch o := op.(type) {
	case *userOp:
		return o.fn
	case *mpi.Builtin:
		for _, lib := range h.sh.libs {
			if lib.name == "mpi" {
				if v := lib.table.RawGetString(o.Name()); v != lua.LNil {
					return v
				}
			}
		}
	}
	return &lua.LUserData{Value: op, Env: newTable(), Metatable: h.sh.opMT}
}

// opCall is the __call of operators: mpi.SUM(a, b) returns a + b, elementwise
// on arrays, and charges the CPU as the combining step of a reduction does.
func (rk *rankCtx) opCall(L *lua.LState) int {
	ud := L.CheckUserData(1)
	op, ok := ud.Value.(mpi.Op)
	if !ok {
		L.RaiseError("not an operator")
	}
	name := "mpi." + op.Name()
	var v [2]mpi.Value
	for i := range v {
		p, size, err := Encode(L.Get(2 + i))
		if err != nil {
			L.RaiseError("%s: operand %d: %s", name, i+1, err.Error())
		}
		v[i] = mpi.Value{Data: p, Size: size}
	}
	rk.r.World.Combine(max(mpi.Elements(v[0]), mpi.Elements(v[1])))
	res, err := op.Combine(v[0], v[1])
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	L.Push(Decode(L, res.Data))
	return 1
}

// Cartesian communicators.

const cartTypeName = "mpi.cart"

// cartComm is a communicator with a grid: every method of a communicator,
// plus shift, coords, rank_of and dims.
type cartComm struct {
	c *mpi.Comm
	g *mpi.Cart
}

// buildCart makes the metatable of cartesian communicators from the methods
// of communicators and returns mpi.cart_create and mpi.dims_create.
func (h *Host) buildCart(meth map[string]lua.LGFunction) (cartCreate, dimsCreate lua.LGFunction) {
	all := map[string]lua.LGFunction{}
	for k, f := range meth {
		all[k] = f
	}
	for k, f := range map[string]func(*rankCtx, *lua.LState, *cartComm) int{
		"shift":   (*rankCtx).cartShift,
		"coords":  (*rankCtx).cartCoords,
		"rank_of": (*rankCtx).cartRankOf,
		"dims":    (*rankCtx).cartDims,

		"neighbor_allgather": (*rankCtx).cartNeighborAllgather,
		"neighbor_alltoall":  (*rankCtx).cartNeighborAlltoall,
	} {
		k, f := k, f
		all[k] = func(L *lua.LState) int {
			rk := h.rankOf(L)
			return f(rk, L, checkCart(L, k))
		}
	}
	mt := newTable()
	methods := funcTable(all)
	suggestMPI4py(methods, "cart:", "method")
	mt.RawSetString("__index", methods)
	mt.RawSetString("__tostring", gfunc(func(L *lua.LState) int {
		cc := checkCart(L, "tostring")
		L.Push(lua.LString(fmt.Sprintf("mpi.cart(%s, %s, rank %d of %d)", cc.c.Name, cc.g, cc.c.Rank(), cc.c.Size())))
		return 1
	}))
	mt.RawSetString("__metatable", lua.LString(cartTypeName))
	h.sh.cartMT = mt

	cartCreate = h.bind(func(rk *rankCtx, L *lua.LState) int {
		c := rk.commArg(L, 1, "cart_create")
		dims := intArray(L, 2, "cart_create", "dims")
		var periods []bool
		switch p := L.Get(3).(type) {
		case *lua.LNilType:
		case *lua.LTable:
			n := p.Len()
			if n != len(dims) {
				L.RaiseError("mpi.cart_create: %d periods for %d dims", n, len(dims))
			}
			for i := 1; i <= n; i++ {
				switch v := p.RawGetInt(i).(type) {
				case lua.LBool:
					periods = append(periods, bool(v))
				case lua.LNumber:
					periods = append(periods, v != 0)
				default:
					L.RaiseError("mpi.cart_create: periods[%d] is %s, want true or false", i, v.Type())
				}
			}
		default:
			L.RaiseError("mpi.cart_create: argument 3 is %s, want a table of periods ({true, false, ...})", p.Type())
		}
		d, g, err := mpi.CartCreate(c, dims, periods)
		check(L, "cart_create", err)
		L.Push(&lua.LUserData{Value: &cartComm{c: d, g: g}, Env: L.Env, Metatable: mt})
		return 1
	})
	dimsCreate = func(L *lua.LState) int {
		n := intArg(L, 1, "mpi.dims_create", "nnodes")
		dims := intArray(L, 2, "dims_create", "dims")
		full, err := mpi.DimsCreate(n, dims)
		check(L, "dims_create", err)
		L.Push(intTable(L, full))
		return 1
	}
	return cartCreate, dimsCreate
}

// commArg reads a communicator argument of a module function.
func (rk *rankCtx) commArg(L *lua.LState, i int, fname string) *mpi.Comm {
	if c := rk.commOf(L.Get(i)); c != nil {
		return c
	}
	L.RaiseError("mpi.%s: argument %d is %s, want a communicator (mpi.COMM_WORLD, ...)", fname, i, L.Get(i).Type())
	return nil
}

// commOf is the communicator v holds, nil if it holds none.
func (rk *rankCtx) commOf(v lua.LValue) *mpi.Comm {
	if ud, ok := v.(*lua.LUserData); ok {
		switch c := ud.Value.(type) {
		case *mpi.Comm:
			return c
		case *cartComm:
			return c.c
		case worldComm:
			return rk.r.World
		}
	}
	return nil
}

func checkCart(L *lua.LState, fname string) *cartComm {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		switch c := ud.Value.(type) {
		case *cartComm:
			return c
		case *mpi.Comm:
			L.RaiseError("comm:%s: %s is not a cartesian communicator (make one with mpi.cart_create)", fname, c.Name)
		case worldComm:
			L.RaiseError("comm:%s: COMM_WORLD is not a cartesian communicator (make one with mpi.cart_create)", fname)
		}
	}
	L.RaiseError("cart:%s: called on %s, not a cartesian communicator (make one with mpi.cart_create; use cart:%s(...))", fname, L.Get(1).Type(), fname)
	return nil
}

// intArray reads argument i, an array of integers.
func intArray(L *lua.LState, i int, fname, what string) []int {
	t, ok := L.Get(i).(*lua.LTable)
	if !ok {
		L.RaiseError("mpi.%s: argument %d is %s, want a table of %s", fname, i, L.Get(i).Type(), what)
	}
	n := t.Len()
	out := make([]int, n)
	for k := range out {
		n, bad := toInt(t.RawGetInt(k + 1))
		if bad != "" {
			L.RaiseError("mpi.%s: %s[%d] must be an integer, got %s", fname, what, k+1, bad)
		}
		out[k] = n
	}
	return out
}

func intTable(L *lua.LState, xs []int) *lua.LTable {
	t := L.CreateTable(len(xs), 0)
	for _, x := range xs {
		t.Append(lua.LNumber(x))
	}
	return t
}

// cartShift is cart:shift(dim, disp) -> src, dst: dim counts from 0, as in
// MPI; mpi.PROC_NULL past the edge of a dimension that does not wrap.
func (rk *rankCtx) cartShift(L *lua.LState, cc *cartComm) int {
	src, dst, err := cc.g.Shift(cc.c.Rank(), intArg(L, 2, "cart:shift", "dim"), optIntArg(L, 3, 1, "cart:shift", "disp"))
	if err != nil {
		L.RaiseError("cart:shift: %s", err.Error())
	}
	L.Push(lua.LNumber(src))
	L.Push(lua.LNumber(dst))
	return 2
}

// cartCoords is cart:coords([rank]) -> {c0, c1, ...} (0-based coordinates).
func (rk *rankCtx) cartCoords(L *lua.LState, cc *cartComm) int {
	c, err := cc.g.Coords(optIntArg(L, 2, cc.c.Rank(), "cart:coords", "rank"))
	if err != nil {
		L.RaiseError("cart:coords: %s", err.Error())
	}
	L.Push(intTable(L, c))
	return 1
}

// cartRankOf is cart:rank_of({c0, c1, ...}) -> rank.
func (rk *rankCtx) cartRankOf(L *lua.LState, cc *cartComm) int {
	t, ok := L.Get(2).(*lua.LTable)
	if !ok {
		L.RaiseError("cart:rank_of: argument is %s, want a table of coordinates", L.Get(2).Type())
	}
	cs := make([]int, t.Len())
	for k := range cs {
		n, bad := toInt(t.RawGetInt(k + 1))
		if bad != "" {
			L.RaiseError("cart:rank_of: coordinate %d must be an integer, got %s", k+1, bad)
		}
		cs[k] = n
	}
	r, err := cc.g.Rank(cs)
	if err != nil {
		L.RaiseError("cart:rank_of: %s", err.Error())
	}
	L.Push(lua.LNumber(r))
	return 1
}

// cartDims is cart:dims() -> {extents}, {periods} (MPI_Cart_get).
func (rk *rankCtx) cartDims(L *lua.LState, cc *cartComm) int {
	L.Push(intTable(L, cc.g.Dims()))
	ps := cc.g.Periods()
	t := L.CreateTable(len(ps), 0)
	for _, p := range ps {
		t.Append(lua.LBool(p))
	}
	L.Push(t)
	return 2
}

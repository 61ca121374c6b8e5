package luabind

import (
	"fmt"
	"io/fs"
	"regexp"

	lua "github.com/yuin/gopher-lua"
)

// Regression suites. A suite file either returns a list of cases, tables
// with a name and a run function, or declares them busted-style with
// describe(name, fn) and it(name, [fields,] fn). Every case runs as its own
// simulation: each rank loads the suite file and calls the run function of
// the chosen case.

// CaseList is what a suite file declares, read in one rank's state.
type CaseList struct {
	Table *lua.LTable // the cases: each a table with name, run and fields
}

// installSuite defines describe, it, pending and the hooks (stdlib's
// describe.lua) for a suite file, and returns the list that it fills. Were
// describe.lua not to load, they would raise that error when called, and
// suites that return their cases would still run.
func (h *Host) installSuite(L *lua.LState) *lua.LTable {
	declared := L.NewTable()
	err := func() error {
		proto, err := h.stdlibModule("describe")
		if err != nil {
			return err
		}
		L.Push(L.NewFunctionFromProto(proto))
		if err := L.PCall(0, 1, nil); err != nil {
			return err
		}
		L.Push(declared)
		if err := L.PCall(1, 1, nil); err != nil {
			return err
		}
		fns, ok := L.Get(-1).(*lua.LTable)
		L.Pop(1)
		if !ok {
			return fmt.Errorf("stdlib/describe.lua: want a table of functions")
		}
		fns.ForEach(func(k, v lua.LValue) { L.G.Global.RawSet(k, v) })
		return nil
	}()
	if err != nil {
		fail := L.NewFunction(func(L *lua.LState) int {
			L.RaiseError("the suite functions did not load: %v", err)
			return 0
		})
		for _, name := range []string{"describe", "it", "pending", "setup", "teardown", "before_each", "after_each", "finally"} {
			L.G.Global.RawSetString(name, fail)
		}
	}
	return declared
}

// stdlibModule compiles a module of the stdlib itself, which a file of the
// same name beside the program cannot replace: the suite functions and
// matchers are bglua's.
func (h *Host) stdlibModule(name string) (*lua.FunctionProto, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	key := "\x00stdlib/" + name
	if p, ok := h.mods[key]; ok {
		return p, nil
	}
	if h.opt.Stdlib == nil {
		return nil, fmt.Errorf("no stdlib to load %s.lua from", name)
	}
	src, err := fs.ReadFile(h.opt.Stdlib, name+".lua")
	if err != nil {
		return nil, err
	}
	p, err := compile("stdlib/"+name+".lua", src)
	if err != nil {
		return nil, err
	}
	h.mods[key] = p
	return p, nil
}

// installExpect compiles the stdlib's expect matchers into L's global expect.
func (h *Host) installExpect(L *lua.LState) error {
	proto, err := h.stdlibModule("expect")
	if err != nil {
		return err
	}
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 1, nil); err != nil {
		return err
	}
	L.G.Global.RawSetString("expect", L.Get(-1))
	L.Pop(1)
	return nil
}

// suiteCases runs a suite chunk (already on the stack as a function) and
// returns its cases: the list it returns, or the ones declared with it().
func suiteCases(L *lua.LState, name string, declared *lua.LTable) (*lua.LTable, error) {
	if err := L.PCall(0, 1, nil); err != nil {
		return nil, err
	}
	ret := L.Get(-1)
	L.Pop(1)
	if t, ok := ret.(*lua.LTable); ok {
		return t, nil
	}
	if ret == lua.LNil && declared.Len() > 0 {
		return declared, nil
	}
	return nil, fmt.Errorf("%s: a suite must return a list of cases (or declare them with describe/it), got %s", name, ret.Type())
}

// Case is one case of a suite as the runner sees it: its name, its run
// flags (any field other than name, run, fails and deadlocks) and what it
// expects.
type Case struct {
	Name      string
	Fields    map[string]any // string, float64, bool, or map[string]string / []string for tables
	Fails     string         // a Lua pattern the run's error must match
	Deadlocks bool
	// Pending is a case declared without a run function (it(name),
	// pending(name)) or with pending = true or a reason: it is skipped.
	Pending string
}

// LoadSuite reads the cases of a suite file without simulating anything:
// the file runs once in a sandboxed state with no mpi.
func LoadSuite(name string, src []byte, stdlib fs.FS) ([]Case, error) {
	prog, err := Compile(name, "", src)
	if err != nil {
		return nil, err
	}
	h := &Host{opt: Options{Program: prog, Stdlib: stdlib}, mods: map[string]*lua.FunctionProto{}}
	L := lua.NewState(stateOptions)
	defer L.Close()
	sh := newShared()
	g := L.G.Global
	for _, nv := range sh.base {
		g.RawSetString(nv.name, nv.value)
	}
	for _, lib := range sh.libs {
		g.RawSetString(lib.name, &lua.LTable{Metatable: lib.proxy})
	}
	// error blames the level Lua 5.1 names, as in a rank: a suite
	// function's misuse is reported at the suite's line.
	g.RawSetString("error", L.NewFunction(luaError))
	L.Env = g
	declared := h.installSuite(L)
	guardHooks(L, g)
	if err := h.installExpect(L); err != nil {
		return nil, err
	}
	L.Push(L.NewFunctionFromProto(prog.Proto))
	t, err := suiteCases(L, name, declared)
	if err != nil {
		return nil, err
	}
	var cases []Case
	for i := 1; i <= t.Len(); i++ {
		c, err := readCase(name, i, t.RawGetInt(i))
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: the suite has no cases", name)
	}
	return cases, nil
}

// hookLike matches the names of hooks in the test frameworks people come
// from (before_all, afterEach, lazy_setup...), and their misspellings.
var hookLike = regexp.MustCompile(`^(before|after)[_A-Z]|(setup|teardown|_each|_all|Each|All)$`)

// guardHooks makes reading an undefined global g that looks like a hook an
// error that names it, rather than "attempt to call a non-function
// object". Only the state that reads a suite's cases has it: hooks are
// called as the file loads, which it does there first.
func guardHooks(L *lua.LState, g *lua.LTable) {
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		if name, ok := L.Get(2).(lua.LString); ok && hookLike.MatchString(string(name)) {
			L.RaiseError("%s is not a bglua suite function (hooks: setup, teardown, before_each, after_each, finally)", name)
		}
		L.Push(lua.LNil)
		return 1
	}))
	L.SetMetatable(g, mt)
}

func readCase(file string, i int, v lua.LValue) (Case, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return Case{}, fmt.Errorf("%s: case %d is %s, not a table", file, i, v.Type())
	}
	c := Case{Name: fmt.Sprintf("case %d", i), Fields: map[string]any{}}
	if n, ok := t.RawGetString("name").(lua.LString); ok {
		c.Name = string(n)
	}
	switch p := t.RawGetString("pending").(type) {
	case lua.LString:
		c.Pending = string(p)
	case lua.LBool:
		if p {
			c.Pending = "pending"
		}
	case *lua.LNilType:
	default:
		return Case{}, fmt.Errorf("%s: case %q: field pending: want true or a reason, got %s", file, c.Name, p.Type())
	}
	if _, ok := t.RawGetString("run").(*lua.LFunction); !ok && c.Pending == "" {
		return Case{}, fmt.Errorf("%s: case %q has no run function", file, c.Name)
	}
	var bad error
	t.ForEach(func(k, v lua.LValue) {
		ks, ok := k.(lua.LString)
		if !ok {
			if bad == nil {
				bad = fmt.Errorf("%s: case %q: field %v: fields are named by strings", file, c.Name, k)
			}
			return
		}
		switch key := string(ks); key {
		case "name", "run", "pending":
		case "fails":
			if _, ok := v.(lua.LString); !ok && bad == nil {
				bad = fmt.Errorf("%s: case %q: field fails: want a Lua pattern of the error, got %s", file, c.Name, v.Type())
			}
			c.Fails = lua.LVAsString(v)
		case "deadlocks":
			if _, ok := v.(lua.LBool); !ok && bad == nil {
				// deadlocks = "no" would have been true.
				bad = fmt.Errorf("%s: case %q: field deadlocks: want true or false, got %s", file, c.Name, v.Type())
			}
			c.Deadlocks = lua.LVAsBool(v)
		default:
			switch x := v.(type) {
			case lua.LString:
				c.Fields[key] = string(x)
			case lua.LNumber:
				c.Fields[key] = float64(x)
			case lua.LBool:
				c.Fields[key] = bool(x)
			case *lua.LTable:
				c.Fields[key] = tableField(x)
			default:
				if bad == nil {
					bad = fmt.Errorf("%s: case %q: field %s cannot be %s", file, c.Name, key, v.Type())
				}
			}
		}
	})
	return c, bad
}

// tableField turns a table field (coll = {bcast = "tree"}, args = {"a"})
// into a map or a list of strings.
func tableField(t *lua.LTable) any {
	if n := t.Len(); n > 0 {
		l := make([]string, n)
		for i := range l {
			l[i] = lua.LVAsString(t.RawGetInt(i + 1))
		}
		return l
	}
	m := map[string]string{}
	t.ForEach(func(k, v lua.LValue) { m[lua.LVAsString(k)] = lua.LVAsString(v) })
	return m
}

package luabind

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	"github.com/bglua/bglua/mpi"
	"github.com/bglua/bglua/observe"
	"github.com/bglua/bglua/runtime"
)

// Program is a Lua chunk compiled once; every rank instantiates the same
// read-only prototype instead of parsing its own copy.
type Program struct {
	Name  string // as given by the user, for messages
	Dir   string // where require looks for the program's own modules ("" for none)
	Proto *lua.FunctionProto
}

// Compile parses and compiles a chunk. Syntax errors read "name:line: what".
func Compile(name, dir string, src []byte) (*Program, error) {
	proto, err := compile(name, src)
	if err != nil {
		return nil, err
	}
	return &Program{Name: name, Dir: dir, Proto: proto}, nil
}

func compile(name string, src []byte) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(strings.NewReader(skipHeader(src)), name)
	if err != nil {
		e := &SyntaxError{Name: name, Err: err, Lines: bytes.Count(src, []byte("\n"))}
		if len(src) > 0 && src[len(src)-1] != '\n' {
			e.Lines++
		}
		switch {
		case bytes.HasPrefix(src, []byte("\x1bLua")):
			e.Binary = "precompiled Lua bytecode, which bglua does not load: give it the source"
		case bytes.IndexByte(src, 0) >= 0:
			e.Binary = "binary data (a NUL byte), not Lua source"
		}
		return nil, e
	}
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		return nil, &SyntaxError{Name: name, Err: err}
	}
	// A chunk is a vararg function, and gopher-lua's Lua 5.0 compatibility
	// gives a vararg function that does not use ... a table of its
	// arguments, arg, at every call. A chunk has no local of that name (only
	// nested functions get one): nothing can see the table, which costs a
	// rank 2.5 KiB for its program and for every module it requires.
	proto.IsVarArg &^= lua.VarArgNeedsArg
	sizeTables(proto)
	return proto, nil
}

// skipHeader drops what Lua skips at the start of a file (lauxlib.c,
// luaL_loadfile): a UTF-8 byte order mark, then a first line that starts
// with '#' (#!/usr/bin/env bglua). The line's newline stays, so that line
// numbers do not change.
func skipHeader(src []byte) string {
	s := strings.TrimPrefix(string(src), "\xEF\xBB\xBF")
	if strings.HasPrefix(s, "#") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			return s[i:]
		}
		return ""
	}
	return s
}

// gopher-lua's instruction layout: opcode (6 bits), A (8), C (9), B (9).
const (
	opShift, aShift, cShift = 26, 18, 9
	aMask, cMask            = 0xff, 0x1ff
)

// sizeTables gives every empty table constructor ({}) of p and its nested
// functions whose table then gets fields by name (t.name = v, function
// t.name() end) the number of such fields as its size. gopher-lua makes an
// empty table's map of string keys for 32 entries (2 KiB, cleared) at its
// first key, but a sized one at its size: a module's table of three
// functions, made once a rank, takes a map of one group of 8 instead. The
// count is that of the assignments by name to the same register further on
// in the function, up to 32 (what the first name would have got): a
// register used again for another value may give a table a map it never
// fills.
func sizeTables(p *lua.FunctionProto) {
	code := p.Code
	for pc, inst := range code {
		if int(inst>>opShift) != lua.OP_NEWTABLE || inst>>cShift&cMask != 0 {
			continue
		}
		a, n := inst>>aShift&aMask, uint32(0)
		for _, next := range code[pc+1:] {
			op := int(next >> opShift)
			if next>>aShift&aMask != a {
				continue
			}
			if op == lua.OP_NEWTABLE || n == 32 {
				break
			}
			if op == lua.OP_SETTABLEKS {
				n++
			}
		}
		code[pc] = inst | n<<cShift
	}
	for _, f := range p.FunctionPrototypes {
		sizeTables(f)
	}
}

// SyntaxError is a program or module that does not compile.
type SyntaxError struct {
	Name string
	Err  error
	// Lines is the number of lines of the source (0: unknown), the line of
	// an error at its end; Binary, if set, says the file is not Lua source.
	Lines  int
	Binary string
}

func (e *SyntaxError) Error() string {
	if e.Binary != "" {
		return fmt.Sprintf("%s: %s", e.Name, e.Binary)
	}
	msg := e.Err.Error()
	if strings.Contains(msg, " at EOF:") {
		where := e.Name
		if e.Lines > 0 {
			where = fmt.Sprintf("%s:%d", e.Name, e.Lines)
		}
		return fmt.Sprintf("%s: syntax error: unexpected end of file (an unclosed block, string or bracket?)", where)
	}
	// gopher-lua writes "name line:N(column:M) near 'x': msg"; shorten to file:line.
	if i := strings.Index(msg, " line:"); i >= 0 {
		rest := msg[i+len(" line:"):]
		j := strings.IndexAny(rest, "(")
		if j > 0 {
			line := rest[:j]
			tail := rest[j:]
			if k := strings.Index(tail, ")"); k >= 0 {
				tail = tail[k+1:]
			}
			// " near 'x':   syntax error" -> "syntax error near 'x'"
			tail = strings.TrimSpace(tail)
			what := "syntax error"
			if k := strings.LastIndex(tail, ":"); k >= 0 {
				if w := strings.TrimSpace(tail[k+1:]); w != "" {
					what = w
				}
				tail = strings.TrimSpace(tail[:k])
			}
			if tail != "" {
				what += " " + tail
			}
			return fmt.Sprintf("%s:%s: %s", e.Name, line, what)
		}
	}
	return fmt.Sprintf("%s: %s", e.Name, strings.TrimSpace(msg))
}

// Options configure the Lua side of a run.
type Options struct {
	Program *Program
	Args    []string
	Seed    int64
	// Trace, if set, receives a slice for every mpi and ml call.
	Trace *observe.Tracer
	// Stats counts every call of an mpi or ml function (see Host.Stats).
	Stats bool
	// MDS keeps every rank's own statistics and the distributions of its
	// computation and communication times (see Host.MDS, bcs.stats()).
	MDS bool
	// Case, if positive, makes the program a regression suite: every rank
	// runs the run function of the suite's Case-th case (1-based).
	Case int
	// Mode is the node mode: "co", "vn" or "heater".
	Mode string
	// Prefix print output with the rank ("[3] ").
	Prefix bool
	// Stdlib holds the shipped Lua modules (*.lua at its root).
	Stdlib fs.FS
	// ReadFile reads a module from the program's directory; nil disables it.
	ReadFile func(name string) ([]byte, error)
	// GoModules are modules an embedder adds; require returns what the
	// function returns. LuaModules are modules given as source.
	GoModules  map[string]lua.LGFunction
	LuaModules map[string]string
	// Guard, if set, can stop the ranks' Lua between instructions and
	// bounds the values they build.
	Guard *Guard
}

// Host runs the Lua side of every rank of one run.
type Host struct {
	opt Options
	W   *mpi.World
	Out *observe.Printer

	sh                                 *shared
	print, require, random, randomseed *lua.LFunction

	stats       map[string][]observe.PrimitiveStat   // per primitive, per partition
	nested      []map[statKey]*observe.PrimitiveStat // per partition: rows by algorithm (stats.go)
	regions     []map[string]*observe.PrimitiveStat  // per partition: trace regions by name (regions.go)
	mds         []observe.RankMDS
	cyclesPerUS float64

	// Ends says how each rank ended, once the run is over.
	Ends []RankEnd

	mu   sync.Mutex
	mods map[string]*lua.FunctionProto // compiled modules, shared by all ranks

	ut *unitHost // the thread units' side (ml_units.go); nil on machines without

	pre *preparer // states made ahead of the ranks' start (Prepare); nil if none

	// AllStarted, if set, is called once, when the last rank's program
	// begins (on that rank's partition's thread).
	AllStarted func()
	begun      atomic.Int64

	// free holds, per partition, the states of ranks whose programs are
	// over and which nothing calls again, for the next ranks that start
	// on the partition (recycle).
	free [][]*lua.LState
}

// freeMax is the most finished ranks' states a partition keeps for reuse:
// ranks that end as others start need one or two; beyond that a state is
// better left to the collector.
var freeMax = 16

// A preparer makes the states of ranks [0, n) in rank order, ahead of their
// start, on a goroutine of its own (Host.Prepare).
type preparer struct {
	mu     sync.Mutex
	cond   sync.Cond
	made   int // ranks [0, made) have their state in states
	states []*lua.LState
	stop   bool
}

// Prepare makes the Lua states of ranks 0..n-1 (lua.NewState and the rank's
// bindings) on a goroutine of its own, in rank order, while the run starts
// the ranks in that same order on another: a run in one partition then
// spends a second core on what every rank pays before its program runs.
// done is called on that goroutine once it has made them all or stop was
// called; stop returns once the goroutine has ended. A rank that starts
// before its state is made waits for it; one that starts after stop, or
// that Prepare does not cover, makes its own. A state is the same whoever
// makes it, so the run is too.
func (h *Host) Prepare(n int, done func()) (stop func()) {
	pr := &preparer{states: make([]*lua.LState, n)}
	pr.cond.L = &pr.mu
	h.pre = pr
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer done()
		for i := range n {
			pr.mu.Lock()
			stopped := pr.stop
			pr.mu.Unlock()
			if stopped {
				return
			}
			L := h.newState(h.W.Rank(i))
			pr.mu.Lock()
			pr.states[i], pr.made = L, i+1
			pr.cond.Broadcast()
			pr.mu.Unlock()
		}
	}()
	return func() {
		pr.mu.Lock()
		pr.stop = true
		pr.cond.Broadcast()
		pr.mu.Unlock()
		<-ended
	}
}

// state is rank's Lua state with its bindings installed: made by Prepare,
// or now.
func (h *Host) state(rank int, r *mpi.Rank) *lua.LState {
	if pr := h.pre; pr != nil && rank < len(pr.states) {
		pr.mu.Lock()
		for pr.made <= rank && !pr.stop {
			pr.cond.Wait()
		}
		L := pr.states[rank]
		pr.states[rank] = nil
		pr.mu.Unlock()
		if L != nil {
			return L
		}
	}
	if f := h.free[r.Part()]; len(f) > 0 {
		L := f[len(f)-1]
		f[len(f)-1] = nil
		h.free[r.Part()] = f[:len(f)-1]
		h.install(L, r)
		return L
	}
	return h.newState(r)
}

// recycle keeps the state of a rank whose program has returned, and whose
// handlers no thread unit can run any more, for the next rank that starts
// on its partition: a new gopher-lua state costs more than the rank's own
// bindings (its global and registry tables, which install replaces at
// once, are two thirds of it), and a rank that only starts and ends, as
// most do in a ping-pong, costs little else. What a program sees of its
// state is what install puts there: its globals, registry, string
// metatable and the bindings' own state (rankCtx); the rest (the value and
// call stacks, an allocator of numbers) is the same for every program.
func (h *Host) recycle(L *lua.LState, r *mpi.Rank) {
	f := h.free[r.Part()]
	if len(f) >= freeMax {
		L.Close()
		return
	}
	L.SetTop(0)
	// Nothing of the rank that ended stays reachable from its state.
	L.G.Global, L.G.Registry = h.sh.empty, h.sh.empty
	L.Env = h.sh.empty
	h.free[r.Part()] = append(f, L)
}

// newState is a new Lua state with rank r's bindings installed.
func (h *Host) newState(r *mpi.Rank) *lua.LState {
	L := lua.NewState(stateOptions)
	h.install(L, r)
	return L
}

// NewHost prepares the Lua side of a run over w.
func NewHost(opt Options, w *mpi.World, out *observe.Printer) *Host {
	h := &Host{opt: opt, W: w, Out: out, Ends: make([]RankEnd, w.Size()), mods: map[string]*lua.FunctionProto{},
		free: make([][]*lua.LState, w.Partitions())}
	h.cyclesPerUS = w.Machine().ClockHz / 1e6
	if opt.MDS {
		h.mds = make([]observe.RankMDS, w.Size())
		for i := range h.mds {
			h.mds[i].Rank = i
		}
	}
	h.buildShared()
	h.followContexts()
	h.armGuard()
	return h
}

// RankState is how a rank's program ended.
type RankState uint8

const (
	NotStarted RankState = iota // the run ended before the rank ran
	Done                        // the program returned
	Failed                      // it raised an error it did not catch
	Aborted                     // it called mpi.abort
	Stopped                     // another rank ended the run while it waited
)

var rankStateNames = [...]string{"not started", "done", "failed", "aborted", "stopped"}

func (s RankState) String() string { return rankStateNames[s] }

// RankEnd is how and when (virtual cycles) a rank ended.
type RankEnd struct {
	State RankState
	Time  runtime.Time
}

// RankError is a Lua error raised and not caught on a rank.
type RankError struct {
	Rank      int
	Time      runtime.Time
	Seconds   float64
	Msg       string
	Traceback string
}

func (e *RankError) Error() string {
	return fmt.Sprintf("rank %d at t=%s: %s", e.Rank, FormatSeconds(e.Seconds), e.Msg)
}

// AbortError is a call of mpi.abort.
type AbortError struct {
	Rank    int
	Seconds float64
	Msg     string
	Code    int
	Where   string
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("rank %d called mpi.abort at t=%s (%s): %s (code %d)", e.Rank, FormatSeconds(e.Seconds), e.Where, e.Msg, e.Code)
}

// FormatSeconds prints a virtual time with a unit that suits it.
func FormatSeconds(s float64) string {
	switch {
	case s == 0:
		return "0s"
	case s < 1e-6:
		return fmt.Sprintf("%.3gns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.4gus", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.4gms", s*1e3)
	}
	return fmt.Sprintf("%.4gs", s)
}

// Body is the process body of every rank: open its state, run the program,
// and report an uncaught error as the end of the run. The state hangs on the
// process (p.Data) while the rank runs.
func (h *Host) Body(p *runtime.Proc) {
	r := h.W.Rank(p.ID)
	L := h.state(p.ID, r)
	p.Data = L
	if h.AllStarted != nil && h.begun.Add(1) == int64(h.W.Size()) {
		h.AllStarted()
	}
	defer func() {
		if h.Ends[p.ID].State == Done {
			r.Finish()
		}
		if h.Ends[p.ID].State == NotStarted {
			h.Ends[p.ID] = RankEnd{State: Stopped, Time: p.Now()}
		}
		if h.mds != nil {
			h.mds[p.ID].Finish(p.Now(), h.cyclesPerUS)
		}
		p.Data = nil // a finished rank's state must not outlive it...
		switch {
		case h.keepState(p.ID): // ...unless thread units may still run its handlers
		case r.PendingCollectives() > 0: // ...or its nonblocking collectives Lua code
		case h.Ends[p.ID].State == Done:
			h.recycle(L, r) // ...but it may serve the next rank
		default:
			L.Close()
		}
	}()
	fn := L.NewFunctionFromProto(h.opt.Program.Proto)
	args := h.opt.Args
	if h.opt.Case > 0 {
		var err error
		if fn, err = h.caseFunction(L, fn); err != nil {
			h.fail(p, err)
			return
		}
		args = nil
	}
	L.Push(fn)
	for _, a := range args {
		L.Push(lua.LString(a))
	}
	if err := L.PCall(len(args), 0, nil); err != nil {
		h.fail(p, err)
		return
	}
	if err := h.rankOf(L).openRegionError(); err != nil {
		h.fail(p, err)
		return
	}
	h.Ends[p.ID] = RankEnd{State: Done, Time: p.Now()}
}

// caseFunction runs a suite chunk and returns the run function of the case
// chosen by Options.Case.
func (h *Host) caseFunction(L *lua.LState, chunk *lua.LFunction) (*lua.LFunction, error) {
	declared := h.installSuite(L)
	if err := h.installExpect(L); err != nil {
		return nil, err
	}
	L.Push(chunk)
	t, err := suiteCases(L, h.opt.Program.Name, declared)
	if err != nil {
		return nil, err
	}
	if c, ok := t.RawGetInt(h.opt.Case).(*lua.LTable); ok {
		if run, ok := c.RawGetString("run").(*lua.LFunction); ok {
			return run, nil
		}
	}
	return nil, fmt.Errorf("%s: no case %d with a run function", h.opt.Program.Name, h.opt.Case)
}

// fail ends the run with the uncaught error of rank p.
func (h *Host) fail(p *runtime.Proc, err error) {
	if g := h.opt.Guard; g.Stopped() {
		// Whatever the rank raised since, it was stopped from outside: it
		// was running, maybe in a Go function (its line is then unknown).
		g.ran(p.ID)
		h.Ends[p.ID] = RankEnd{State: Stopped, Time: p.Now()}
		p.Engine().Stop(g.Cause())
		return
	}
	h.Ends[p.ID] = RankEnd{State: Failed, Time: p.Now()}
	e := &RankError{Rank: p.ID, Time: p.Now(), Seconds: h.W.Machine().Seconds(p.Now()), Msg: err.Error()}
	if ae, ok := err.(*lua.ApiError); ok {
		e.Msg = ErrorObjectString(ae.Object)
		e.Traceback = ae.StackTrace
	}
	p.Engine().Stop(e)
}

// ErrorObjectString is what a report says of the value a Lua error raised:
// a string or number as it is, anything else by its type as lua.c does
// ("(error object is a table value)"), not the table's address.
func ErrorObjectString(v lua.LValue) string {
	switch v.Type() {
	case lua.LTString, lua.LTNumber:
		return lua.LVAsString(v)
	}
	return fmt.Sprintf("(error object is a %s value)", v.Type())
}

// Where is the Lua file:line a parked rank is at ("" if it has no state).
func (h *Host) Where(rank int) string {
	r := h.W.Rank(rank)
	if r == nil {
		return ""
	}
	L, _ := r.Proc.Data.(*lua.LState)
	if L == nil {
		return ""
	}
	return h.where(h.rankOf(L).pcalls.innermost(L))
}

// where finds the innermost Lua (not Go) frame of L, and if it has none
// and runs a pcall, of the state that called the pcall.
func (h *Host) where(L *lua.LState) string {
	ps := h.rankOf(L).pcalls
	for ; L != nil; L = ps.caller(L) {
		for i := 0; ; i++ {
			dbg, ok := L.GetStack(i)
			if !ok {
				break
			}
			if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
				continue
			}
			if dbg.CurrentLine > 0 {
				return fmt.Sprintf("%s:%d", dbg.Source, dbg.CurrentLine)
			}
		}
	}
	return ""
}

// module compiles (once for all ranks) the Lua module name, from the
// embedder, the program's directory or the stdlib, in that order.
func (h *Host) module(name string) (*lua.FunctionProto, string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p, ok := h.mods[name]; ok {
		return p, "", nil
	}
	file := strings.ReplaceAll(name, ".", "/") + ".lua"
	var src []byte
	var from string
	if s, ok := h.opt.LuaModules[name]; ok {
		src, from = []byte(s), name
	} else if b, err := h.readLocal(file); err == nil {
		src, from = b, path.Join(h.opt.Program.Dir, file)
	} else if h.opt.Stdlib != nil {
		if b, err := fs.ReadFile(h.opt.Stdlib, file); err == nil {
			src, from = b, "stdlib/"+file
		}
	}
	if src == nil {
		where := "the program's directory"
		if h.opt.Program.Dir == "" {
			where = "no program directory"
		}
		return nil, "", fmt.Errorf("module '%s' not found (looked for %s in %s and in the stdlib)", name, file, where)
	}
	p, err := compile(from, src)
	if err != nil {
		return nil, "", err
	}
	h.mods[name] = p
	return p, from, nil
}

func (h *Host) readLocal(file string) ([]byte, error) {
	if h.opt.ReadFile == nil || h.opt.Program.Dir == "" || strings.Contains(file, "..") || path.IsAbs(file) {
		return nil, fs.ErrNotExist
	}
	return h.opt.ReadFile(path.Join(h.opt.Program.Dir, file))
}

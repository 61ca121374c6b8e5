package luabind

import (
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
)

// runOn runs src on a 3x1x1 torus of m, one rank per node, and returns what
// the ranks printed and the error that ended the run. Ranks 0 and 2 are
// both one hop from rank 1.
func runOn(t *testing.T, m *hw.Machine, src string) (string, error) {
	t.Helper()
	return runOnTorus(t, m, hw.Torus{Dims: hw.Dims{X: 3, Y: 1, Z: 1}}, 3, src)
}

// unitsMachine is bgc (1 us per handler) with comm communication and worker
// worker units per node.
func unitsMachine(comm, worker int) *hw.Machine {
	m := hw.BGC()
	m.CommThreads, m.WorkerThreads = comm, worker
	return m
}

func TestThreadUnits(t *testing.T) {
	// Two messages from ranks 0 and 2 reach rank 1 together; each handler
	// records its unit's clock (its start plus the 1 us dispatch).
	const twoMessages = `
		local got = {}
		ml.register("h", function(src, v, info) got[#got + 1] = { mpi.cycles(), info.unit, info.category } end)
		if mpi.rank() ~= 1 then ml.send(1, "h", 0) return end
		ml.wait(function() return #got == 2 end)
		print(got[2][1] - got[1][1], got[1][2], got[2][2], got[1][3], mpi.cycles() - got[2][1])`
	// Two micro-tasks posted at once.
	const twoTasks = `
		if mpi.rank() ~= 0 then return end
		local t = {}
		for i = 1, 2 do ml.task(function() t[i] = mpi.cycles() end, "comm") end
		ml.wait(function() return #t == 2 end)
		print(t[1], t[2])`
	// Three worker tasks of 5 us each: the handler's clock starts after the
	// dispatch; mpi.compute advances the unit's clock, not the rank's.
	const workers = `
		if mpi.rank() ~= 0 then return end
		local ends = {}
		for i = 1, 3 do
			ml.task(function()
				local t0 = mpi.wtime()
				mpi.compute(5e-6)
				ends[i] = string.format("%.0f+%.0f", t0 * 1e9, (mpi.wtime() - t0) * 1e9)
			end)
		end
		ml.wait(function() return #ends == 3 end)
		print(table.concat(ends, " "), mpi.cycles())`
	// The rank's program returns at once; the handlers still run in its
	// state and answer.
	const afterReturn = `
		local me = mpi.rank()
		if me == 1 then
			ml.register("ping", function(src, v) ml.send(src, "pong", v + 1) end)
			return
		end
		if me ~= 0 then return end
		local got
		ml.register("pong", function(src, v) got = v end)
		mpi.compute(10e-6)
		ml.send(1, "ping", 41)
		ml.wait(function() return got ~= nil end)
		print(got, mpi.wtime() > 10e-6)`
	// Rank 1 is parked deep in its own frames (a coroutine, pcall, 20
	// levels of recursion, mpi.recv) when its handler runs in its state with
	// a coroutine and a pcall of its own; the rank then carries on where it
	// was.
	const parkedDeep = `
		local me = mpi.rank()
		if me == 1 then
			local hits = 0
			ml.register("h", function(src, v)
				local co = coroutine.wrap(function(a) local b = coroutine.yield(a + 1); return b * 2 end)
				local y = co(co(v))
				-- (no error caught here: gopher-lua closes every open upvalue
				-- when pcall catches one, yuin/gopher-lua#448)
				local ok, e = pcall(function() return "fine" end)
				assert(ok and e == "fine")
				hits = hits + y
				ml.send(0, "ack", hits)
			end)
			local function deep(n)
				if n == 0 then
					local ok, d = pcall(function() return mpi.recv(0) end)
					assert(ok, d)
					return d
				end
				return deep(n - 1) + 1
			end
			local co = coroutine.create(function(a) local r = deep(20); coroutine.yield(r); return a end)
			local ok1, r = coroutine.resume(co, "arg")
			local ok2, a = coroutine.resume(co)
			print(ok1, r, ok2, a, coroutine.status(co), hits)
		elseif me == 0 then
			local got
			ml.register("ack", function(src, v) got = v end)
			ml.send(1, "h", 1)
			ml.wait(function() return got ~= nil end)
			mpi.send(got, 1)
		end`
	// The message comes in while rank 1 waits for rank 2, before its
	// handler is registered: it waits for the registration, then takes a
	// unit's dispatch.
	const lateRegister = `
		local me = mpi.rank()
		if me == 0 then ml.send(1, "late", 7) end
		if me == 2 then mpi.compute(20e-6); mpi.send(0, 1) end
		if me ~= 1 then return end
		mpi.recv(2)
		local t, got = mpi.wtime()
		ml.register("late", function(src, v) got = { v, mpi.wtime() } end)
		ml.wait(function() return got ~= nil end)
		print(got[1], t > 20e-6, string.format("%.3f", (got[2] - t) * 1e6))`
	cases := []struct {
		name string
		m    *hw.Machine
		src  string
		want string
	}{
		{"a message waits for its handler's registration", unitsMachine(2, 2), lateRegister, "[1] 7\ttrue\t1.000\n"},
		{"a handler on the state of a rank parked deep", unitsMachine(2, 2), parkedDeep, "[1] true\t24\ttrue\targ\tdead\t4\n"},
		// 3 cycles apart: the node's CPU copies the second packet's 24
		// bytes after the first's.
		{"two comm units overlap two handlers", unitsMachine(2, 2), twoMessages, "[1] 3\t0\t1\tcomm\t0\n"},
		{"one comm unit runs them 1 us apart", unitsMachine(1, 2), twoMessages, "[1] 1000\t0\t0\tcomm\t0\n"},
		{"two tasks on two comm units", unitsMachine(2, 0), twoTasks, "[0] 1000\t1000\n"},
		{"two tasks on one comm unit", unitsMachine(1, 0), twoTasks, "[0] 1000\t2000\n"},
		{"worker tasks: two workers, the third waits", unitsMachine(1, 2), workers, "[0] 1000+5000 2000+5000 6000+5000\t11000\n"},
		{"worker tasks: no workers, the comm unit runs them", unitsMachine(1, 0), workers, "[0] 1000+5000 7000+5000 13000+5000\t18000\n"},
		{"handlers after the program returned", unitsMachine(2, 2), afterReturn, "[0] 42\ttrue\n"},
		// No thread units: the rank's CPU reads both and its advance loop
		// runs them one after the other (1 us and a 3-cycle copy each).
		{"bgc without units", unitsMachine(0, 0), twoMessages, "[1] 1003\tnil\tnil\tnil\t0\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runOn(t, c.m, c.src)
			if err != nil {
				t.Fatal(err)
			}
			if out != c.want {
				t.Errorf("got %q, want %q", out, c.want)
			}
		})
	}
}

func TestThreadUnitErrors(t *testing.T) {
	// rank 0 sends to rank 1, whose handler does what the case says.
	prog := func(handler string) string {
		return `
			ml.register("h", function(src, v) ` + handler + ` end)
			if mpi.rank() == 0 then ml.send(1, "h", 0) end
			if mpi.rank() == 1 then ml.wait(function() return false end) end`
	}
	cases := []struct {
		name string
		m    *hw.Machine
		src  string
		want string // in the error
	}{
		{"mpi.recv in a handler", unitsMachine(2, 2), prog(`mpi.recv(0)`),
			`rank 1 at t=1.035us: t.lua:2: mpi.recv cannot block inside a handler running on a thread unit`},
		{"ml.wait in a handler", unitsMachine(2, 2), prog(`ml.wait(function() return true end)`),
			`ml.wait cannot block inside a handler running on a thread unit`},
		{"a collective in a handler", unitsMachine(2, 2), prog(`mpi.barrier()`),
			`mpi.barrier cannot block inside a handler running on a thread unit`},
		{"a communicator method in a handler", unitsMachine(2, 2), prog(`mpi.COMM_WORLD:send(1, 0)`),
			`comm:send cannot block inside a handler running on a thread unit`},
		{"an error in a handler names it", unitsMachine(2, 2), prog(`error("boom")`),
			`rank 1 at t=1.035us: t.lua:2: boom (in handler "h" on comm unit 0 of node 1)`},
		{"an error in a task names it", unitsMachine(2, 2), `if mpi.rank() == 2 then ml.task(function() error("bad task") end) end`,
			`rank 2 at t=1us: t.lua:1: bad task (in micro-task on worker unit 2 of node 2)`},
		{"bad send category", unitsMachine(2, 2), `ml.send(1, "h", 0, { category = "gpu" })`,
			`ml.send: opts.category must be "comm", "worker", got "gpu"`},
		{"bad task category", unitsMachine(0, 0), `ml.task(function() end, 3)`,
			`ml.task: category must be "comm", "worker", got a number`},
		{"no handler", unitsMachine(2, 2), `if mpi.rank() == 0 then ml.send(2, "nope", 0) end`,
			`ml: rank 2 has no handler "nope" registered (message from rank 0)`},
		{"no handler by the end of the program", unitsMachine(2, 2), `
			if mpi.rank() == 0 then ml.send(1, "never", 0) end
			if mpi.rank() == 1 then mpi.compute(20e-6); ml.register("other", print) end`,
			`rank 1 at t=20us: ml: rank 1 has no handler "never" registered (message from rank 0)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := runOn(t, c.m, c.src)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

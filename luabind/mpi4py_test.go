package luabind

import (
	"strings"
	"testing"
)

// mpi4py's spellings and conventions where they fit Lua (docs/lua-api.md):
// each case runs on 2 ranks and wants what they print, or an error that
// holds want.
func TestMPI4pyFamiliarity(t *testing.T) {
	cases := []struct {
		name, src, want string
		fails           bool
	}{
		{"testall pending is false alone", `
			if mpi.rank() == 0 then
				local q = mpi.irecv(1)
				print(select("#", mpi.testall({q})), (mpi.testall({q})))
				mpi.send("go", 1)
				mpi.wait(q)
			else
				mpi.recv(0)
				mpi.send("x", 0)
			end`,
			"[0] 1\tfalse\n", false},
		{"testall done gives the data and statuses", `
			local peer = 1 - mpi.rank()
			local reqs = { mpi.irecv(peer, 5), mpi.isend("from " .. mpi.rank(), peer, 5) }
			mpi.barrier()
			local done, data, sts
			repeat done, data, sts = mpi.testall(reqs) until done
			print(done, data[1], sts[1].source, sts[1].tag, data[2], sts[2])`,
			"[0] true\tfrom 1\t1\t5\tnil\tnil\n[1] true\tfrom 0\t0\t5\tnil\tnil\n", false},
		{"testall of none", `
			if mpi.rank() == 0 then local d, a, b = mpi.testall({}); print(d, #a, #b) end`,
			"[0] true\t0\t0\n", false},
		{"sendrecv keywords", `
			local r, n = mpi.rank(), mpi.size()
			local got, st = mpi.sendrecv{data = "from " .. r, dest = (r + 1) % n, source = (r - 1) % n, sendtag = 3, recvtag = 3}
			print(got, st.source, st.tag)`,
			"[0] from 1\t1\t3\n[1] from 0\t0\t3\n", false},
		{"sendrecv keywords: source any, tags default", `
			local r = mpi.rank()
			local got, st = mpi.sendrecv{data = {r, r}, dest = 1 - r}
			print(got[1] + got[2], st.source, st.tag)`,
			"[0] 2\t1\t0\n[1] 0\t0\t0\n", false},
		{"sendrecv keywords: comm", `
			local c = mpi.split(0, -mpi.rank())
			local got = mpi.sendrecv{data = c:rank(), dest = 1 - c:rank(), comm = c}
			local got2 = c:sendrecv{data = c:rank(), dest = 1 - c:rank(), source = 1 - c:rank()}
			print(c:rank(), got, got2)`,
			"[0] 1\t0\t0\n[1] 0\t1\t1\n", false},
		{"sendrecv positional: source any when absent", `
			local r = mpi.rank()
			local got, st = mpi.sendrecv("x" .. r, 1 - r)
			print(got, st.source)`,
			"[0] x1\t1\n[1] x0\t0\n", false},
		{"sendrecv positional: a table with its dest", `
			local r = mpi.rank()
			print(mpi.sendrecv({dest = 5}, 1 - r, 1 - r).dest)`,
			"[0] 5\n[1] 5\n", false},
		{"sendrecv keywords: unknown key", `mpi.sendrecv{data = 1, dest = 0, tag = 2}`,
			`mpi.sendrecv: key "tag" is not one of data, dest, source, sendtag, recvtag, comm`, true},
		{"sendrecv keywords: an array alone", `mpi.sendrecv{1, 2}`,
			"mpi.sendrecv: key [1] is not one of data, dest, source, sendtag, recvtag, comm", true},
		{"sendrecv keywords: no dest", `mpi.sendrecv{data = 1}`, "mpi.sendrecv: the keyword form needs dest", true},
		{"sendrecv keywords: bad comm", `mpi.sendrecv{data = 1, dest = 0, comm = 3}`,
			"mpi.sendrecv: comm is number, want a communicator", true},
		{"sendrecv keywords: comm twice", `mpi.COMM_WORLD:sendrecv{data = 1, dest = 0, comm = mpi.COMM_WORLD}`,
			"comm:sendrecv{...} takes its communicator from comm:", true},
		{"sendrecv keywords: bad sendtag", `mpi.sendrecv{data = 1, dest = 0, sendtag = -1}`,
			"mpi.sendrecv: sendtag must be 0 or more", true},
		{"mpi.Get_rank", `print(mpi.Get_rank())`, "t.lua:1: mpi.Get_rank is not a bglua function; use mpi.rank()", true},
		{"mpi.Allreduce", `mpi.Allreduce(1)`, "mpi.Allreduce is not a bglua function; use mpi.allreduce()", true},
		{"mpi.Barrier", `mpi.Barrier()`, "use mpi.barrier()", true},
		{"mpi.Wtime", `mpi.Wtime()`, "use mpi.wtime()", true},
		{"comm:Get_size", `mpi.COMM_WORLD:Get_size()`, "comm:Get_size is not a bglua method; use comm:size()", true},
		{"comm:Split", `mpi.COMM_WORLD:Split(0)`, "comm:Split is not a bglua method; use comm:split()", true},
		{"comm:Dup of a split", `mpi.split(0):Dup()`, "use comm:dup()", true},
		{"comm:Clone", `mpi.COMM_WORLD:Clone()`, "use comm:dup()", true},
		{"comm.Bcast", `mpi.COMM_WORLD.Bcast(1)`, "comm:Bcast is not a bglua method; use comm:bcast()", true},
		{"comm:Send", `mpi.COMM_WORLD:Send(1, 1)`, "use comm:send()", true},
		{"comm:Recv", `mpi.COMM_WORLD:Recv(1)`, "use comm:recv()", true},
		{"comm:Isend", `mpi.COMM_WORLD:Isend(1, 1)`, "use comm:isend()", true},
		{"comm:Irecv", `mpi.COMM_WORLD:Irecv(1)`, "use comm:irecv()", true},
		{"cart:Shift", `mpi.cart_create(mpi.COMM_WORLD, {2}):Shift(0, 1)`, "cart:Shift is not a bglua method; use cart:shift()", true},
		{"req:Wait", `mpi.isend(1, mpi.rank()):Wait()`, "req:Wait is not a bglua method; use req:wait()", true},
		{"mpi.Ssend", `mpi.Ssend(1, 1 - mpi.rank())`, "mpi.Ssend is not a bglua function; use mpi.ssend()", true},
		{"comm:Send_init", `mpi.COMM_WORLD:Send_init(1, 0)`, "comm:Send_init is not a bglua method; use comm:send_init()", true},
		{"mpi.Startall", `mpi.Startall({})`, "mpi.Startall is not a bglua function; use mpi.startall()", true},
		{"req:Cancel", `mpi.irecv(0, 9):Cancel()`, "req:Cancel is not a bglua method; use req:cancel()", true},
		{"req:Start", `mpi.recv_init(0):Start()`, "req:Start is not a bglua method; use req:start()", true},
		{"msg:Recv", `mpi.send(1, mpi.rank()); mpi.mprobe(mpi.rank()):Recv()`, "msg:Recv is not a bglua method; use msg:recv()", true},
		{"cart:Neighbor_allgather", `mpi.cart_create(mpi.COMM_WORLD, {2}):Neighbor_allgather(1)`, "cart:Neighbor_allgather is not a bglua method; use cart:neighbor_allgather()", true},
		{"msg:recv and req:start", `
			local r = mpi.rank()
			local q = mpi.recv_init(1 - r, 2)
			for i = 1, 2 do
				q:start()
				mpi.send(i * 10 + r, 1 - r, 2)
				mpi.send("m" .. i, 1 - r, 3)
				local msg = mpi.mprobe(1 - r, 3)
				print(i, (q:wait()), (msg:recv()), (q:wait()))
			end`, "[0] 1\t11\tm1\tnil\n[1] 1\t10\tm1\tnil\n[1] 2\t20\tm2\tnil\n[0] 2\t21\tm2\tnil\n", false},
		{"unknown names stay nil", `
			if mpi.rank() == 0 then
				print(mpi.nothing, mpi.Nothing, mpi.COMM_WORLD.Nothing, mpi[1], mpi.SUM ~= nil, mpi.COMM_WORLD.rank ~= nil)
			end`,
			"[0] nil\tnil\tnil\tnil\ttrue\ttrue\n", false},
		{"a rank's own mpi.Send wins", `
			mpi.Send = function() return "mine" end
			if mpi.rank() == 0 then print(mpi.Send()) end`,
			"[0] mine\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := runRanks(t, 2, c.src)
			if c.fails {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want one holding %q (output %q)", err, c.want, out)
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v (output %q)", err, out)
			}
			if out != c.want {
				t.Errorf("printed\n%s\nwant\n%s", out, c.want)
			}
		})
	}
}

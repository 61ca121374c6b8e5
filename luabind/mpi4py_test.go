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

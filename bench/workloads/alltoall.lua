-- alltoall.lua BYTES: one alltoall of BYTES bytes per pair of ranks.
-- Twin of ../smpi/alltoall.c.
local c = require "common"
local bytes = c.args { "BYTES" }
local msg, t = mpi.bytes(bytes), {}
for r = 1, mpi.size() do t[r] = msg end
local t0 = mpi.wtime()
mpi.alltoall(t)
c.report(t0)

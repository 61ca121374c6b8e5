-- bcast.lua BYTES COUNT: COUNT broadcasts of BYTES bytes from rank 0.
-- Twin of ../smpi/bcast.c.
local c = require "common"
local bytes, count = c.args { "BYTES", "COUNT" }
local msg = mpi.rank() == 0 and mpi.bytes(bytes) or nil
local t0 = mpi.wtime()
for _ = 1, count do mpi.bcast(msg, 0) end
c.report(t0)

-- Trace regions around a Lua allreduce algorithm and a halo of sends: the
-- statistics count the regions, list the algorithm's own calls under its
-- collective, and name the busiest links with the collectives that used
-- them. arg[1] = "unbalanced" ends a region that is not open; "open"
-- leaves one open at the end.
local coll = require "coll"
coll.register_all()

local rank, size = mpi.rank(), mpi.size()
local mode = arg[1]

mpi.trace_begin("setup")
local right, left = (rank + 1) % size, (rank - 1) % size
mpi.trace_end("setup")

for step = 1, 2 do
  mpi.trace_begin("step")
  mpi.trace_begin("halo")
  mpi.sendrecv(mpi.bytes(4096), right, left)
  mpi.trace_end()
  mpi.compute(1e-5)
  mpi.trace_begin("reduce")
  local s = mpi.allreduce(rank + step)
  mpi.trace_end("reduce")
  mpi.trace_end("step")
  if rank == 0 then
    print(string.format("step %d: sum %d", step, s))
  end
end

if mode == "unbalanced" and rank == 1 then
  mpi.trace_end()
elseif mode == "mismatch" and rank == 2 then
  mpi.trace_begin("outer")
  mpi.trace_end("inner")
elseif mode == "open" and rank == 3 then
  mpi.trace_begin("forgotten")
end

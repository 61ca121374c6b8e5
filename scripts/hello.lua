-- hello.lua: every rank says where it sits on the torus, then rank 0 reports
-- the sum of all ranks.  Run: bglua -ranks 8 scripts/hello.lua
local x, y, z = ml.coords()
print(string.format("hello from rank %d of %d at (%d,%d,%d)", mpi.rank(), mpi.size(), x, y, z))
local sum = mpi.allreduce(mpi.rank(), mpi.SUM)
if mpi.rank() == 0 then
  print(string.format("sum of ranks = %d, virtual time %.2f us", sum, mpi.wtime() * 1e6))
end

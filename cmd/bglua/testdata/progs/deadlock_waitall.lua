-- Rank 0 waits for three receives; only one of them is ever sent. The
-- deadlock report names the two still pending, with their peers and tags.
local r = mpi.rank()
if r == 0 then
  local q = { mpi.irecv(1, 5), mpi.irecv(2, 6), mpi.irecv(3, 7) }
  mpi.waitall(q)
else
  if r == 2 then mpi.send("x", 0, 6) end
  mpi.barrier()
end

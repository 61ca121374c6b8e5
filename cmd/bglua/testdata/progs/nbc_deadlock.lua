-- Rank 0 waits for a nonblocking barrier that rank 1 never starts.
if mpi.rank() == 0 then
  local req = mpi.ibarrier()
  mpi.compute(1e-6)
  mpi.wait(req)
end

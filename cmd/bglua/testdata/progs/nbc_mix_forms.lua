-- A blocking allreduce against a nonblocking one: never matched; the deadlock report says why.
if mpi.rank() == 0 then
  mpi.allreduce(1, mpi.SUM)
else
  local r = mpi.iallreduce(1, mpi.SUM)
  mpi.waitall({r})
end

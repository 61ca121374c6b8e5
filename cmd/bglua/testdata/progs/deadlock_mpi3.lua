-- A deadlock among the MPI-3 calls: the report names each rank's pending
-- synchronous send, persistent receive and matched probe.
local me = mpi.rank()
if me == 0 then
  local r = mpi.recv_init(2, 4)
  mpi.start(r)
  mpi.waitall({ mpi.issend("x", 1, 3), r })
elseif me == 1 then
  mpi.mprobe(0, 9)
elseif me == 2 then
  mpi.ssend("y", 0, 8)
end

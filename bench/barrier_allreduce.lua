-- barrier_allreduce.lua (bench): the smallest collective program at scale.
mpi.barrier()
local s = mpi.allreduce(1, mpi.SUM)
if mpi.rank() == 0 then print("allreduce", s, "at", mpi.wtime()) end

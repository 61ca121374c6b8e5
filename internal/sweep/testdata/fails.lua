-- fails.lua SIZE: an error on rank 1 at size 1024, else a barrier.
if tonumber(arg[1]) == 1024 and mpi.rank() == 1 then error("no 1024 today") end
mpi.barrier()

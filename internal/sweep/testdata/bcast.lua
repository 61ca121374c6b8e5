-- bcast.lua SIZE: a broadcast of SIZE bytes from rank 0; rank 0 prints
-- "time SECONDS", the time until the last rank had the data.
local n = tonumber(arg[1])
mpi.barrier()
local t0 = mpi.wtime()
mpi.bcast(mpi.rank() == 0 and mpi.bytes(n) or nil, 0)
local t = mpi.reduce(mpi.wtime() - t0, mpi.MAX, 0)
if mpi.rank() == 0 then print(string.format("time %.9e", t)) end

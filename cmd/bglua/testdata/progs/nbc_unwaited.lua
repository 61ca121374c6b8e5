-- Ranks 1-3 end without waiting for their nonblocking allreduce (a Lua
-- algorithm): ending the program lets it progress, as MPI_Finalize does,
-- and rank 0 gets its result.
local coll = require "coll"
coll.register_all()
local me = mpi.rank()
local q = mpi.iallreduce(me)
if me == 0 then
  mpi.compute(1e-3)
  print(mpi.wait(q))
end

-- mpi4py's spellings name the bglua function instead of failing as a call
-- of nil; names that are not mpi4py's stay nil.
local comm = mpi.COMM_WORLD
local calls = {
  function() return mpi.Get_rank() end,
  function() return comm:Get_size() end,
  function() return comm:Allreduce(1) end,
  function() return comm:Split(0) end,
  function() return comm:Dup() end,
  function() return mpi.Bcast(1) end,
  function() return mpi.irecv(0):Wait() end,
}
if mpi.rank() == 0 then
  for _, f in ipairs(calls) do print(select(2, pcall(f))) end
  print(mpi.Nothing, comm.nothing)
end
mpi.barrier()
if mpi.rank() == 1 then mpi.Barrier() end -- uncaught: the run's error

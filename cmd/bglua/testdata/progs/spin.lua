-- A rank that spins in pure Lua: only a wall-time limit or an interrupt ends it.
mpi.barrier()
if mpi.rank() == 2 then
  while true do end
end
mpi.barrier()

if mpi.rank() == 2 then
  mpi.compute(2e-6)
  pcall(mpi.abort, "giving up", 7) -- pcall cannot catch an abort
end
mpi.barrier()
print("not reached")

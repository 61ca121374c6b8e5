mpi.barrier()
if mpi.rank() == 1 then
  mpi.compute(1e-6)
  local t = nil
  print(t.field)
end
mpi.recv(0)

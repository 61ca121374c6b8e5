-- idle.lua (bench): every rank blocks in a barrier that rank 0 enters last,
-- after it has reported the heap with all the other ranks parked.
if mpi.rank() == 0 then mpi.compute(1e-3) end
mpi.barrier()

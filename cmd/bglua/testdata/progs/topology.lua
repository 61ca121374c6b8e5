-- Topology on any communicator: the world rank and the torus position of a
-- member, and the box of nodes a communicator spans (8 ranks on 2x2x2).
local half = mpi.split(mpi.rank() % 2, mpi.rank())
if mpi.rank() < 2 then
  print("member 1 is world rank", half:world_rank(1), "at", half:torus_coords(1))
  print("bounds", half:torus_bounds())
end
if mpi.rank() == 0 then
  print("world", mpi.world_rank(5), mpi.torus_coords(5))
  print(pcall(half.world_rank, half, 4))
end

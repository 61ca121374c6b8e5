-- ring.lua (bench): a token passes round all ranks `laps` times.
local laps = tonumber(arg[1]) or 100
local rank, size = mpi.rank(), mpi.size()
local left, right = (rank - 1) % size, (rank + 1) % size
for _ = 1, laps do
  if rank == 0 then
    mpi.send(1, right); mpi.recv(left)
  else
    mpi.send(mpi.recv(left), right)
  end
end

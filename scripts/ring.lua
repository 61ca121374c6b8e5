-- ring.lua: a token travels round all ranks a number of times; rank 0 prints
-- the time per hop.  Run: bglua -ranks 64 scripts/ring.lua [laps]
local laps = tonumber(arg[1]) or 10
local rank, size = mpi.rank(), mpi.size()
local left, right = (rank - 1) % size, (rank + 1) % size
local t0 = mpi.wtime()
for lap = 1, laps do
  if rank == 0 then
    mpi.send(lap, right)
    local token = mpi.recv(left)
    assert(token == lap, "token lost")
  else
    local token = mpi.recv(left)
    mpi.send(token, right)
  end
end
if rank == 0 then
  local per = (mpi.wtime() - t0) / (laps * size)
  print(string.format("%d laps of %d ranks: %.3f us per hop", laps, size, per * 1e6))
end

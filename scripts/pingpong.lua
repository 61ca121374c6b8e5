-- pingpong.lua: half round-trip time between rank 0 and the last rank for a
-- range of message sizes (phantom payloads: no host memory).
-- Run: bglua -ranks 2 scripts/pingpong.lua     (neighbours on a 2x1x1 torus)
local rank, size = mpi.rank(), mpi.size()
local peer = (rank == 0) and size - 1 or 0
local reps = 10
if rank ~= 0 and rank ~= size - 1 then return end
if rank == 0 then print(string.format("hops %d", ml.hops(0, size - 1))) end
for _, n in ipairs { 1, 64, 240, 1000, 4096, 65536, 1048576 } do
  local msg = mpi.bytes(n)
  local t0 = mpi.wtime()
  for _ = 1, reps do
    if rank == 0 then
      mpi.send(msg, peer); mpi.recv(peer)
    else
      mpi.recv(peer); mpi.send(msg, peer)
    end
  end
  local half = (mpi.wtime() - t0) / (2 * reps)
  if rank == 0 then
    print(string.format("%8d bytes  %9.2f us  %7.1f MB/s", n, half * 1e6, n / half / 1e6))
  end
end

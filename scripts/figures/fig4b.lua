-- fig4b.lua: [ML] Fig. 4b, MPI bandwidth on one bidirectional link against
-- message size: two torus neighbours send to each other and receive from
-- each other at the same time (a window of isends and irecvs each round).
-- The paper: the net limit is 2 x 155 = 310 MB/s (raw 350), half of it is
-- reached near 500-byte messages.
-- Run: bglua -n 2 scripts/figures/fig4b.lua [csv]
-- With "csv", rank 0 prints only CSV lines, the header first.
local rank = mpi.rank()
local peer = 1 - rank
local window = 8
local sizes = { 32, 64, 128, 256, 500, 1000, 2048, 4096, 8192, 16384, 32768, 65536, 262144, 1048576 }

local function bandwidth(size)
  -- enough rounds that the start-up is small against the whole
  local rounds = math.max(2, math.min(64, math.floor(2 ^ 20 / (size * window))))
  local data = mpi.bytes(size)
  mpi.barrier()
  local t0 = mpi.wtime()
  for _ = 1, rounds do
    local reqs = {}
    for i = 1, window do
      reqs[#reqs + 1] = mpi.irecv(peer, i)
    end
    for i = 1, window do
      reqs[#reqs + 1] = mpi.isend(data, peer, i)
    end
    mpi.waitall(reqs)
  end
  local t = mpi.wtime() - t0
  t = mpi.allreduce(t, mpi.MAX)
  -- both directions: what this node sent and what it received
  return 2 * rounds * window * size / t / 1e6
end

local rows = {}
for _, size in ipairs(sizes) do
  rows[#rows + 1] = { size, bandwidth(size) }
end
if rank == 0 then
  local net = 2 * 0.25 * 700 * 240 / 270 -- MB/s: two directions, 240 of every 270 wire bytes
  if arg[1] == "csv" then
    print("bytes,mbps,net_limit_mbps")
    for _, r in ipairs(rows) do
      print(string.format("%d,%.1f,%.1f", r[1], r[2], net))
    end
  else
    print(string.format("%8s %10s %8s", "bytes", "MB/s", "of net"))
    for _, r in ipairs(rows) do
      print(string.format("%8d %10.1f %7.0f%%", r[1], r[2], 100 * r[2] / net))
    end
    print(string.format("net limit %.0f MB/s (paper 310); half of it near 500 B in the paper", net))
  end
end

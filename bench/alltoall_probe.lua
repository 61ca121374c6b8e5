-- alltoall_probe.lua: an MPICH-style post-all alltoall written in Lua, as a
-- percentage of the bisection bound (as scripts/figures/fig6.lua counts it),
-- with the sends in rank order or in a random order per rank. It separates
-- what the injection order costs from what the network and the protocols
-- cost ([ML] Fig. 6's MPICH default).
--   bglua -ranks 64 bench/alltoall_probe.lua 16384 inorder
--   bglua -ranks 64 bench/alltoall_probe.lua 16384 random
--   bglua -ranks 64 --routing deterministic bench/alltoall_probe.lua 16384
local m = tonumber(arg[1]) or 8192
local mode = arg[2] or "inorder"
local size, me = mpi.size(), mpi.rank()
local X, Y, Z = ml.dims()
local cfg = ml.config()
local longest = math.max(X, Y, Z)
local rate = (cfg.packet_max - cfg.packet_header) * cfg.link_bytes_per_cycle
  / (cfg.packet_max + cfg.wire_overhead) * cfg.clock_hz
local bound = (size / 2) ^ 2 * m / (X * Y * Z / longest * 2 * rate)
local order = {}
for k = 1, size - 1 do order[k] = (me + k) % size end
if mode == "random" then
  for i = #order, 2, -1 do
    local j = math.random(i)
    order[i], order[j] = order[j], order[i]
  end
end
mpi.barrier()
local t0 = mpi.wtime()
local qs = {}
for k = 1, size - 1 do qs[#qs + 1] = mpi.irecv((me - k) % size, 5) end
for _, d in ipairs(order) do qs[#qs + 1] = mpi.isend(mpi.bytes(m), d, 5) end
mpi.waitall(qs)
local t = mpi.allreduce(mpi.wtime() - t0, mpi.MAX)
if me == 0 then
  print(string.format("%s %d bytes: %.1f us, %.1f%% of the bisection bound", mode, m, t * 1e6, 100 * bound / t))
end

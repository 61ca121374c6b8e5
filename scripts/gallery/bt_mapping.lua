-- bt_mapping.lua: the mapping study of [ML] Fig. 2 on a NAS-BT-like code.
-- BT runs on a square P x P grid of processes, each exchanging faces with its
-- four grid neighbours every step. With the default XYZT mapping, grid rows
-- are laid along x and y, so north/south neighbours sit two hops apart and
-- their traffic shares links; bt_good.map folds the grid onto the torus so
-- that every grid neighbour is one hop away.
-- Run (256 ranks, 8x8x4 torus):
--   bglua -ranks 256 --torus 8x8x4 scripts/gallery/bt_mapping.lua
--   bglua -ranks 256 --torus 8x8x4 --mapping scripts/gallery/bt_good.map scripts/gallery/bt_mapping.lua
-- Make the mapping file for another size (P must be twice the torus x and y):
--   bglua --quiet scripts/gallery/bt_mapping.lua map 16 > bt_good.map
if arg[1] == "map" then
  -- Fold a P x P grid onto (P/2) x (P/2) x 4: each quarter of the grid is a
  -- z plane, mirrored so that the quarters meet at their edges, and the
  -- planes are ordered 0,1,3,2 (a Gray code) so that neighbouring quarters
  -- are neighbouring planes round the z ring.
  local P = tonumber(arg[2]) or 16
  local h = P / 2
  local gray = { [0] = { [0] = 0, [1] = 1 }, [1] = { [0] = 3, [1] = 2 } }
  for r = 0, P * P - 1 do
    local i, j = math.floor(r / P), r % P
    local a, b = math.floor(j / h), math.floor(i / h)
    local x = (a == 0) and j % h or h - 1 - j % h
    local y = (b == 0) and i % h or h - 1 - i % h
    print(string.format("%d %d %d 0", x, y, gray[b][a]))
  end
  return
end

local rank, size = mpi.rank(), mpi.size()
local P = math.floor(math.sqrt(size) + 0.5)
assert(P * P == size, "bt_mapping.lua needs a square number of ranks")
local steps = tonumber(arg[1]) or 5
local face = tonumber(arg[2]) or 32768
local i, j = math.floor(rank / P), rank % P
local nbrs = {
  ((i - 1) % P) * P + j, ((i + 1) % P) * P + j, -- north, south (periodic, as BT's multipartition)
  i * P + (j - 1) % P, i * P + (j + 1) % P,     -- west, east
}
local hops = 0
for _, n in ipairs(nbrs) do hops = hops + ml.hops(rank, n) end
hops = mpi.allreduce(hops, mpi.SUM) / (4 * size)
mpi.barrier()
local t0 = mpi.wtime()
for _ = 1, steps do
  local reqs = {}
  for d, n in ipairs(nbrs) do reqs[#reqs + 1] = mpi.irecv(n, d) end
  -- what I send north arrives at my north neighbour from its south (tag 2)
  local back = { 2, 1, 4, 3 }
  for d, n in ipairs(nbrs) do reqs[#reqs + 1] = mpi.isend(mpi.bytes(face), n, back[d]) end
  mpi.waitall(reqs)
  mpi.compute { flops = 4e6 }
end
local per = mpi.allreduce(mpi.wtime() - t0, mpi.MAX) / steps
if rank == 0 then
  print(string.format("%dx%d grid: %.2f hops to a grid neighbour on average, %.1f us per step", P, P, hops, per * 1e6))
end

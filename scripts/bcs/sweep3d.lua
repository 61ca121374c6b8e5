-- sweep3d.lua: a SWEEP3D-like wavefront ([BCS] section 6.3). The ranks form
-- a 2D grid; for each of the 8 octants the sweep starts at one corner and
-- crosses the grid block by block: a rank receives the inflows of a block
-- from its two upstream neighbours, computes it (~3.5 ms, SWEEP3D's compute
-- step), and sends the outflows to its two downstream neighbours.
--
--   bglua -ranks 16 [--runtime bcs] scripts/bcs/sweep3d.lua [blocking|nonblocking] [blocks]
--
-- blocking: mpi.recv / mpi.send, as SWEEP3D is written. nonblocking: the
-- rewrite of the paper, every send/recv pair replaced by isend/irecv and a
-- waitall: the inflows are posted early and the outflows left to complete
-- while the next block computes.
local form = arg[1] or "blocking"
local blocks = tonumber(arg[2]) or 10
assert(form == "blocking" or form == "nonblocking", "form must be blocking or nonblocking")
local rank, size = mpi.rank(), mpi.size()
local px = math.floor(math.sqrt(size))
while size % px ~= 0 do px = px - 1 end
local py = math.floor(size / px)
local i, j = rank % px, math.floor(rank / px)
local function at(x, y)
  if x < 0 or x >= px or y < 0 or y >= py then return nil end
  return y * px + x
end
local face = mpi.bytes(6 * 10 * 8 * 8) -- angles x cells x k-planes of doubles on one face

local pending = {}
local t0 = mpi.wtime()
for octant = 0, 7 do
  local dx = (octant % 2 == 0) and 1 or -1
  local dy = (math.floor(octant / 2) % 2 == 0) and 1 or -1
  local upx, upy = at(i - dx, j), at(i, j - dy)
  local downx, downy = at(i + dx, j), at(i, j + dy)
  for b = 1, blocks do
    local tag = octant * 1000 + b
    if form == "blocking" then
      if upx then mpi.recv(upx, tag) end
      if upy then mpi.recv(upy, tag) end
      mpi.compute(3.5e-3)
      if downx then mpi.send(face, downx, tag) end
      if downy then mpi.send(face, downy, tag) end
    else
      local reqs = {}
      if upx then reqs[#reqs + 1] = mpi.irecv(upx, tag) end
      if upy then reqs[#reqs + 1] = mpi.irecv(upy, tag) end
      if #reqs > 0 then mpi.waitall(reqs) end
      mpi.compute(3.5e-3)
      if #pending > 0 then mpi.waitall(pending) end -- the last block's outflows, sent while this one computed
      pending = {}
      if downx then pending[#pending + 1] = mpi.isend(face, downx, tag) end
      if downy then pending[#pending + 1] = mpi.isend(face, downy, tag) end
    end
  end
end
if #pending > 0 then mpi.waitall(pending) end
local elapsed = mpi.allreduce(mpi.wtime() - t0, mpi.MAX)
if rank == 0 then
  print(string.format("sweep3d %s: %d ranks (%dx%d), 8 octants x %d blocks: %.2f ms", form, size, px, py, blocks, elapsed * 1e3))
end

-- octree_bcast.lua: [EMU] "OctTree Broadcast" on the earlier Blue Gene design.
-- The message starts at the centre node. A node that holds the data for a
-- box of nodes cuts the box in eight (each dimension longer than one node in
-- halves) and sends the data, with the bounds of the part, to the centre
-- node of each of the seven parts it is not in; then it does the same with
-- its own part, down to a single node. The handler of a receiving node
-- carries on with the part it got. The depth is logarithmic, but the
-- messages go further: each costs a handler (1 us on bgc), 1 ns a hop, 75 ns
-- a corner turn, and its time on the links it crosses (8 numbers, an
-- 88-byte packet), queued behind the other messages its sender put on the
-- same link.
-- Paper: about 8.9 us on the full 34x34x36 machine, ~42,000 messages.
-- Run: bglua --machine bgc -ranks 41616 --torus 34x34x36 scripts/emu/octree_bcast.lua [csv]
local emu = require "emu"
local floor = math.floor

local BCAST = 1 -- handler id, as [EMU]'s registerHandler numbers them
local c, dims = emu.node()

local got_at, depth, sent = nil, nil, 0

local function inside(p, lo, hi)
  for k = 1, 3 do
    if p[k] < lo[k] or p[k] >= hi[k] then return false end
  end
  return true
end

-- spread: I hold value for the box [lo, hi) (I am in it), d messages from
-- the root.
local function spread(value, lo, hi, d)
  got_at, depth = mpi.wtime(), d
  while true do
    local cut = {} -- the dimensions cut at this level
    for k = 1, 3 do
      if hi[k] - lo[k] > 1 then cut[#cut + 1] = k end
    end
    if #cut == 0 then break end
    local mid = {}
    for _, k in ipairs(cut) do mid[k] = floor((lo[k] + hi[k]) / 2) end
    local mylo, myhi
    for bits = 0, 2 ^ #cut - 1 do
      local plo, phi = { lo[1], lo[2], lo[3] }, { hi[1], hi[2], hi[3] }
      for j, k in ipairs(cut) do
        if floor(bits / 2 ^ (j - 1)) % 2 == 0 then phi[k] = mid[k] else plo[k] = mid[k] end
      end
      if inside(c, plo, phi) then
        mylo, myhi = plo, phi
      else
        local centre = {}
        for k = 1, 3 do centre[k] = floor((plo[k] + phi[k]) / 2) end
        ml.send(emu.rank_at(centre), BCAST, { value, plo[1], plo[2], plo[3], phi[1], phi[2], phi[3], d + 1 })
        sent = sent + 1
      end
    end
    lo, hi = mylo, myhi
  end
end

ml.register(BCAST, function(src, m)
  spread(m[1], { m[2], m[3], m[4] }, { m[5], m[6], m[7] }, m[8])
end)

local root = { floor(dims[1] / 2), floor(dims[2] / 2), floor(dims[3] / 2) }
if c[1] == root[1] and c[2] == root[2] and c[3] == root[3] then
  spread(42, { 0, 0, 0 }, dims, 0) -- the centre starts at t = 0
else
  ml.wait(function() return got_at ~= nil end)
end

emu.report("octree broadcast", 8.9, got_at, depth, sent)

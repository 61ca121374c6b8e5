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
local x, y, z = c[1], c[2], c[3]

-- spread: I hold value for the box [lo, hi) = [l1, h1) x [l2, h2) x [l3,
-- h3) (I am in it), d messages from the root. The parts of a level are
-- numbered by bits, bit j-1 for the j-th dimension cut (in x, y, z order):
-- 0 the lower half, 1 the upper. Plain numbers rather than tables of
-- bounds: a handler runs for every node of the machine.
local function spread(value, l1, l2, l3, h1, h2, h3, d)
  got_at, depth = mpi.wtime(), d
  while true do
    local c1, c2, c3 = h1 - l1 > 1, h2 - l2 > 1, h3 - l3 > 1
    if not (c1 or c2 or c3) then break end
    local m1, m2, m3 = floor((l1 + h1) / 2), floor((l2 + h2) / 2), floor((l3 + h3) / 2)
    local n = (c1 and 1 or 0) + (c2 and 1 or 0) + (c3 and 1 or 0)
    local n1, n2, n3, k1, k2, k3 -- my part
    for bits = 0, 2 ^ n - 1 do
      local a1, a2, a3, b1, b2, b3, b = l1, l2, l3, h1, h2, h3, bits
      if c1 then
        if b % 2 == 0 then b1 = m1 else a1 = m1 end
        b = floor(b / 2)
      end
      if c2 then
        if b % 2 == 0 then b2 = m2 else a2 = m2 end
        b = floor(b / 2)
      end
      if c3 then
        if b % 2 == 0 then b3 = m3 else a3 = m3 end
      end
      if x >= a1 and x < b1 and y >= a2 and y < b2 and z >= a3 and z < b3 then
        n1, n2, n3, k1, k2, k3 = a1, a2, a3, b1, b2, b3
      else
        -- to the centre node of the part
        local to = ml.rank_of(floor((a1 + b1) / 2), floor((a2 + b2) / 2), floor((a3 + b3) / 2))
        ml.send(to, BCAST, { value, a1, a2, a3, b1, b2, b3, d + 1 })
        sent = sent + 1
      end
    end
    l1, l2, l3, h1, h2, h3 = n1, n2, n3, k1, k2, k3
  end
end

ml.register(BCAST, function(src, m)
  spread(m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8])
end)

local root = { floor(dims[1] / 2), floor(dims[2] / 2), floor(dims[3] / 2) }
if c[1] == root[1] and c[2] == root[2] and c[3] == root[3] then
  spread(42, 0, 0, 0, dims[1], dims[2], dims[3], 0) -- the centre starts at t = 0
else
  ml.wait(function() return got_at ~= nil end)
end

emu.report("octree broadcast", 8.9, got_at, depth, sent)

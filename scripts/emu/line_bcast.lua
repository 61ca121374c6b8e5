-- line_bcast.lua: [EMU] "Line Broadcast" on the earlier Blue Gene design.
-- The message starts at the corner (0, 0, 0) and streams to the opposite
-- face: along x from the corner, along y from every node of that line, along
-- z from every node of the face z = 0. Every node's handler forwards the
-- message one hop ahead, as the paper's programs do with sendPacket, so each
-- step costs a handler (1 us on bgc), a hop (1 ns) and the packet's time on
-- a 1 GB/s link (a 32-byte packet: 8 B of data, 16 B of active-message
-- header, 8 B of hardware header).
-- Paper: about 110 us on the full 34x34x36 machine, ~42,000 messages.
-- Run: bglua --machine bgc -ranks 41616 --torus 34x34x36 scripts/emu/line_bcast.lua [csv]
-- (the default torus for 41,616 ranks is 36x34x34: --torus keeps the
-- paper's orientation, 35 steps along z.)
local emu = require "emu"

local BCAST = 1 -- handler id, as [EMU]'s registerHandler numbers them
local c, dims = emu.node()
local parent, children, depth = emu.line(c, dims)

local got_at, sent -- when the data arrived here, how many messages I sent

local function forward(value)
  got_at = mpi.wtime()
  for _, r in ipairs(children) do
    ml.send(r, BCAST, value)
  end
  sent = #children
end

ml.register(BCAST, function(src, value) forward(value) end)

if parent == nil then
  forward(42) -- the corner starts the stream at t = 0
else
  ml.wait(function() return got_at ~= nil end)
end

emu.report("line broadcast", 110, got_at, depth, sent)

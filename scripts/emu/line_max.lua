-- line_max.lua: [EMU]'s reduction, the global maximum along the line
-- broadcast's pattern in reverse. Every node takes the maximum of an array
-- of its own, waits for the partial maxima of the nodes that follow it on
-- the line (its children in line_bcast.lua), and sends the maximum of all
-- to the node before it; the far face starts at once, the corner ends with
-- the global maximum. Every message costs its receiver a handler (1 us on
-- bgc); a node of the corner's x line gets three. The handlers run on
-- communication units (category "comm"), as [EMU] advises for contributing
-- to a reduction; the three messages of an x-line node come in at different
-- times, so its 8 communication units do not shorten the path.
-- Paper: about 95 us on the full 34x34x36 machine.
-- Run: bglua --machine bgc -ranks 41616 --torus 34x34x36 scripts/emu/line_max.lua [csv]
local emu = require "emu"

local MAX = 2 -- handler id
local c, dims = emu.node()
local parent, children, depth = emu.line(c, dims)

-- The array of rank r: numbers any rank can recompute, so that the corner
-- can check the answer.
local function array_of(r)
  local a = {}
  for i = 1, 16 do
    a[i] = ((r + 1) * 2654435761 + i * 40503) % 4294967291
  end
  return a
end

local best = math.max(unpack(array_of(mpi.rank())))
local waiting = #children
local done_at, sent = nil, 0

local function finish()
  done_at = mpi.wtime()
  if parent then
    ml.send(parent, MAX, best, { category = "comm" })
    sent = 1
  end
end

ml.register(MAX, function(src, v)
  if v > best then best = v end
  waiting = waiting - 1
  if waiting == 0 then finish() end
end)

if waiting == 0 then finish() end -- the far ends start at t = 0
ml.wait(function() return done_at ~= nil end)

if parent == nil then
  local want = -1
  for r = 0, mpi.size() - 1 do
    want = math.max(want, unpack(array_of(r)))
  end
  if best ~= want then error(string.format("line max: got %.0f, want %.0f", best, want)) end
end

emu.report("line max-reduction", 95, done_at, depth, sent)

-- emu.lua: what the three [EMU] benchmark programs share (line_bcast.lua,
-- octree_bcast.lua, line_max.lua): where this node sits, the line pattern,
-- and the report every rank takes part in.
--
-- The programs treat the machine as the [EMU] paper does, a box of nodes
-- with one rank per node: rank r at ml.coords(r), one torus hop between
-- neighbours of the box. Run them in coprocessor mode with as many ranks as
-- the torus has nodes. On bgc the handlers run on the nodes' communication
-- thread units (ml.send's default category, "comm"), which take each
-- message out of the InBuffer for 1 us; the ranks themselves only wait
-- (ml.wait) for their node's part to be done.
local emu = {}

-- node() returns this rank's coordinates {x, y, z} and the box {X, Y, Z}.
function emu.node()
  local X, Y, Z, T = ml.dims()
  if T ~= 1 or mpi.size() ~= X * Y * Z then
    error(string.format("emu: want one rank per node of the %dx%dx%d torus (%d ranks, coprocessor mode); got %d ranks, %d per node",
      X, Y, Z, X * Y * Z, mpi.size(), T), 2)
  end
  local x, y, z = ml.coords()
  return { x, y, z }, { X, Y, Z }
end

-- rank_at(c) is the rank of the node at coordinates c = {x, y, z}.
function emu.rank_at(c)
  return ml.rank_of(c[1], c[2], c[3])
end

-- line(c, dims) is the line pattern of [EMU]'s line broadcast from the
-- corner (0, 0, 0): the corner's line runs along x, every node of it starts
-- a line along y (the face z = 0), every node of that face a line along z,
-- a stream to the opposite face. It returns this node's parent (the node one
-- step back along the highest dimension in which it is off the corner; nil
-- at the corner), its children (one step ahead along that dimension and
-- every higher one, in x, y, z order) and its depth (x + y + z: how many
-- messages away from the corner it is).
function emu.line(c, dims)
  local last = 0
  for d = 1, 3 do
    if c[d] > 0 then last = d end
  end
  local function step(d, by)
    local a = { c[1], c[2], c[3] }
    a[d] = a[d] + by
    return emu.rank_at(a)
  end
  local parent = last > 0 and step(last, -1) or nil
  local children = {}
  for d = math.max(last, 1), 3 do
    if c[d] + 1 < dims[d] then children[#children + 1] = step(d, 1) end
  end
  return parent, children, c[1] + c[2] + c[3]
end

-- report(title, published_us, t, depth, sent): every rank passes the
-- virtual time t at which it was done with the operation (had the data, or
-- sent its part on), its depth in the pattern and how many messages it
-- sent; rank 0 prints the operation's time (the latest t) beside the
-- paper's, or with arg[1] == "csv" only CSV: for each depth, how many nodes
-- and the latest time one of them was done.
--
-- The report's own messages must not disturb the operation (a rank's CPU
-- reads every packet that reaches it, even while it waits for something
-- else), so every rank first idles until a quiet time that no rank of the
-- operation can reach: 4 handler times per node along the box's edges.
-- Then every other rank sends its entry to rank 0 as an active message, as
-- the operation's own messages go: one packet and a handler that files it.
-- (An MPI gather would do the same in log2(n) rounds that each rank waits
-- for: three times the host time on the full machine.)
function emu.report(title, published_us, t, depth, sent)
  local X, Y, Z = ml.dims()
  local cfg = ml.config()
  local quiet = 4 * (X + Y + Z) * math.max(cfg.ml_dispatch_cycles / cfg.clock_hz, 1e-6)
  if t > quiet then
    error(string.format("emu: rank %d was done at %.3f us, after the report's quiet time %.3f us", mpi.rank(), t * 1e6, quiet * 1e6))
  end
  local me, n = mpi.rank(), mpi.size()
  local all, got = nil, 0
  if me == 0 then
    all = { { t, depth, sent } }
    ml.register("emu.report", function(src, e)
      all[src + 1] = e
      got = got + 1
    end)
  end
  mpi.compute(quiet - mpi.wtime())
  if me ~= 0 then
    ml.send(0, "emu.report", { t, depth, sent })
    return
  end
  ml.wait(function() return got == n - 1 end)
  -- One pass over every rank's entry, with comparisons rather than
  -- math.max (whose result they equal): 41,616 entries on the full machine.
  local latest, nodes, messages, tmax, deepest = {}, {}, 0, 0, 0
  for r = 1, mpi.size() do
    local e = all[r]
    local t, d = e[1], e[2]
    local l = latest[d] or 0
    if t > l then l = t end
    latest[d] = l
    nodes[d] = (nodes[d] or 0) + 1
    messages = messages + e[3]
    if t > tmax then tmax = t end
    if d > deepest then deepest = d end
  end
  if arg[1] == "csv" then
    print("depth,nodes,time_us")
    for d = 0, deepest do
      if nodes[d] then print(string.format("%d,%d,%.3f", d, nodes[d], latest[d] * 1e6)) end
    end
    return
  end
  print(string.format("%s on %dx%dx%d %s (%d nodes): %.2f us (paper ~%g us, %+.1f%%)",
    title, X, Y, Z, cfg.name, X * Y * Z, tmax * 1e6, published_us, 100 * (tmax * 1e6 - published_us) / published_us))
  print(string.format("%d messages, %d steps deep, %.3f us per step", messages, deepest, tmax * 1e6 / math.max(deepest, 1)))
end

return emu

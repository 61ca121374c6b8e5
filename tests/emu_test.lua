-- Regression suite: the [EMU] broadcasts on the earlier design (--machine bgc)
-- at a small size, 6x6x6. The full-size programs are scripts/emu/*.lua; these
-- are compact versions of the same patterns that check how the model scales
-- them: every step of a line costs a handler (1 us), a hop and a packet on
-- the link, a route that turns a corner 75 ns more, and the octree's few
-- long steps beat the line's many short ones. Run: bglua test tests/
local floor = math.floor

local function here()
  local x, y, z = ml.coords()
  local X, Y, Z = ml.dims()
  return { x, y, z }, { X, Y, Z }
end

-- Line broadcast from the corner: returns when this rank got the data and
-- its depth (x + y + z).
local function line_bcast()
  local c, dims = here()
  local last = 0
  for d = 1, 3 do
    if c[d] > 0 then last = d end
  end
  local got
  local function forward()
    got = mpi.wtime()
    for d = math.max(last, 1), 3 do
      if c[d] + 1 < dims[d] then
        local a = { c[1], c[2], c[3] }
        a[d] = a[d] + 1
        ml.send(ml.rank_of(a[1], a[2], a[3]), "line", 0)
      end
    end
  end
  ml.register("line", forward)
  if last == 0 then forward() else ml.wait(function() return got ~= nil end) end
  return got, c[1] + c[2] + c[3]
end

-- Octree broadcast from the centre, starting at t0.
local function octree_bcast(t0)
  local c, dims = here()
  local got
  local function spread(lo, hi)
    got = mpi.wtime()
    while true do
      local cut = {}
      for k = 1, 3 do
        if hi[k] - lo[k] > 1 then cut[#cut + 1] = k end
      end
      if #cut == 0 then return end
      local mylo, myhi
      for bits = 0, 2 ^ #cut - 1 do
        local plo, phi = { lo[1], lo[2], lo[3] }, { hi[1], hi[2], hi[3] }
        for j, k in ipairs(cut) do
          local mid = floor((lo[k] + hi[k]) / 2)
          if floor(bits / 2 ^ (j - 1)) % 2 == 0 then phi[k] = mid else plo[k] = mid end
        end
        local mine = true
        for k = 1, 3 do
          if c[k] < plo[k] or c[k] >= phi[k] then mine = false end
        end
        if mine then
          mylo, myhi = plo, phi
        else
          local m = {}
          for k = 1, 3 do m[k] = floor((plo[k] + phi[k]) / 2) end
          ml.send(ml.rank_of(m[1], m[2], m[3]), "oct", { plo[1], plo[2], plo[3], phi[1], phi[2], phi[3] })
        end
      end
      lo, hi = mylo, myhi
    end
  end
  ml.register("oct", function(src, b) spread({ b[1], b[2], b[3] }, { b[4], b[5], b[6] }) end)
  if c[1] == floor(dims[1] / 2) and c[2] == floor(dims[2] / 2) and c[3] == floor(dims[3] / 2) then
    mpi.compute(t0 - mpi.wtime())
    spread({ 0, 0, 0 }, dims)
  else
    ml.wait(function() return got ~= nil end)
  end
  return got - t0
end

-- Idle until t, so that what follows cannot disturb what came before (a
-- rank's CPU reads every packet that reaches it).
local function quiet(t)
  expect(mpi.wtime()).to_be_below(t)
  mpi.compute(t - mpi.wtime())
end

local bgc = { machine = "bgc", ranks = 216, torus = "6x6x6" }
local function case(name, fn)
  return { name = name, machine = bgc.machine, ranks = bgc.ranks, torus = bgc.torus, run = fn }
end

return {
  case("line broadcast: each step costs a handler, a hop and a packet", function()
    local t, depth = line_bcast()
    quiet(100e-6)
    local all = mpi.gather({ t, depth }, 0)
    if mpi.rank() ~= 0 then return end
    local latest = {}
    for r = 1, #all do
      local d = all[r][2]
      latest[d] = math.max(latest[d] or 0, all[r][1])
    end
    -- the time grows with the line length, by the same step every hop:
    -- 1,000 cycles of handler + a 32-byte packet at 1 B/cycle + 3 of copy
    for d = 1, 15 do
      expect(latest[d] - latest[d - 1]).to_be_near(1.035e-6, 1e-6)
    end
    expect(latest[15]).to_be_near(15 * 1.035e-6, 1e-6)
  end),
  case("a route that turns a corner costs 75 ns more", function()
    local arrived = {}
    ml.register("probe", function(src, tag) arrived[tag] = mpi.wtime() end)
    local me = mpi.rank()
    -- both 2 hops from rank 0, on links that no other packet uses
    local straight, turned = ml.rank_of(0, 2, 0), ml.rank_of(1, 1, 0)
    if me == 0 then
      ml.send(straight, "probe", "s")
      ml.send(turned, "probe", "t")
    end
    if me == straight or me == turned then
      ml.wait(function() return next(arrived) ~= nil end)
    end
    quiet(10e-6)
    local t = mpi.gather(arrived.s or arrived.t or 0, 0)
    if me == 0 then
      expect((t[turned + 1] - t[straight + 1]) * 1e9).to_be_near(75, 1e-6)
    end
  end),
  case("the octree broadcast beats the line broadcast", function()
    local line = line_bcast()
    quiet(100e-6)
    local oct = octree_bcast(100e-6)
    quiet(200e-6)
    line = mpi.allreduce(line, mpi.MAX)
    oct = mpi.allreduce(oct, mpi.MAX)
    expect(oct).to_be_below(line / 2)
    expect(oct).to_be_above(3e-6) -- three levels of handlers at least
  end),
}

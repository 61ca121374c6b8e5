-- Regression suite: thread units on the earlier design (--machine bgc has
-- 8 communication and 192 worker units per node, [EMU]). Handlers and
-- micro-tasks run on the units of their node without the rank polling; a
-- communication unit pays 1 us to take each one. Run: bglua test tests/
local us = 1e-6

local function case(name, fn, extra)
  local c = { name = name, machine = "bgc", ranks = 27, torus = "3x3x3", run = fn }
  for k, v in pairs(extra or {}) do c[k] = v end
  return c
end

return {
  case("two handlers arriving together run side by side", function()
    -- ranks 0 and 2 are both one hop from rank 1
    local got = {}
    ml.register("h", function(src, v, info)
      got[#got + 1] = mpi.wtime()
      expect(info.category).to_equal("comm")
    end)
    local me = mpi.rank()
    if me == 0 or me == 2 then ml.send(1, "h", me) end
    if me ~= 1 then return end
    ml.wait(function() return #got == 2 end)
    -- one unit each: 1 us of dispatch, not 2; apart by a packet's copy only
    expect(got[2] - got[1]).to_be_below(0.01 * us)
    expect(got[2]).to_be_below(1.1 * us)
    expect(mpi.wtime()).to_equal(got[2])
  end),
  case("micro-tasks posted together start together on the communication units", function()
    if mpi.rank() ~= 0 then return end
    local t = {}
    for i = 1, 8 do ml.task(function() t[i] = mpi.wtime() end, "comm") end
    ml.task(function() t[9] = mpi.wtime() end, "comm") -- a ninth waits for a unit
    ml.wait(function() return #t == 9 end)
    for i = 1, 8 do expect(t[i]).to_be_near(1 * us, 1e-9) end
    expect(t[9]).to_be_near(2 * us, 1e-9)
  end),
  case("worker tasks compute in parallel on the workers", function()
    if mpi.rank() ~= 0 then return end
    local n = 0
    for i = 1, 10 do
      ml.task(function() mpi.compute(10 * us); n = n + 1 end) -- category worker
    end
    ml.wait(function() return n == 10 end)
    -- 8 communication units dispatch 8 tasks in the first us, 2 in the
    -- second; the workers compute 10 us each, side by side
    expect(mpi.wtime()).to_be_near(12 * us, 1e-9)
  end),
  case("a handler may send on: a line of handlers", function()
    -- each node of the x line forwards to the next: 1 us of dispatch a step
    local x = ml.coords()
    local got
    ml.register("fwd", function()
      got = mpi.wtime()
      if x < 2 then ml.send(ml.rank_of(x + 1, 0, 0), "fwd", 0) end
    end)
    local _, y, z = ml.coords()
    if y ~= 0 or z ~= 0 then return end
    if x == 0 then
      ml.send(ml.rank_of(1, 0, 0), "fwd", 0)
    else
      ml.wait(function() return got ~= nil end)
      expect(got).to_be_near(x * 1.035 * us, 0.01)
    end
  end),
  case("a handler cannot block", function()
    ml.register("h", function() mpi.recv(0) end)
    if mpi.rank() == 0 then ml.send(1, "h", 0) end
  end, { fails = "mpi.recv cannot block inside a handler running on a thread unit" }),
  case("categories are \"comm\" or \"worker\"", function()
    ml.task(function() end, "gpu")
  end, { fails = 'ml.task: category must be "comm", "worker", got "gpu"' }),
}

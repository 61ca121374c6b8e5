-- Every algorithm of stdlib/coll.lua, for several roots, operators and
-- payloads, against the values the built-ins return (computed here, so that
-- no algorithm under test checks another). Each algorithm is called directly
-- on a dup of COMM_WORLD, then each collective through mpi.* with whatever
-- --coll selected (a Lua algorithm or the built-in). Rank 0 prints one line
-- per check: "ok" or "FAIL" with the number of ranks that disagree; a
-- disagreeing rank prints its first mismatch. mpi.reduce (built-in) counts.
-- Last, the nonblocking forms (mpi.ibcast...), which run the same algorithms.
local coll = require "coll"
coll.register_all()

local rank, size = mpi.rank(), mpi.size()

local function show(v)
  if type(v) ~= "table" then
    return tostring(v)
  end
  local keys = {}
  for k in pairs(v) do
    keys[#keys + 1] = k
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local parts = {}
  for _, k in ipairs(keys) do
    parts[#parts + 1] = tostring(k) .. "=" .. show(v[k])
  end
  return "{" .. table.concat(parts, " ") .. "}"
end

-- same compares payloads: nil, numbers, strings, mpi.bytes, nested tables;
-- the n field of result tables is not part of the value.
local function same(a, b)
  if type(a) ~= type(b) then
    return false
  end
  if type(a) == "userdata" then
    return tostring(a) == tostring(b)
  end
  if type(a) ~= "table" then
    return a == b
  end
  for k, v in pairs(a) do
    if k ~= "n" and not same(v, b[k]) then
      return false
    end
  end
  for k, v in pairs(b) do
    if k ~= "n" and a[k] == nil then
      return false
    end
  end
  return true
end

-- Large runs check fewer cases, to keep the test fast.
local big = size > 16

local roots = {}
do
  local seen = {}
  for _, r in ipairs(big and { 0, size - 1 } or { 0, size - 1, math.floor(size / 2), 1 % size }) do
    if not seen[r] then
      seen[r] = true
      roots[#roots + 1] = r
    end
  end
end

local function concat(a, b) return a .. b end

-- One checker per collective: run(call, fail) calls the collective through
-- call(args...) and reports wrong results with fail(what, got, want).
local checks = {
  bcast = function(call, fail)
    for _, root in ipairs(roots) do
      local want = { root = root, s = string.rep("b", root + 1), v = { root, 2 * root }, [3] = false }
      local got = call(rank == root and want or nil, root)
      if not same(got, want) then fail("root " .. root, got, want) end
      got = call(rank == root and mpi.bytes(1000 + root) or nil, root)
      if tostring(got) ~= "mpi.bytes(" .. (1000 + root) .. ")" then fail("phantom root " .. root, got, "mpi.bytes") end
      got = call(rank == root and root * 7 or nil, root)
      if got ~= root * 7 then fail("number root " .. root, got, root * 7) end
    end
  end,
  allgather = function(call, fail)
    local want = { n = size }
    for r = 0, size - 1 do
      want[r + 1] = r % 3 ~= 2 and string.rep("x", r) or nil -- some ranks give nil
    end
    local got = call(want[rank + 1])
    if not same(got, want) then fail("strings", got, want) end
    want = {}
    for r = 0, size - 1 do want[r + 1] = { r, r * r } end
    got = call({ rank, rank * rank })
    if not same(got, want) then fail("vectors", got, want) end
  end,
  allreduce = function(call, fail)
    local s = size * (size - 1) / 2
    local got = call({ rank, 2 * rank, 1 }, mpi.SUM)
    if not same(got, { s, 2 * s, size }) then fail("sum", got, { s, 2 * s, size }) end
    got = call((rank * 37) % 11, mpi.MAX)
    local want = 0
    for r = 0, size - 1 do want = math.max(want, (r * 37) % 11) end
    if got ~= want then fail("max", got, want) end
    local order = {}
    for r = 0, size - 1 do order[#order + 1] = tostring(r) end
    got = call(tostring(rank), concat)
    want = table.concat(order)
    if got ~= want then fail("user op in rank order", got, want) end
    got = call({ (rank * 5) % 7, rank }, mpi.MINLOC)
    want = { 7, 0 }
    for r = 0, size - 1 do
      if (r * 5) % 7 < want[1] then want = { (r * 5) % 7, r } end
    end
    if not same(got, want) then fail("minloc", got, want) end
  end,
  alltoall = function(call, fail)
    local t, want = {}, { n = size }
    for r = 0, size - 1 do
      t[r + 1] = (rank + r) % 4 ~= 3 and rank * 1000 + r or nil
      want[r + 1] = (r + rank) % 4 ~= 3 and r * 1000 + rank or nil
    end
    t.n = size
    local got = call(t)
    if not same(got, want) then fail("numbers", got, want) end
    if big then return end
    for r = 0, size - 1 do
      t[r + 1] = { from = rank, to = r, s = string.rep("a", (rank + r) % 5) }
      want[r + 1] = { from = r, to = rank, s = string.rep("a", (rank + r) % 5) }
    end
    got = call(t)
    if not same(got, want) then fail("tables", got, want) end
  end,
}

local function report(label, run)
  local bad, first = 0, nil
  run(function(what, got, want)
    bad = bad + 1
    first = first or (what .. ": got " .. show(got) .. ", want " .. show(want))
  end)
  if first then print("mismatch in " .. label .. ": " .. first) end
  local ranks = mpi.reduce(bad > 0 and 1 or 0, mpi.SUM, 0)
  if rank == 0 then
    if ranks == 0 then
      print("ok   " .. label)
    else
      print("FAIL " .. label .. " on " .. ranks .. " of " .. size .. " ranks")
    end
  end
end

local dup = mpi.COMM_WORLD:dup()
for _, a in ipairs(coll.algorithms) do
  report(string.format("%-9s %-22s called directly", a.coll, a.name), function(fail)
    checks[a.coll](function(...) return a.fn(dup, ...) end, fail)
  end)
end
for _, c in ipairs({ "bcast", "allgather", "allreduce", "alltoall" }) do
  report(string.format("%-9s %-22s mpi.%s", c, mpi.coll.algorithm(c), c), function(fail)
    checks[c](function(...) return mpi[c](...) end, fail)
  end)
end
-- The nonblocking forms run the same algorithms (a Lua one on a coroutine
-- of its own, beside the program): started, a computation, then waited.
for _, c in ipairs({ "bcast", "allgather", "allreduce", "alltoall" }) do
  report(string.format("%-9s %-22s mpi.i%s", c, mpi.coll.algorithm("i" .. c), c), function(fail)
    checks[c](function(...)
      local req = mpi["i" .. c](...)
      mpi.compute(1e-5)
      return (mpi.wait(req))
    end, fail)
  end)
end

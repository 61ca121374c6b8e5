-- Parameters from --coll reaching a Lua algorithm, and changing the time of
-- a broadcast: a chain broadcast pipelined in segments of p.seg bytes,
-- selected with --coll bcast=chain:seg=8k. Run it with a built-in instead
-- (--coll bcast=torus:routes=1) to compare. Rank 0 prints the parameters
-- the algorithm got, the algorithm in force and the broadcast's time.
-- arg[1]: the size in bytes (default 65536).

-- chain: the root sends the number of segments, then the segments, along
-- the ranks in order; each rank forwards what it receives. It checks its
-- own parameter: seg, a size in bytes (default: the whole value at once).
local function chain(comm, data, root, p)
  if comm:rank() == 0 then
    local keys = {}
    for k, v in pairs(p) do
      keys[#keys + 1] = k .. "=" .. tostring(v) .. " (" .. type(v) .. ")"
    end
    table.sort(keys)
    print("chain got " .. (#keys > 0 and table.concat(keys, ", ") or "no parameters"))
  end
  if p.seg ~= nil and (type(p.seg) ~= "number" or p.seg < 1) then
    error("bcast=chain: seg must be a size in bytes, e.g. seg=32k (got " .. tostring(p.seg) .. ")", 0)
  end
  local n, me = comm:size(), comm:rank()
  local rel = (me - root) % n
  local prev, nxt = (me - 1) % n, nil
  if rel + 1 < n then
    nxt = (me + 1) % n
  end
  if rel == 0 then
    local seg = p.seg or math.max(#data, 1)
    local count = math.max(1, math.ceil(#data / seg))
    if nxt then
      comm:send(count, nxt, 0)
      for k = 0, count - 1 do
        comm:send(data:sub(k * seg + 1, (k + 1) * seg), nxt, 0)
      end
    end
    return data
  end
  local count = comm:recv(prev, 0)
  if nxt then
    comm:send(count, nxt, 0)
  end
  local parts = {}
  for k = 1, count do
    parts[k] = comm:recv(prev, 0)
    if nxt then
      comm:send(parts[k], nxt, 0)
    end
  end
  return table.concat(parts)
end

mpi.coll.register("bcast", "chain", chain)

local size = tonumber(arg[1]) or 65536
local t0 = mpi.wtime()
local v = mpi.bcast(mpi.rank() == 0 and string.rep("x", size) or nil, 0)
local t = mpi.wtime() - t0
assert(#v == size, "wrong broadcast")
local times = mpi.gather(t, 0)
if mpi.rank() == 0 then
  local slowest = 0
  for _, x in ipairs(times) do
    slowest = math.max(slowest, x)
  end
  print("in force: " .. mpi.coll.algorithm("bcast"))
  print(string.format("bcast of %d bytes: %.3f us", size, slowest * 1e6))
end

-- An allreduce of arg[1] bytes (4096) as arg[2]: "doubles", "bytes" (an
-- mpi.bytes phantom of that size) or "user" (doubles, with a Lua function
-- as the operator), on COMM_WORLD and on halves of it, timed, with the
-- algorithm in force and the one that ran. Doubles and bytes take the same
-- time. (Compare runs, not two calls of one run: a call leaves the network
-- in another state for the next.)
local n = tonumber(arg[1]) or 4096
local kind = arg[2] or "doubles"
local op = mpi.SUM
if kind == "user" then op = function(a, b) return a end end
local half = mpi.COMM_WORLD:split(mpi.rank() % 2, mpi.rank())

local function payload()
  if kind == "bytes" then return mpi.bytes(n) end
  local doubles = {}
  for i = 1, math.floor(n / 8) do doubles[i] = mpi.rank() + i end
  return doubles
end

for _, c in ipairs({ { "COMM_WORLD", mpi.COMM_WORLD }, { "a half", half } }) do
  local v = payload()
  mpi.barrier()
  local t0 = mpi.wtime()
  c[2]:allreduce(v, op)
  local t = (mpi.wtime() - t0) * 1e6
  local inforce, ran = mpi.coll.algorithm("allreduce", c[2])
  if mpi.rank() == 0 then
    print(string.format("%s: allreduce of %d bytes as %s, %s -> %s: %.3f us", c[1], n, kind, inforce, ran, t))
  end
end

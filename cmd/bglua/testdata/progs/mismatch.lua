-- Ranks that disagree on a collective's arguments, one mistake per run
-- (arg[1]): every path must stop with an error that names the ranks and
-- what they disagree on, never return different results.
--   root     rank 3 broadcasts from root 1, the others from root 0
--   roots    every rank thinks it is the root: all send, none receives
--   op       rank 2 sums, the others take the maximum
--   luaop    ranks pass Lua functions written on different lines
--   count    rank 1 gathers two numbers, the others one
--   split    on a split communicator, its rank 1 disagrees on the root
--   lua      a Lua-registered bcast (stdlib coll) with rank 3 on root 1
--   nan, frac, bytes, compute   numbers where integers or durations go
local what = arg[1]
local me, n = mpi.rank(), mpi.size()
if what == "root" then
  local root = me == 3 and 1 or 0
  print(mpi.bcast(me == root and "hello" or nil, root))
elseif what == "roots" then
  print(mpi.bcast("mine", me))
elseif what == "op" then
  print(mpi.allreduce(me, me == 2 and mpi.SUM or mpi.MAX))
elseif what == "luaop" then
  local add = function(a, b) return a + b end
  local plus = function(a, b) return b + a end
  print(mpi.allreduce(me, me == 1 and plus or add))
elseif what == "count" then
  local v = me == 1 and { me, me } or { me }
  print(#mpi.allgather(v))
elseif what == "gather" then
  local v = me == 1 and { me, me } or { me }
  print(mpi.gather(v, 0) and "gathered" or "sent")
elseif what == "split" then
  local half = mpi.COMM_WORLD:split(me % 2, me)
  local root = half:rank() == 1 and 1 or 0
  print(half:bcast(half:rank() == root and "half" or nil, root))
elseif what == "lua" then
  local coll = require "coll"
  mpi.coll.register("bcast", "lua_binomial", coll.binomial_bcast)
  local root = me == 3 and 1 or 0
  print(mpi.bcast(me == root and "hello" or nil, root))
elseif what == "nan" then
  mpi.send("x", 0/0)
elseif what == "frac" then
  mpi.bcast("x", 0.5)
elseif what == "bytes" then
  mpi.bytes(0/0)
elseif what == "compute" then
  mpi.compute(1e300)
elseif what == "late" then
  -- rank 3 broadcasts from root 1 and comes late: its peers' messages
  -- are already there, and nothing it waits for will come
  local root = me == 3 and 1 or 0
  if me == 3 then mpi.compute(0.01) end
  print(mpi.bcast(me == root and "hello" or nil, root))
end

-- Mistakes with Lua collective algorithms, one per run (arg[1]):
--   unregistered  --coll bcast=NAME selects an algorithm nobody registers
--   badname       registering under a collective that does not exist
--   gather        an algorithm whose result has the wrong size
--   builtin       registering under a built-in algorithm's name
--   twice         registering one name twice with different functions
--   noreturn      an allreduce algorithm that forgets to return its result
local what = arg[1]
if what == "badname" then
  mpi.coll.register("bcats", "mine", function(comm, data, root) return data end)
elseif what == "builtin" then
  mpi.coll.register("bcast", "binomial", function(comm, data, root) return data end)
elseif what == "twice" then
  local function mine(comm, data, root) return data end
  mpi.coll.register("bcast", "mine", mine)
  mpi.coll.register("bcast", "mine", mine) -- the same function again: fine
  mpi.coll.register("bcast", "mine", function(comm, data, root) return data end)
elseif what == "noreturn" then
  mpi.coll.register("allreduce", "silent", function(comm, value, op)
    local sum = value -- computes, but returns nothing
  end)
  print(mpi.allreduce(mpi.rank() + 1))
elseif what == "gather" then
  -- Forgets the root's own value: one value short.
  mpi.coll.register("gather", "short", function(comm, value, root)
    if comm:rank() ~= root then
      comm:send(value, root)
      return nil
    end
    local t = {}
    for r = 0, comm:size() - 1 do
      if r ~= root then t[#t + 1] = comm:recv(r) end
    end
    return t
  end)
  print("gather selected:", mpi.coll.algorithm("gatherv"))
  local t = mpi.gather(mpi.rank(), 0)
end
print("bcast selected:", mpi.coll.algorithm("bcast"))
print(mpi.bcast(mpi.rank() == 0 and "hello" or nil, 0))

-- A Lua algorithm or operator that raises an error in a nonblocking
-- collective: the error is the collective's, raised where the rank waits.
mpi.coll.register("allreduce", "bad", function(comm, v, op) error("bad algorithm") end)
local what = arg[1]
local req
if what == "op" then
  req = mpi.iallreduce(1, function(a, b) error("bad operator") end)
else
  req = mpi.iallreduce(1)
end
mpi.compute(1e-4)
print(mpi.wait(req))

-- Defaults of docs/lua-api.md (as mpi4py): a collective's root is 0, its op mpi.SUM;
-- a send's tag 0, a receive's mpi.ANY_TAG; mpi.abort(code) as MPI_Abort.
local r = mpi.rank()
local b = mpi.bcast(r == 0 and "from root" or nil)
local sum = mpi.allreduce(r + 1)
local red = mpi.reduce(r + 1)
local g = mpi.gather(r)
local s = mpi.scatter(r == 0 and {10, 20, 30} or nil)
local sc = mpi.scan(1)
print(b, sum, red, g and table.concat(g, ",") or "-", s, sc)
if r == 0 then
  mpi.send("x", 1)
  print(pcall(mpi.send, "x", 1, -3))
  print(pcall(mpi.send, "x", 1, mpi.ANY_TAG))
elseif r == 1 then
  print(mpi.recv(0))
  print(pcall(mpi.recv, 0, -2))
end
mpi.barrier()
if arg[1] == "abort" and r == 2 then mpi.abort(7) end

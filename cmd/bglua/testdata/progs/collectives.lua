-- Every collective from Lua, on 7 ranks and on a split communicator, with
-- numbers, vectors, tables, a user operator and phantom payloads.
local rank, size = mpi.rank(), mpi.size()
local function show(name, v)
  if type(v) == "table" then
    local parts = {}
    for i = 1, #v do
      local x = v[i]
      parts[i] = type(x) == "table" and "{" .. table.concat(x, ",") .. "}" or tostring(x)
    end
    v = "[" .. table.concat(parts, " ") .. "]"
  end
  print(string.format("%-14s %s", name, tostring(v)))
end
mpi.barrier()
show("bcast", mpi.bcast(rank == 2 and { 1, 2, 3 } or nil, 2))
show("reduce", mpi.reduce(rank, mpi.SUM, 0))
show("allreduce max", mpi.allreduce({ rank, -rank }, mpi.MAX))
show("maxloc", mpi.allreduce({ (rank * 3) % 5, rank }, mpi.MAXLOC))
show("user op", mpi.allreduce(tostring(rank), function(a, b) return a .. b end))
show("gather", mpi.gather(rank * rank, 0))
show("allgather", mpi.allgather(string.rep("x", rank)))
local t = {}
for r = 0, size - 1 do t[r + 1] = rank * 10 + r end
show("scatter", mpi.scatter(t, 3))
show("alltoall", mpi.alltoall(t))
show("reduce_scatter", mpi.reduce_scatter(t, mpi.SUM))
show("scan", mpi.scan(rank, mpi.SUM))
show("exscan", mpi.exscan(rank, mpi.SUM))
show("phantom", mpi.bcast(mpi.bytes(65536), 0))
local sub = mpi.COMM_WORLD:split(rank % 2)
show("sub allreduce", sub:allreduce(rank, mpi.SUM))
show("sub allgather", sub:allgather(rank))
show("time", string.format("%.2f us", mpi.wtime() * 1e6))

-- coll_sweep.lua SIZE [COLLECTIVE]: one collective of SIZE bytes (bcast
-- from rank 0 by default; allreduce, allgather or alltoall), timed on every
-- rank from a barrier to its return; rank 0 prints the slowest rank's time
-- as "time SECONDS", the line that `bglua sweep` takes as what it measures.
-- Shows: bglua sweep setting algorithms against each other and against the
-- Hockney and LogGP models of the machine (docs/cli.md, docs/model.md).
-- Run one point:
--   bglua -ranks 64 --coll bcast=tree scripts/gallery/coll_sweep.lua 65536
-- Sweep three broadcasts (writes bcast.csv and bcast_bcast.png, prints a table):
--   bglua sweep --ranks 8,64 --sizes 8,256,4k,64k,1M --coll bcast=binomial \
--     --coll bcast=scatter_allgather --coll bcast=tree --out bcast.csv scripts/gallery/coll_sweep.lua
-- Or three allreduces ({size} is where the size goes among the arguments):
--   bglua sweep --ranks 16 --sizes 8,1k,64k --coll allreduce=recursive_doubling \
--     --coll allreduce=rabenseifner --coll allreduce=ring --out allreduce.csv \
--     scripts/gallery/coll_sweep.lua {size} allreduce
local n = tonumber(arg[1]) or 1024
local coll = arg[2] or "bcast"
local me, p = mpi.rank(), mpi.size()
local ops = {
  bcast = function() mpi.bcast(me == 0 and mpi.bytes(n) or nil, 0) end,
  allreduce = function() mpi.allreduce(mpi.bytes(n), mpi.SUM) end,
  allgather = function() mpi.allgather(mpi.bytes(n)) end,
  alltoall = function()
    local t = {}
    for r = 1, p do t[r] = mpi.bytes(n) end
    mpi.alltoall(t)
  end,
}
local op = ops[coll] or error("coll_sweep.lua: unknown collective " .. tostring(coll) .. " (want bcast, allreduce, allgather or alltoall)")
mpi.barrier()
local t0 = mpi.wtime()
op()
local t = mpi.reduce(mpi.wtime() - t0, mpi.MAX, 0)
if me == 0 then print(string.format("time %.9e", t)) end

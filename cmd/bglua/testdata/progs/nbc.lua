-- Nonblocking collectives: several outstanding at once, on COMM_WORLD and
-- a split communicator, a Lua operator, a phantom, waited in any order.
local me, n = mpi.rank(), mpi.size()
local sum = mpi.iallreduce(me + 1)
local cat = mpi.iallreduce(tostring(me), function(a, b) return a .. b end)
local big = mpi.ibcast(me == 0 and mpi.bytes(1048576) or nil)
local half = mpi.COMM_WORLD:split(me % 2)
local g = half:igather(me, 0)
local t0 = mpi.wtime()
mpi.compute(1e-3)
local all = mpi.waitall({ g, big, cat })
print("sum", mpi.wait(sum), "cat", all[3], "bytes", #all[2], "gather", all[1] and table.concat(all[1], ","))
local i, v = mpi.waitany({ mpi.ibarrier() })
local s, done, sc = mpi.iscan(me), false, nil
repeat done, sc = mpi.test(s) until done
print("barrier", i, v, "scan", sc, "took", string.format("%.3f ms", (mpi.wtime() - t0) * 1e3))

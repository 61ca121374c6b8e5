-- Handlers and a micro-task on thread units (--machine bgc): several units
-- of a node run at once, beside the rank.
local rank, size = mpi.rank(), mpi.size()
local got = 0
ml.register("h", function(src, v) mpi.compute(1e-6); got = got + 1 end)
mpi.barrier()
for i = 1, 3 do ml.send((rank + 1) % size, "h", i) end
ml.task(function() mpi.compute(2e-6) end)
ml.wait(function() return got >= 3 end)
mpi.compute(1e-6)
mpi.barrier()

-- Active messages: handlers, completion callbacks, micro-tasks, wait.
local rank, size = mpi.rank(), mpi.size()
local seen = {}
ml.register("hello", function(src, data, info)
  seen[#seen + 1] = string.format("%s from %d (%d bytes, %s)", tostring(data), src, info.bytes, info.protocol)
end)
ml.register(7, function(src, data) seen[#seen + 1] = "numbered handler: " .. #data.msg .. " chars" end)
mpi.barrier()
local sent = false
ml.send((rank + 1) % size, "hello", rank * 100, { done = function() sent = true end })
ml.send((rank + 1) % size, 7, { msg = string.rep("x", 300) }, { protocol = "eager" })
ml.task(function() seen[#seen + 1] = "task ran" end, "worker")
ml.wait(function() return #seen >= 3 end)
print(sent, table.concat(seen, "; "), string.format("%.2fus", mpi.wtime() * 1e6))
print("too big:", pcall(ml.send, 0, "hello", string.rep("y", 300), { protocol = "onepacket" }))
print("bad protocol:", pcall(ml.send, 0, "hello", 1, { protocol = "warp" }))
mpi.barrier()
if rank == 0 then ml.send(1, "nobody", 1) end
if rank == 1 then ml.wait(function() return false end) end

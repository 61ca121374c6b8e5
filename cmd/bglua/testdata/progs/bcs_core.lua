-- The bcs core primitives: Xfer-And-Signal to several ranks, Test-Event
-- (polling and blocking), Compare-And-Write over a set of ranks.
local rank, size = mpi.rank(), mpi.size()
if rank == 0 then
  local others = {}
  for r = 1, size - 1 do others[#others + 1] = r end
  bcs.xfer_and_signal(others, { step = 1, msg = "go" }, "work", "sent")
  print("local event before:", (bcs.test_event("sent")))
  local ok = bcs.test_event("sent", true)
  print(string.format("local event after the puts: %s at %.3f us", tostring(ok), mpi.wtime() * 1e6))
else
  print("polled:", (bcs.test_event("work")))
  local ok, data, src = bcs.test_event("work", true)
  print(string.format("got %s from %d at %.3f us", data.msg, src, mpi.wtime() * 1e6))
  bcs.set("ready", 1)
end
mpi.barrier()
local all = {}
for r = 1, size - 1 do all[#all + 1] = r end
if rank == 0 then
  local t0 = mpi.wtime()
  local ok = bcs.compare_and_write(all, "ready", "==", 1, "phase", 2)
  print(string.format("compare_and_write: %s in %.3f us; phase on rank 1 = %g", tostring(ok), (mpi.wtime() - t0) * 1e6, bcs.get("phase", 1)))
  print("again with >=, 5:", bcs.compare_and_write(all, "ready", ">=", 5))
end
mpi.barrier()
print("slice", bcs.timeslice(), "of", bcs.slice_length() * 1e6, "us")

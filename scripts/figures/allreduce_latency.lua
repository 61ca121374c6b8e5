-- allreduce_latency.lua: latency of MPI_Allreduce of one double (SUM) and of
-- MPI_Barrier at the run's size. [ML]: the collective network does a
-- reduction over 65,536 nodes in about 2.5 us of network latency, the
-- global interrupt network a barrier in 1.5 us; the point-to-point
-- algorithms pay log2(n) message latencies or more.
-- The algorithms are the run's --coll choices; one run per size and pair:
--   bglua -ranks N --coll allreduce=tree,barrier=gi scripts/figures/allreduce_latency.lua
--   bglua -ranks N --coll allreduce=recursive_doubling,barrier=dissemination scripts/figures/allreduce_latency.lua
--   bglua -ranks N --coll allreduce=reduce_bcast scripts/figures/allreduce_latency.lua
-- for N = 512, 4096 and 65536 (the default torus: 8x8x8, 16x16x16,
-- 64x32x32). Add "csv" for CSV on rank 0 (algorithm,ranks,latency_us):
-- one row for the allreduce, named by its algorithm, and one for the
-- barrier, named "barrier_" and its algorithm. "csv quick" does fewer
-- repetitions. "once" makes one allreduce and nothing else, for the host
-- cost of one call (the run's summary line: host time, events):
--   go run ./cmd/bglua -ranks 65536 --coll allreduce=tree scripts/figures/allreduce_latency.lua once
if arg[1] == "once" then
  mpi.allreduce(1.0, mpi.SUM)
  return
end
local csv, quick = arg[1] == "csv", arg[2] == "quick"
local reps = quick and 2 or 5
local size = mpi.size()

-- latency of one call of f: every rank starts together (after a barrier),
-- the call is over when the last rank leaves it; the mean of reps. The
-- harness uses the hardware directly (global interrupt, collective
-- network), so that only the call measured runs the algorithm chosen.
local function latency(f)
  local total = 0
  for _ = 1, reps do
    ml.gi_barrier()
    local t0 = mpi.wtime()
    f()
    total = total + ml.tree_reduce(mpi.wtime() - t0, mpi.MAX)
  end
  return total / reps
end

local x = mpi.allreduce(1.0, mpi.SUM)
assert(x == size, "allreduce of ones gave " .. tostring(x))
local rows = {
  { mpi.coll.algorithm("allreduce"), latency(function() mpi.allreduce(1.0, mpi.SUM) end) },
  { "barrier_" .. mpi.coll.algorithm("barrier"), latency(mpi.barrier) },
}
if mpi.rank() ~= 0 then return end
if csv then
  print("algorithm,ranks,latency_us")
  for _, r in ipairs(rows) do
    print(string.format("%s,%d,%.4f", r[1], size, r[2] * 1e6))
  end
  return
end
local X, Y, Z = ml.dims()
print(string.format("%d ranks on %dx%dx%d", size, X, Y, Z))
print(string.format("allreduce (%s) of one double: %8.2f us", rows[1][1], rows[1][2] * 1e6))
print(string.format("barrier (%s):%s %8.2f us", mpi.coll.algorithm("barrier"),
  string.rep(" ", math.max(0, 20 - #mpi.coll.algorithm("barrier"))), rows[2][2] * 1e6))

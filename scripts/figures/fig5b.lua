-- fig5b.lua: [ML] Fig. 5b, MPI_Bcast bandwidth on a 4x4x2 mesh (32 nodes),
-- root 0, 1 KiB to 4 MiB. The paper: the MPICH default over point-to-point
-- (binomial tree, scatter + allgather for large messages) wins at small sizes
-- but tops out near 60 MB/s; the collective network broadcast reaches ~100%
-- of the tree's 350 MB/s; the deposit-bit torus broadcast over three
-- edge-disjoint routes tops out a bit under two links' worth, about 60% of
-- its 3-link peak, because the CPUs cannot keep up with the traffic.
-- The algorithm is the run's --coll choice; one run per algorithm:
--   bglua -ranks 32 --torus 4x4x2 --mesh --coll bcast=mpich scripts/figures/fig5b.lua
--   bglua -ranks 32 --torus 4x4x2 --mesh --coll bcast=tree scripts/figures/fig5b.lua
--   bglua -ranks 32 --torus 4x4x2 --mesh --coll bcast=torus scripts/figures/fig5b.lua
-- mpich is MPICH's default: binomial below 12 KiB, then (32 ranks is a power
-- of two) a binomial scatter followed by a recursive-doubling allgather
-- below 512 KiB and by a ring allgather above; its parts run alone as
-- bcast=binomial, bcast=scatter_recursive_doubling, bcast=scatter_allgather.
-- Add "csv" for CSV on rank 0 (algorithm,bytes,seconds,mbps), "csv quick"
-- for a shorter sweep (up to 256 KiB).
local csv, quick = arg[1] == "csv", arg[2] == "quick"
local alg = mpi.coll.algorithm("bcast")
local rank = mpi.rank()
local largest = quick and 256 * 1024 or 4 * 1024 * 1024
local rows = {}
local bytes = 1024
while bytes <= largest do
  local reps = bytes <= 64 * 1024 and 3 or 1
  local total = 0
  for _ = 1, reps do
    mpi.barrier()
    local t0 = mpi.wtime()
    mpi.bcast(mpi.bytes(bytes), 0)
    -- the broadcast is over when the last rank has the data
    total = total + mpi.allreduce(mpi.wtime() - t0, mpi.MAX)
  end
  local t = total / reps
  rows[#rows + 1] = { bytes, t, bytes / t / 1e6 }
  bytes = bytes * 2
end
if rank ~= 0 then return end
if csv then
  print("algorithm,bytes,seconds,mbps")
  for _, r in ipairs(rows) do
    print(string.format("%s,%d,%.9g,%.2f", alg, r[1], r[2], r[3]))
  end
  return
end
print(string.format("MPI_Bcast, %s, root 0, %d ranks", alg, mpi.size()))
print(string.format("%10s %12s %10s", "bytes", "time", "MB/s"))
local peak = 0
for _, r in ipairs(rows) do
  print(string.format("%10d %9.1f us %10.1f", r[1], r[2] * 1e6, r[3]))
  peak = math.max(peak, r[3])
end
print(string.format("peak %.1f MB/s (paper: MPICH default ~60, tree ~350, torus ~60%% of 3 links)", peak))

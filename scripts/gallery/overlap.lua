-- overlap.lua: how much of a 1 MiB allreduce hides behind computation.
-- Each row computes C ms and allreduces 1 MiB (a ring: --coll picks it), as
--   blocking:     mpi.allreduce, then mpi.compute(C)
--   nonblocking:  req = mpi.iallreduce; mpi.compute(C); mpi.wait(req)
-- and shows the slowest rank's times and their ratio: 1 when nothing
-- overlaps, down to max(C, A) / (C + A) when the shorter of the
-- computation (C) and the allreduce (A) hides wholly behind the longer.
-- In the blocking form the ranks' computations also delay each other: a
-- ring step's rendezvous data is written by its sender's CPU, which may be
-- computing already.
-- Who progresses the nonblocking allreduce is the model's choice:
--   bglua -n 7 --coll allreduce=ring scripts/gallery/overlap.lua                           (CPU 1 does)
--   bglua -n 7 --coll allreduce=ring --progress-model inline scripts/gallery/overlap.lua   (only in MPI calls)
--   bglua -n 14 --mode vn --coll allreduce=ring scripts/gallery/overlap.lua               (no coprocessor)
-- Arguments: the sizes of computation in ms (default 0 5 10 20 40).
local me = mpi.rank()
local ms = {}
for i = 1, #arg do ms[i] = tonumber(arg[i]) end
if #ms == 0 then ms = { 0, 5, 10, 20, 40 } end

local v = mpi.bytes(1048576)

-- lap runs f on every rank after a barrier and returns the slowest rank's
-- time in ms.
local function lap(f)
  mpi.barrier()
  local t0 = mpi.wtime()
  f()
  return mpi.allreduce(mpi.wtime() - t0, mpi.MAX) * 1e3
end

local alone = lap(function() mpi.allreduce(v) end)
if me == 0 then
  print(string.format("1 MiB allreduce on %d ranks (%s), progress: %s; allreduce alone %.2f ms",
    mpi.size(), select(2, mpi.coll.algorithm("allreduce")), mpi.progress_model(), alone))
  print(string.format("%10s %14s %14s %10s", "compute ms", "blocking ms", "nonblocking ms", "nb/blk"))
end
for _, c in ipairs(ms) do
  local secs = c / 1e3
  local b = lap(function()
    mpi.allreduce(v)
    mpi.compute(secs)
  end)
  local n = lap(function()
    local req = mpi.iallreduce(v)
    mpi.compute(secs)
    mpi.wait(req)
  end)
  if me == 0 then
    print(string.format("%10g %14.2f %14.2f %10.2f", c, b, n, n / b))
  end
end

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
-- "csv" instead prints CSV on rank 0 (variant,compute_ms,time_ms) for
-- 0 to 40 ms in steps of 2 ("csv quick": 0 10 20 40), the figure
-- `go run ./scripts/figures -only overlap` draws: one row per computation
-- size and variant, the variants "blocking", "nonblocking <progress model>"
-- and the references "max(compute; allreduce)" (all overlapped) and
-- "compute + allreduce" (nothing overlapped), from the allreduce alone of
-- this run. Blocking calls and the allreduce alone do not depend on the
-- progress model: only the run under the default model prints their rows,
-- so that the figure's runs, one per model, join without repeats.
local me = mpi.rank()
local csv, quick = arg[1] == "csv", arg[2] == "quick"
local ms = {}
if csv then
  if quick then
    ms = { 0, 10, 20, 40 }
  else
    for c = 0, 40, 2 do ms[#ms + 1] = c end
  end
else
  for i = 1, #arg do ms[i] = tonumber(arg[i]) end
end
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
local model = mpi.progress_model()
local shared = model == "coprocessor"
if csv and me == 0 then
  print("variant,compute_ms,time_ms")
elseif me == 0 then
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
  if csv and me == 0 then
    local function row(variant, t)
      print(string.format("%s,%g,%.4f", variant, c, t))
    end
    if shared then
      row("blocking", b)
    end
    row("nonblocking " .. model, n)
    if shared then
      row("max(compute; allreduce)", math.max(c, alone))
      row("compute + allreduce", c + alone)
    end
  elseif me == 0 then
    print(string.format("%10g %14.2f %14.2f %10.2f", c, b, n, n / b))
  end
end

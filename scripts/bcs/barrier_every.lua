-- barrier_every.lua: the [BCS] self-check of section 5.3. Every rank
-- computes 1.9 ms, then calls barrier, over and over. With a 250 us slice
-- the runtime must schedule a barrier every nine slices, and the slices
-- must stay 250-270 us long (see emds_global.csv).
--
--   bglua -ranks 64 --runtime bcs --timeslice 250us --mds emds scripts/bcs/barrier_every.lua [iterations]
local iters = tonumber(arg[1]) or 20
local last, gaps = nil, {}
for i = 1, iters do
  mpi.compute(1.9e-3)
  mpi.barrier()
  local s = bcs.timeslice()
  if last then gaps[#gaps + 1] = s - last end
  last = s
end
if mpi.rank() == 0 then
  local lo, hi = math.huge, -math.huge
  for _, g in ipairs(gaps) do lo, hi = math.min(lo, g), math.max(hi, g) end
  print(string.format("%d barriers, one every %d to %d slices (paper: every 9 with 1.9 ms of compute and 250 us slices)", iters, lo, hi))
end

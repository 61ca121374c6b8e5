-- blocking_send.lua: the cost of one blocking send under bcs, posted at a
-- uniformly random point of a slice while its receiver already waits.
-- [BCS]: 1.5 slices on average (matched and moved in the next slice, the
-- sender restarts at the one after).
--
--   bglua -ranks 2 --runtime bcs --timeslice 250us scripts/bcs/blocking_send.lua [samples]
local n = tonumber(arg[1]) or 1000
if mpi.rank() == 0 then
  local slice = bcs.slice_length()
  local total, lo, hi = 0, math.huge, 0
  for i = 1, n do
    mpi.compute(math.random() * 4 * slice) -- lands anywhere in a slice
    local t0 = mpi.wtime()
    mpi.send(i, 1)
    local d = (mpi.wtime() - t0) / slice
    total, lo, hi = total + d, math.min(lo, d), math.max(hi, d)
  end
  print(string.format("%d blocking sends, slice %.0f us: %.3f slices on average (min %.3f, max %.3f); paper: 1.5",
    n, slice * 1e6, total / n, lo, hi))
else
  for i = 1, n do mpi.recv(0) end
end

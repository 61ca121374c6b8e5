-- fig4a.lua: [ML] Fig. 4a, MPI latency (half round trip of a 1-byte
-- message) against Manhattan distance on the torus: the paper measured 3.35 us
-- at one hop and about 90 ns for every further hop, a straight line.
-- Run: bglua -ranks 64 --torus 64x1x1 --mesh scripts/figures/fig4a.lua [csv]
-- With "csv", rank 0 prints only CSV lines, the header first.
-- Rank 0 ping-pongs with one partner at a time; the partners wait in recv, so
-- no other traffic disturbs the measurement.
local rank, size = mpi.rank(), mpi.size()
local reps = 10
local function partner(d) return d % 4 == 1 end
if rank ~= 0 then
  if partner(rank) then
    for _ = 0, reps do
      mpi.recv(0); mpi.send("x", 0)
    end
  end
  return
end
local rows = {}
for dist = 1, size - 1 do
  if partner(dist) then
    local t0
    for i = 0, reps do
      if i == 1 then t0 = mpi.wtime() end -- round 0 wakes the partner
      mpi.send("x", dist); mpi.recv(dist)
    end
    rows[#rows + 1] = { ml.hops(0, dist), (mpi.wtime() - t0) / (2 * reps) }
  end
end
if arg[1] == "csv" then -- for scripts/figures/main.go, which fits the line itself
  print("hops,latency_us")
  for _, r in ipairs(rows) do print(string.format("%d,%.4f", r[1], r[2] * 1e6)) end
  return
end
-- least-squares line through the points
local n, sx, sy, sxx, sxy = #rows, 0, 0, 0, 0
for _, r in ipairs(rows) do
  sx, sy, sxx, sxy = sx + r[1], sy + r[2], sxx + r[1] * r[1], sxy + r[1] * r[2]
end
local slope = (n * sxy - sx * sy) / (n * sxx - sx * sx)
local at1 = (sy - slope * sx) / n + slope
print(string.format("%5s %10s", "hops", "latency"))
for _, r in ipairs(rows) do
  print(string.format("%5d %8.3f us", r[1], r[2] * 1e6))
end
print(string.format("fit: %.3f us at 1 hop (paper 3.35), %.1f ns per hop (paper 90)", at1 * 1e6, slope * 1e9))

-- common.lua: what every bench workload shares with its C twin in ../smpi.
-- The workload's simulated time is rank 0's MPI_Wtime from its start to its
-- end, printed as "time <seconds>" (the same line as common.h prints).
local M = {}

-- args returns the script's arguments as numbers, erroring on missing ones.
function M.args(names)
  local out = {}
  for i, name in ipairs(names) do
    local v = tonumber(arg[i])
    if not v then error("usage: " .. table.concat(names, " ") .. " (missing " .. name .. ")", 2) end
    out[i] = v
  end
  return (table.unpack or unpack)(out)
end

-- check_dims errors unless the ranks form the X x Y x Z grid of the run's
-- torus (the C side is told the dimensions; bglua must run on the same ones).
-- In virtual-node mode the default XYZT mapping puts a node's second rank a
-- whole torus further on, so the rank grid is the torus with its T slots
-- stacked along z: --torus 64x32x32 --mode vn is the grid 64 x 32 x 64.
function M.check_dims(X, Y, Z)
  if X * Y * Z ~= mpi.size() then
    error(string.format("the workload was given the rank grid %dx%dx%d, %d ranks, but the run has %d: pass -n %d",
      X, Y, Z, X * Y * Z, mpi.size(), X * Y * Z), 2)
  end
  local x, y, z, t = ml.dims()
  if x ~= X or y ~= Y or z * t ~= Z then
    local want = Z % t == 0 and string.format("--torus %dx%dx%d", X, Y, math.floor(Z / t)) or "another torus"
    error(string.format("torus is %dx%dx%d with %d rank(s) per node, the workload was given the rank grid %dx%dx%d: pass %s",
      x, y, z, t, X, Y, Z, want), 2)
  end
end

function M.report(t0)
  local t = mpi.wtime() - t0
  if mpi.rank() == 0 then print(string.format("time %.9e", t)) end
end

return M

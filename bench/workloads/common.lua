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

-- check_dims errors unless the run's torus is X x Y x Z (the C side is told
-- the dimensions; bglua must run on the same ones).
function M.check_dims(X, Y, Z)
  local x, y, z = ml.dims()
  if x ~= X or y ~= Y or z ~= Z then
    error(string.format("torus is %dx%dx%d, the workload was given %dx%dx%d: pass --torus %dx%dx%d",
      x, y, z, X, Y, Z, X, Y, Z), 2)
  end
end

function M.report(t0)
  local t = mpi.wtime() - t0
  if mpi.rank() == 0 then print(string.format("time %.9e", t)) end
end

return M

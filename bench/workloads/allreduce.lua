-- allreduce.lua COUNT: COUNT allreduces (sum) of one double.
-- Twin of ../smpi/allreduce.c.
local c = require "common"
local count = c.args { "COUNT" }
local t0 = mpi.wtime()
local x = 1.0
for _ = 1, count do x = mpi.allreduce(1.0, mpi.SUM) end
if count > 0 and x ~= mpi.size() then error("allreduce gave " .. tostring(x)) end
c.report(t0)

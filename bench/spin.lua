-- Every rank spins in pure Lua after a barrier: only a limit or an
-- interrupt ends it (bench/interrupt.sh).
mpi.barrier()
local x = 0
while true do x = x + 1 end

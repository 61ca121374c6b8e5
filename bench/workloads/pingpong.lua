-- pingpong.lua BYTES REPS PEER: REPS round trips of a BYTES-byte message
-- between rank 0 and rank PEER; the other ranks do nothing.
-- Twin of ../smpi/pingpong.c.
local c = require "common"
local bytes, reps, peer = c.args { "BYTES", "REPS", "PEER" }
local rank = mpi.rank()
if peer <= 0 or peer >= mpi.size() then error("PEER must be in 1.." .. mpi.size() - 1) end
local msg = mpi.bytes(bytes)
local t0 = mpi.wtime()
if rank == 0 then
  for _ = 1, reps do mpi.send(msg, peer, 1); mpi.recv(peer, 1) end
elseif rank == peer then
  for _ = 1, reps do mpi.recv(0, 1); mpi.send(msg, 0, 1) end
end
c.report(t0)

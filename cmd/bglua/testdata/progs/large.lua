-- Rank 0 sends rank 1 four messages of 64 KiB back to back, and rank 1
-- sends one back (exact coarsening, docs/scale.md): the first transfer is
-- recorded and all are leased; each of the first three meets the next
-- one's first packet while its own last packets are still on the link, so
-- it breaks there and runs again from its last batch on (a checkpoint).
local r = mpi.rank()
if r == 0 then
  for _ = 1, 4 do mpi.send(mpi.bytes(65536), 1) end
  mpi.recv(1)
elseif r == 1 then
  for _ = 1, 4 do mpi.recv(0) end
  mpi.send(mpi.bytes(65536), 0)
end

-- Ranks 0 and 1 pass a message of 64 KiB back and forth four times: the
-- first transfer each way is recorded, the later ones are leased (exact
-- coarsening: docs/scale.md).
local r = mpi.rank()
for _ = 1, 4 do
  if r == 0 then
    mpi.send(mpi.bytes(65536), 1)
    mpi.recv(1)
  elseif r == 1 then
    mpi.recv(0)
    mpi.send(mpi.bytes(65536), 0)
  end
end

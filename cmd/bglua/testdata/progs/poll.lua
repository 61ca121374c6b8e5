-- Polling loops let virtual time move: each ends when its message arrives
-- (rank 0 sends after 1 ms of computation), on every machine and mode.
local rank = mpi.rank()
local got = 0
ml.register("h", function() got = got + 1 end)
if rank == 0 then
  for _, what in ipairs{"ml", "test", "testall", "iprobe"} do
    mpi.compute(1e-3)
    if what == "ml" then ml.send(1, "h", "x") else mpi.send(what, 1) end
  end
elseif rank == 1 then
  while got == 0 do ml.advance() end
  print(string.format("ml.advance loop ended at %.1f us", mpi.wtime() * 1e6))
  local req = mpi.irecv(0)
  while not mpi.test(req) do end
  print(string.format("mpi.test loop ended at %.1f us", mpi.wtime() * 1e6))
  local reqs = {mpi.irecv(0)}
  while not mpi.testall(reqs) do end
  print(string.format("mpi.testall loop ended at %.1f us", mpi.wtime() * 1e6))
  while not mpi.iprobe(0) do end
  print(string.format("mpi.iprobe loop ended at %.1f us", mpi.wtime() * 1e6))
  mpi.recv(0)
end

-- The message layer's protocols from Lua: what ml.send picks, what
-- ml.set_protocol makes MPI use, the virtual-node protocol, coprocessor
-- work units. Run with -n 4, in co and in vn mode.
local rank, size = mpi.rank(), mpi.size()
local seen = {}
ml.register("h", function(src, data, info) seen[#seen + 1] = string.format("%s from %d (%d bytes)", info.protocol, src, info.bytes) end)

-- ml.send: by size, or named; done runs once the send is complete. In vn
-- mode XYZT puts ranks r and r+2 on one node: they talk with the
-- virtual-node protocol whatever is asked.
local done = 0
local peer = ml.mode() == "vn" and (rank + 2) % size or (rank + 1) % size
for _, p in ipairs { "auto", "onepacket", "eager", "adaptive", "rendezvous" } do
  local data = p == "onepacket" and 1 or string.rep("x", 3000)
  ml.send(peer, "h", data, { protocol = p, done = function() done = done + 1 end })
end
ml.wait(function() return #seen == 5 and done == 5 end)
table.sort(seen)
if rank == 0 then print(table.concat(seen, "; ")) end

-- MPI with one protocol for everything, then back to the size rule
local function pingpong(proto)
  local was = ml.set_protocol(proto)
  assert(was == "auto")
  mpi.barrier()
  local t0 = mpi.wtime()
  if rank % 2 == 0 then
    mpi.send(1, rank + 1); mpi.recv(rank + 1)
  else
    mpi.recv(rank - 1); mpi.send(2, rank - 1)
  end
  ml.set_protocol("auto")
  return (mpi.wtime() - t0) * 1e6
end
local row = {}
for _, p in ipairs { "onepacket", "eager", "adaptive", "rendezvous" } do
  row[#row + 1] = string.format("%s %.2f us", p, pingpong(p))
end
if rank == 0 then print("MPI round trips to rank 1: " .. table.concat(row, ", ")) end

if ml.mode() == "co" then
  -- a work unit on CPU 1 overlaps the main CPU's work
  local t0 = mpi.wtime()
  local h = ml.costart(function() mpi.compute(2e-3); return "unit done" end)
  mpi.compute(1e-3)
  local r = ml.cojoin(h)
  -- an error in a work unit reaches the caller; mpi.compute is the rank's
  -- own again afterwards
  local ok, err = pcall(ml.costart, function() mpi.compute(1e-3); error("unit failed") end)
  local t1 = mpi.wtime()
  mpi.compute(1e-3)
  if rank == 0 then
    print(string.format("%s after %.3f ms (2 ms on CPU 1, 1 ms on CPU 0)", r, (t1 - t0) * 1e3))
    print("failing unit:", ok, err, string.format("then 1 ms of compute took %.3f ms", (mpi.wtime() - t1) * 1e3))
    print("coprocessor help was", ml.set_cohelp(false), "now", ml.set_cohelp(true))
  end
elseif rank == 0 then
  print("costart:", select(2, pcall(ml.costart, function() end)))
end

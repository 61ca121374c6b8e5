-- Point-to-point semantics: order, wildcards, status, nonblocking, probe,
-- sendrecv, payload types, split communicators.
local rank, size = mpi.rank(), mpi.size()
if rank == 0 then
  -- non-overtaking: messages from one source arrive in send order
  for i = 1, 3 do mpi.send(i, 1, 9) end
  mpi.send({ a = 1, list = { 1, 2, 3 }, s = "x" }, 2)
  mpi.send(mpi.bytes(5000), 3, 4)
elseif rank == 1 then
  local got = {}
  for i = 1, 3 do got[i] = mpi.recv(0, mpi.ANY_TAG) end
  print("in order:", table.concat(got, ","))
elseif rank == 2 then
  local v, st = mpi.recv()
  print("table:", v.a, v.s, #v.list, "from", st.source, "tag", st.tag, "bytes", st.bytes)
elseif rank == 3 then
  local st = mpi.probe(0, 4)
  print("probe:", st.source, st.tag, st.bytes)
  local v = mpi.recv(0, 4)
  print("phantom:", tostring(v), #v)
end
mpi.barrier()
-- nonblocking ring with waitall and waitany
local left, right = (rank - 1) % size, (rank + 1) % size
local r1 = mpi.irecv(left, 1)
local s1 = mpi.isend(rank * 10, right, 1)
local data = mpi.waitall { r1, s1 }
local i, v = mpi.waitany { mpi.isend(rank, right, 2), mpi.irecv(left, 2) }
local flag = mpi.iprobe(left, 77)
local sr = mpi.sendrecv(rank, right, left)
print(string.format("ring: got %d from left, waitany -> %d, iprobe %s, sendrecv %d", data[1], i, tostring(flag), sr))
-- split into even and odd ranks
local sub = mpi.COMM_WORLD:split(rank % 2, -rank)
local total = sub:allreduce(rank, mpi.SUM)
print(string.format("sub %d/%d sum %d %s", sub:rank(), sub:size(), total, tostring(sub)))
-- bad arguments are Lua errors at the call site
print("bad dest:", pcall(mpi.send, 1, size))
print("function:", pcall(mpi.send, print, 0))
local cyc = {}
cyc.self = cyc
print("cycle:", pcall(mpi.send, cyc, 0))

-- MPI-3 point-to-point (issue 22) on 6 ranks: a synchronous send against a
-- standard one, matched probes, cancel, persistent requests and
-- neighbourhood collectives on a 2x3 grid. With the argument "bcs" (run
-- under --runtime bcs) the matched receive's sender waits for its slices.
local me, n = mpi.rank(), mpi.size()
local bcs_run = arg[1] == "bcs"
local function us(t) return string.format("%.3fus", t * 1e6) end

-- 1. Rank 1 posts its receives 50 us late: the standard send of 8 bytes
-- returns at once, the synchronous one only after the receive is posted.
if me == 0 then
  local t0 = mpi.wtime()
  mpi.send(1, 1, 1)
  print("send returned after " .. us(mpi.wtime() - t0))
  t0 = mpi.wtime()
  mpi.ssend(2, 1, 2)
  print("ssend returned after " .. us(mpi.wtime() - t0))
elseif me == 1 then
  mpi.compute(50e-6)
  print("receives posted at " .. us(mpi.wtime()))
  local a = mpi.recv(0, 1)
  local b = mpi.recv(0, 2)
  print("got " .. a .. " and " .. b)
end
mpi.barrier()

-- 2. Matched probes: rank 2 takes "first" out of matching; a plain receive
-- of the same source and tag then gets "second". (Nonblocking sends: under
-- bcs a send waits for its receive, and "first" is received last.)
do
  if me == 3 then
    mpi.waitall({ mpi.isend("first", 2, 7), mpi.isend("second", 2, 7) })
  elseif me == 2 then
    local msg, st = mpi.mprobe(3, 7)
    print("mprobe: " .. tostring(msg) .. " " .. tostring(st))
    local other = mpi.recv(3, 7)
    local data = mpi.mrecv(msg)
    print("recv got " .. other .. ", mrecv got " .. data .. ", " .. tostring(msg))
    print("improbe of nothing: " .. tostring(mpi.improbe(3, 7)))
  end

  -- 3. Cancel: a receive nobody sends to is cancelled; one already matched
  -- completes normally.
  if me == 4 then
    local never = mpi.irecv(5, 99)
    mpi.cancel(never)
    local data, st = mpi.wait(never)
    print("cancelled: data " .. tostring(data) .. ", " .. tostring(st) .. ", st.cancelled " .. tostring(st.cancelled))
    local req = mpi.irecv(5, 1)
    mpi.compute(bcs_run and 2e-3 or 20e-6) -- under bcs, matched at a strobe
    req:cancel()
    data, st = req:wait()
    print("matched before the cancel: " .. data .. ", st.cancelled " .. tostring(st.cancelled))
  elseif me == 5 then
    mpi.send("kept", 4, 1)
  end
  mpi.barrier()
end

-- 4. Persistent requests: a ring shift started three times.
local right, left = (me + 1) % n, (me + n - 1) % n
local value = me * 10
local s = mpi.send_init(value, right, 4)
local r = mpi.recv_init(left, 4)
local got = {}
for round = 1, 3 do
  mpi.startall({ r, s })
  local data = mpi.waitall({ r, s })
  got[#got + 1] = data[1]
end
print("persistent: from " .. left .. " got " .. table.concat(got, ","))

-- 5. Neighbourhood collectives on a 2x3 grid, rows periodic, columns open.
local cart = mpi.cart_create(mpi.COMM_WORLD, { 2, 3 }, { true, false })
local all = cart:neighbor_allgather(cart:rank())
local out = {}
for i = 1, 4 do out[i] = cart:rank() * 10 + i end
local back = cart:neighbor_alltoall(out)
local function show(t)
  local parts = {}
  for i = 1, t.n do parts[i] = tostring(t[i]) end
  return "{" .. table.concat(parts, ", ") .. "}"
end
print("neighbors " .. show(all) .. " alltoall " .. show(back))

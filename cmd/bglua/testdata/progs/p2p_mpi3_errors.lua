-- Misuse of the MPI-3 point-to-point calls: each case ends the run with one
-- error naming the call.
local case = arg[1]
local me = mpi.rank()
if case == "mrecv_twice" then
  if me == 0 then
    mpi.send("x", 1)
  else
    local msg = mpi.mprobe(0)
    mpi.mrecv(msg)
    mpi.mrecv(msg)
  end
elseif case == "start_active" then
  local r = mpi.recv_init(1 - me)
  mpi.start(r)
  mpi.start(r)
elseif case == "startall_active" then
  local s = mpi.send_init(me, 1 - me)
  local r = mpi.recv_init(1 - me)
  mpi.startall({ s, r })
  mpi.startall({ r, s })
elseif case == "start_plain" then
  mpi.start(mpi.isend(me, 1 - me))
elseif case == "cancel_send" then
  mpi.cancel(mpi.isend(me, 1 - me))
elseif case == "neighbor_world" then
  mpi.COMM_WORLD:neighbor_allgather(me)
elseif case == "neighbor_split" then
  mpi.split(0):neighbor_alltoall({ me, me })
elseif case == "neighbor_short" then
  local cart = mpi.cart_create(mpi.COMM_WORLD, { 2 }, { true })
  cart:neighbor_alltoall({ me })
end

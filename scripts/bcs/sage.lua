-- sage.lua: a SAGE-like bulk-synchronous code ([BCS] section 6.2): every
-- step computes, exchanges halos with its six neighbours on a 3D process
-- grid, and ends with an allreduce (the time step's global minimum).
--
--   bglua -ranks 64 [--runtime bcs] scripts/bcs/sage.lua [nonblocking|blocking] [steps] [compute_ms]
--
-- nonblocking (SAGE's own form): irecv/isend of every face, then waitall.
-- blocking: sendrecv face by face.
local form = arg[1] or "nonblocking"
local steps = tonumber(arg[2]) or 20
local work = (tonumber(arg[3]) or 10) * 1e-3
assert(form == "blocking" or form == "nonblocking", "form must be blocking or nonblocking")
local rank, size = mpi.rank(), mpi.size()
local dims = mpi.dims_create(size, { 0, 0, 0 })
local cart = mpi.cart_create(mpi.COMM_WORLD, dims, { true, true, true })
local halo = mpi.bytes(32 * 32 * 8 * 2) -- two layers of a 32x32 face of doubles
local t0 = mpi.wtime()
local dt = 1.0
for step = 1, steps do
  mpi.compute(work * (1 + 0.05 * math.sin(rank + step))) -- a little imbalance
  if form == "nonblocking" then
    local reqs = {}
    for d = 0, 2 do
      local lo, hi = cart:shift(d, 1)
      reqs[#reqs + 1] = cart:irecv(lo, d)
      reqs[#reqs + 1] = cart:irecv(hi, 10 + d)
      reqs[#reqs + 1] = cart:isend(halo, hi, d)
      reqs[#reqs + 1] = cart:isend(halo, lo, 10 + d)
    end
    mpi.waitall(reqs)
  else
    for d = 0, 2 do
      local lo, hi = cart:shift(d, 1)
      cart:sendrecv(halo, hi, lo, d, d)
      cart:sendrecv(halo, lo, hi, 10 + d, 10 + d)
    end
  end
  dt = mpi.allreduce(dt * 0.99 + rank * 1e-9, mpi.MIN)
end
local elapsed = mpi.allreduce(mpi.wtime() - t0, mpi.MAX)
if rank == 0 then
  print(string.format("sage %s: %d ranks, %d steps of %.1f ms compute: %.2f ms", form, size, steps, work * 1e3, elapsed * 1e3))
end

-- Blocking MPI calls work anywhere in Lua: inside pcall, a coroutine of the
-- user's own, a metamethod and a generic-for iterator.
local rank, size = mpi.rank(), mpi.size()
local peer = (rank + 1) % size
local from = (rank - 1) % size
local function exchange(v)
  mpi.send(v, peer)
  return (mpi.recv(from))
end
local ok, v = pcall(exchange, rank)
print("pcall", ok, v)
local co = coroutine.create(function(x)
  local got = exchange(x)
  coroutine.yield(got)
  return exchange(got + 100)
end)
local _, a = coroutine.resume(co, rank * 10)
local _, b = coroutine.resume(co)
print("coroutine", a, b)
local lazy = setmetatable({}, { __index = function(_, k) return exchange(k) end })
print("metamethod", lazy[rank + 1000])
local function rounds(n)
  local i = 0
  return function()
    i = i + 1
    if i <= n then return i, exchange(i) end
  end
end
local sum = 0
for _, got in rounds(3) do sum = sum + got end
print("iterator", sum, string.format("t=%.2fus", mpi.wtime() * 1e6))

-- A 2-D five-point stencil on a cartesian communicator: rows wrap around
-- (periodic), columns do not (mpi.PROC_NULL at the edges, whose messages
-- vanish and whose receives give nil). Then the cart queries and errors.
local size = mpi.size()
local dims = mpi.dims_create(size, { 0, 0 })
local cart = mpi.cart_create(mpi.COMM_WORLD, dims, { true, false })
local me = cart:rank()
local c = cart:coords()
if me == 0 then
  local d, p = cart:dims()
  print(string.format("%s: dims %dx%d, periods %s %s", tostring(cart), d[1], d[2], tostring(p[1]), tostring(p[2])))
end

-- Every rank's neighbours, as the grid sees them.
local up, down = cart:shift(0, 1)
local left, right = cart:shift(1, 1)
print(string.format("coords (%d,%d) up %d down %d left %d right %d", c[1], c[2], up, down, left, right))
assert(cart:rank_of(c) == me)
assert(cart:rank_of({ c[1] + dims[1], c[2] }) == me) -- rows wrap

-- Three Jacobi sweeps: the new value is the sum of the old one and its four
-- neighbours' (0 past an open edge). Values stay integers, so every run
-- prints the same grid.
local v = me
for _ = 1, 3 do
  local function from(dim)
    local src, dst = cart:shift(dim, 1)
    local a = cart:sendrecv(v, dst, src) -- from src (behind), to dst (ahead)
    local b = cart:sendrecv(v, src, dst) -- and the other way
    return (a or 0) + (b or 0)
  end
  v = v + from(0) + from(1)
end
local all = cart:gather(v, 0)
if me == 0 then
  for i = 0, dims[1] - 1 do
    local row = {}
    for j = 0, dims[2] - 1 do
      row[#row + 1] = string.format("%6d", all[cart:rank_of({ i, j }) + 1])
    end
    print("row " .. i .. ":" .. table.concat(row))
  end
  -- A two-step shift along the open dimension, and the errors.
  print("shift(1, 2) from 0:", cart:shift(1, 2))
  print("shift(1, -1) from 0:", cart:shift(1, -1))
  for _, f in ipairs({
    function() return mpi.dims_create(size, { 5, 0 }) end,
    function() return cart:rank_of({ 0, dims[2] }) end,
    function() return cart:coords(size) end,
    function() return cart:shift(2, 1) end,
  }) do
    print("error:", select(2, pcall(f)))
  end
end
-- A bad cart_create fails alike on every rank, before any message.
local ok, err = pcall(mpi.cart_create, mpi.COMM_WORLD, { 5, 5 }, { false, false })
if me == 0 then print("error:", err) end

-- coll: classic collective algorithms in plain Lua, to read, copy and change.
--
--   local coll = require "coll"
--   mpi.coll.register("bcast", "lua_binomial", coll.binomial_bcast)
--   -- run with: bglua --coll bcast=lua_binomial prog.lua
--   coll.register_all()  -- or register every algorithm below (coll.algorithms)
--
-- Every function has the signature mpi.coll.register expects: it is called as
-- fn(comm, args..., params) with the arguments of the user's call (bcast:
-- data, root; allreduce: value, op; allgather: value; alltoall: t) and the
-- table of parameters --coll gave it (--coll bcast=lua_binomial:seg=32k gives
-- {seg = 32768}; empty without; these take none and ignore it), and returns
-- what the built-in returns on that rank. Ranks are 0-based; a table with one value per
-- rank is 1-based (t[r + 1] belongs to rank r) and sets t.n = size, so that
-- nil values at its end still count.
--
-- comm is a view of the user's communicator with a message context of its
-- own: these messages never meet the user's, nor those of the built-in
-- algorithms, so one tag is enough. Receive from named sources, never from
-- mpi.ANY_SOURCE: a rank that runs ahead may already be sending the messages
-- of the next collective on the same communicator, and only per-source order
-- (MPI's non-overtaking rule) keeps them apart.
--
-- op is the user's operator: mpi.SUM and friends are callable (op(a, b)), as
-- user functions are. Combine as op(lower ranks, higher ranks), so that an
-- operator that does not commute (string concatenation, say) gives the same
-- result as the built-ins.
--
-- Nonblocking forms: an algorithm registered for a collective serves its
-- nonblocking form too (--coll allreduce=lua_recursive_doubling runs
-- mpi.iallreduce with coll.recursive_doubling_allreduce). Write it blocking,
-- as these are: the nonblocking call runs it on a coroutine of the rank's
-- state of its own, beside the program, whose comm:recv and friends park
-- only that coroutine, while the program goes on until it waits:
--   local req = mpi.iallreduce(v)   -- starts the registered algorithm
--   mpi.compute(0.02)               -- overlaps it (coprocessor progress)
--   local sum = mpi.wait(req)       -- what mpi.allreduce would return
--
-- Lua 5.1 has no integer division and no bit operators: math.floor(a / b) and
-- % (which is never negative for a positive modulus) stand in for them.

local coll = {}

local TAG = 0

local floor, min = math.floor, math.min

-- Binomial tree broadcast (MPICH's for short messages).
-- Why: the number of ranks that hold the data doubles every round, so the
-- latency grows with log n, and no rank sends more than log n messages.
-- Cost: ceil(log2 n) rounds of one full-size message; n - 1 messages in all.
-- Ranks are numbered relative to the root (rel = rank - root mod n), so the
-- same tree hangs from any root. A rank receives from rel - m, m its lowest
-- set bit, then sends to rel + m/2, rel + m/4, ..., rel + 1 (those below n),
-- biggest subtree first.
function coll.binomial_bcast(comm, data, root)
  local n, me = comm:size(), comm:rank()
  local rel = (me - root) % n
  local mask = 1
  while mask < n do
    if rel % (2 * mask) ~= 0 then -- mask is my lowest set bit
      data = comm:recv((rel - mask + root) % n, TAG)
      break
    end
    mask = mask * 2
  end
  mask = floor(mask / 2)
  while mask > 0 do
    if rel + mask < n then
      comm:send(data, (rel + mask + root) % n, TAG)
    end
    mask = floor(mask / 2)
  end
  return data
end

-- Ring allgather.
-- Why: every step every rank sends one block to its right neighbour and gets
-- one from its left: all links busy, each block crosses each link once. On a
-- torus with the default mapping neighbours in rank order are one hop apart.
-- Best for large blocks.
-- Cost: n - 1 steps of one block each; latency grows with n, not log n.
function coll.ring_allgather(comm, value)
  local n, me = comm:size(), comm:rank()
  local right, left = (me + 1) % n, (me - 1) % n
  -- Step k: pass on the block of rank me - k (got[k], mine at k = 0), get
  -- the block of rank me - k - 1 (got[k + 1]). Filling got, and then out, in
  -- index order keeps both in Lua's array part.
  local got = { [0] = value }
  for k = 0, n - 2 do
    got[k + 1] = comm:sendrecv(got[k], right, left, TAG, TAG)
  end
  -- Rank r's block came at step (me - r) mod n.
  local out = { n = n }
  for r = 0, n - 1 do
    out[r + 1] = got[(me - r) % n]
  end
  return out
end

-- Recursive doubling allreduce (MPICH's for short messages).
-- Why: log n exchanges, after which every rank holds the whole reduction:
-- half the latency of reduce + bcast.
-- Cost: floor(log2 n) exchanges of the full value, plus two steps when n is
-- not a power of two: the first 2r ranks (r = n - 2^floor(log2 n)) fold in
-- pairs, the even rank of each pair handing its value to the odd one and
-- sitting out, then get the result back.
-- Order: the survivors keep rank order, and after k exchanges each holds the
-- reduction of a contiguous block of 2^k of them; a partner below me holds
-- the block before mine. So op(theirs, mine) if partner < me keeps rank order.
function coll.recursive_doubling_allreduce(comm, value, op)
  local n, me = comm:size(), comm:rank()
  local pof2 = 1
  while pof2 * 2 <= n do
    pof2 = pof2 * 2
  end
  local rem = n - pof2
  local newrank -- my rank among the pof2 survivors, or -1
  if me < 2 * rem then
    if me % 2 == 0 then
      comm:send(value, me + 1, TAG)
      newrank = -1
    else
      value = op(comm:recv(me - 1, TAG), value)
      newrank = (me - 1) / 2
    end
  else
    newrank = me - rem
  end
  if newrank >= 0 then
    local mask = 1
    while mask < pof2 do
      -- newrank xor mask, without bit operators
      local newpartner = floor(newrank / mask) % 2 == 0 and newrank + mask or newrank - mask
      local partner = newpartner < rem and newpartner * 2 + 1 or newpartner + rem
      local theirs = comm:sendrecv(value, partner, partner, TAG, TAG)
      if partner < me then
        value = op(theirs, value)
      else
        value = op(value, theirs)
      end
      mask = mask * 2
    end
  end
  if me < 2 * rem then -- unfold
    if me % 2 == 1 then
      comm:send(value, me - 1, TAG)
    else
      value = comm:recv(me + 1, TAG)
    end
  end
  return value
end

-- Bruck alltoall (Bruck et al. 1997; MPICH's for short messages).
-- Why: ceil(log2 n) steps instead of n - 1, at the price of sending each
-- block up to log n times: it wins when messages are small and latency
-- dominates.
-- Cost: ceil(log2 n) steps, each about n/2 blocks to one rank.
-- 1. Rotate: local block i is the one for rank me + i.
-- 2. For each power of two k: send the blocks whose index has bit k set to
--    rank me + k, and take the same indices from rank me - k. A block moves
--    i ranks forward in all, to its destination me + i.
-- 3. There, block i came from rank me - i: undo the rotation.
function coll.bruck_alltoall(comm, t)
  local n, me = comm:size(), comm:rank()
  -- blk[i + 1] is local block i. Tables filled 1, 2, 3, ... in order keep
  -- their values in Lua's array part, which is what makes this fast: a
  -- table indexed from 0, or filled out of order, or with gaps, is a hash.
  local blk = {}
  for i = 0, n - 1 do
    blk[i + 1] = t[(me + i) % n + 1]
  end
  local k = 1
  while k < n do
    -- The blocks whose index has bit k set, packed in index order: the
    -- receiver unpacks the same indices in the same order. (A nil block
    -- leaves a hole that the message keeps.)
    -- Those indices come in runs of k: k .. 2k-1, 3k .. 4k-1, ...
    local out, j = {}, 0
    for base = k, n - 1, 2 * k do
      for i = base + 1, min(base + k, n) do
        j = j + 1
        out[j] = blk[i]
      end
    end
    local got = comm:sendrecv(out, (me + k) % n, (me - k) % n, TAG, TAG)
    j = 0
    for base = k, n - 1, 2 * k do
      for i = base + 1, min(base + k, n) do
        j = j + 1
        blk[i] = got[j]
      end
    end
    k = k * 2
  end
  -- Block i came from rank me - i: result[r + 1] is block (me - r) mod n.
  local result = { n = n }
  for r = 0, n - 1 do
    result[r + 1] = blk[(me - r) % n + 1]
  end
  return result
end

-- Geometry of the two torus broadcasts.
--
-- They see the communicator as a box of ranks, x fastest. When it has as
-- many ranks as the partition has slots (ml.dims() -> X, Y, Z, T; T is 2 in
-- virtual node mode), the box is the machine itself, X by Y by Z by T, laid
-- out as the default XYZT mapping places ranks: on COMM_WORLD, rank r of the
-- box sits at ml.coords(r), and a step along x, y or z is one torus hop.
-- Otherwise the box is the most cubic one of n ranks (mpi.dims_create), a
-- logical layout: still correct, no longer one hop a step.

local function box(n)
  local X, Y, Z, T = ml.dims()
  if X * Y * Z * T == n then
    return { X, Y, Z, T }
  end
  return mpi.dims_create(n, { 0, 0, 0 })
end

local function coords_of(r, dims)
  local c = {}
  for d = 1, #dims do
    c[d] = r % dims[d]
    r = floor(r / dims[d])
  end
  return c
end

local function rank_at(c, dims)
  local r, stride = 0, 1
  for d = 1, #dims do
    r = r + c[d] * stride
    stride = stride * dims[d]
  end
  return r
end

-- Line broadcast ([EMU], "Line Broadcast").
-- Why: the emulator paper's first broadcast: from a corner, the data streams
-- along a line to the far edge, every node of that line starts a line along
-- the next dimension (corner to face), and every node of the face a line
-- along the last one, a stream of messages to the opposite face. Every
-- message goes one hop, handlers do almost nothing, but the depth is the
-- sum of the extents.
-- Cost: sum(D - 1) steps deep (about 110 us for 34x34x36 nodes on the
-- earlier design, docs/model.md); n - 1 messages of one hop each.
-- The root is the corner: coordinates are taken relative to it, wrapping
-- around (a torus has no corner, so every node can be one). A rank receives
-- along the highest dimension in which it is off the root, from the rank one
-- step back there, then sends one step ahead along that dimension and every
-- higher one (the root: along every dimension), its own line first.
function coll.line_bcast(comm, data, root)
  local n, me = comm:size(), comm:rank()
  local dims = box(n)
  local c0, rel = coords_of(root, dims), coords_of(me, dims)
  for d = 1, #dims do
    rel[d] = (rel[d] - c0[d]) % dims[d]
  end
  local function rank_rel(d, step) -- the rank `step` away from me along d
    local a = {}
    for e = 1, #dims do
      a[e] = (rel[e] + c0[e] + (e == d and step or 0)) % dims[e]
    end
    return rank_at(a, dims)
  end
  local last = 0
  for d = 1, #dims do
    if rel[d] > 0 then
      last = d
    end
  end
  if last > 0 then
    data = comm:recv(rank_rel(last, -1), TAG)
  end
  for d = math.max(last, 1), #dims do
    if rel[d] + 1 < dims[d] then
      comm:send(data, rank_rel(d, 1), TAG)
    end
  end
  return data
end

-- OctTree broadcast ([EMU], "OctTree Broadcast").
-- Why: the emulator paper's second broadcast: the root sits at the centre of
-- the box, which it cuts in eight (each dimension in halves); it sends to the
-- centre of each of the seven other parts, and every part does the same,
-- recursively. More messages are in flight at once than in the line
-- broadcast, so the depth is logarithmic (about 8.9 us against 110 us on the
-- earlier design, docs/model.md).
-- Cost: ceil(log2 max D) levels, each owner sending up to 2^k - 1 messages
-- (k dimensions longer than 1, so 7 in 3-D); n - 1 messages in all.
-- Coordinates are shifted (wrapping around) so that the root is at the
-- centre. A region [lo, hi) has one owner holding the data. At each level
-- every dimension longer than one is cut at its middle; the part holding the
-- owner keeps it, every other part gets its centre as owner, who receives
-- from the old owner. Each rank becomes an owner once, at the level where it
-- is first a centre (or at the top: the root), and stays one all the way down.
function coll.octree_bcast(comm, data, root)
  local n, me = comm:size(), comm:rank()
  local dims = box(n)
  local k = #dims
  local c0 = coords_of(root, dims)
  local function shift(d) -- moves the root to the centre along d
    return floor(dims[d] / 2) - c0[d]
  end
  local pos = coords_of(me, dims)
  for d = 1, k do
    pos[d] = (pos[d] + shift(d)) % dims[d]
  end
  local function rank_of_pos(p)
    local a = {}
    for d = 1, k do
      a[d] = (p[d] - shift(d)) % dims[d]
    end
    return rank_at(a, dims)
  end
  local function is_me(p)
    for d = 1, k do
      if p[d] ~= pos[d] then
        return false
      end
    end
    return true
  end
  local function inside(p, lo, hi)
    for d = 1, k do
      if p[d] < lo[d] or p[d] >= hi[d] then
        return false
      end
    end
    return true
  end
  local function centre(lo, hi)
    local c = {}
    for d = 1, k do
      c[d] = floor((lo[d] + hi[d]) / 2)
    end
    return c
  end

  local lo, hi, owner = {}, {}, {}
  for d = 1, k do
    lo[d], hi[d], owner[d] = 0, dims[d], floor(dims[d] / 2)
  end
  while true do
    local cut = {} -- the dimensions cut at this level
    for d = 1, k do
      if hi[d] - lo[d] > 1 then
        cut[#cut + 1] = d
      end
    end
    if #cut == 0 then
      break
    end
    local mid = {}
    for _, d in ipairs(cut) do
      mid[d] = floor((lo[d] + hi[d]) / 2)
    end
    -- part(bits): the part on the low (bit 0) or high (bit 1) side of each cut.
    local function part(bits)
      local plo, phi = {}, {}
      for d = 1, k do
        plo[d], phi[d] = lo[d], hi[d]
      end
      for j, d in ipairs(cut) do
        if floor(bits / 2 ^ (j - 1)) % 2 == 0 then
          phi[d] = mid[d]
        else
          plo[d] = mid[d]
        end
      end
      return plo, phi
    end
    local mylo, myhi
    for bits = 0, 2 ^ #cut - 1 do
      local plo, phi = part(bits)
      if inside(pos, plo, phi) then
        mylo, myhi = plo, phi
      end
      if is_me(owner) and not inside(owner, plo, phi) then
        comm:send(data, rank_of_pos(centre(plo, phi)), TAG)
      end
    end
    if not inside(owner, mylo, myhi) then
      local new = centre(mylo, myhi)
      if is_me(new) then
        data = comm:recv(rank_of_pos(owner), TAG)
      end
      owner = new
    end
    lo, hi = mylo, myhi
  end
  return data
end

-- Every algorithm above, as mpi.coll.register takes them.
coll.algorithms = {
  { coll = "bcast", name = "lua_binomial", fn = coll.binomial_bcast },
  { coll = "bcast", name = "lua_line", fn = coll.line_bcast },
  { coll = "bcast", name = "lua_octree", fn = coll.octree_bcast },
  { coll = "allgather", name = "lua_ring", fn = coll.ring_allgather },
  { coll = "allreduce", name = "lua_recursive_doubling", fn = coll.recursive_doubling_allreduce },
  { coll = "alltoall", name = "lua_bruck", fn = coll.bruck_alltoall },
}

-- register_all registers every algorithm under its name in coll.algorithms.
function coll.register_all()
  for _, a in ipairs(coll.algorithms) do
    mpi.coll.register(a.coll, a.name, a.fn)
  end
end

return coll

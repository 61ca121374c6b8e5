-- jacobi.lua: Jacobi relaxation of Laplace's equation on a square, the
-- [EMU] paper's second application. The square is cut into a P x P grid of
-- blocks, one per rank; every sweep exchanges block edges with the four
-- neighbours (isend/irecv/waitall), relaxes the interior, and every 10 sweeps
-- an allreduce of the largest change decides whether to stop.
-- Shows: a real numerical kernel in Lua, halo exchange, convergence test.
-- Run: bglua -ranks 16 scripts/gallery/jacobi.lua [block] [tolerance]
local rank, size = mpi.rank(), mpi.size()
local P = math.floor(math.sqrt(size) + 0.5)
assert(P * P == size, "jacobi.lua needs a square number of ranks")
local n = tonumber(arg[1]) or 16          -- interior points per block side
local tol = tonumber(arg[2]) or 1e-3
local pi, pj = math.floor(rank / P), rank % P
local function at(i, j) return (i >= 0 and i < P and j >= 0 and j < P) and i * P + j or nil end
local north, south, west, east = at(pi - 1, pj), at(pi + 1, pj), at(pi, pj - 1), at(pi, pj + 1)

-- u[i][j] for i, j in 0..n+1; the top edge of the whole square is held at 1.
local u, v = {}, {}
for i = 0, n + 1 do
  u[i], v[i] = {}, {}
  for j = 0, n + 1 do u[i][j], v[i][j] = 0, 0 end
end
if not north then for j = 0, n + 1 do u[0][j], v[0][j] = 1, 1 end end

local function row(i) local r = {} for j = 1, n do r[j] = u[i][j] end return r end
local function col(j) local c = {} for i = 1, n do c[i] = u[i][j] end return c end

local sweeps, change = 0, math.huge
while change > tol and sweeps < 2000 do
  local reqs, into = {}, {}
  -- Tags name the direction the data travels (1 north, 2 south, 3 west,
  -- 4 east): what a block receives from its north travelled south.
  local function exchange(peer, mine, out, back, store)
    if peer then
      reqs[#reqs + 1] = mpi.irecv(peer, back)
      into[#into + 1] = store
      mpi.isend(mine, peer, out)
    end
  end
  exchange(north, row(1), 1, 2, function(r) for j = 1, n do u[0][j] = r[j] end end)
  exchange(south, row(n), 2, 1, function(r) for j = 1, n do u[n + 1][j] = r[j] end end)
  exchange(west, col(1), 3, 4, function(c) for i = 1, n do u[i][0] = c[i] end end)
  exchange(east, col(n), 4, 3, function(c) for i = 1, n do u[i][n + 1] = c[i] end end)
  local got = mpi.waitall(reqs)
  for k, data in ipairs(got) do into[k](data) end
  local local_change = 0
  for i = 1, n do
    for j = 1, n do
      local new = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1])
      local d = math.abs(new - u[i][j])
      if d > local_change then local_change = d end
      v[i][j] = new
    end
  end
  mpi.compute { flops = 5 * n * n }
  u, v = v, u
  if not north then for j = 0, n + 1 do u[0][j] = 1 end end
  sweeps = sweeps + 1
  if sweeps % 10 == 0 then change = mpi.allreduce(local_change, mpi.MAX) end
end
local centre = u[math.floor(n / 2)][math.floor(n / 2)]
local mean = mpi.reduce(centre, mpi.SUM, 0)
if rank == 0 then
  print(string.format("%dx%d blocks of %dx%d: %d sweeps to change %.2g; mean block centre %.4f; %.3f ms virtual",
    P, P, n, n, sweeps, change, mean / size, mpi.wtime() * 1e3))
end

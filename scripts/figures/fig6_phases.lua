-- fig6_phases.lua [X Y Z]: what MPICH's post-all alltoall gives on an X x Y x
-- Z torus (default 8x8x8, [ML] Fig. 6's) if every node sends its messages one
-- at a time, in MPICH's order (to rank+1, rank+2, ...), all nodes in step:
-- each step is a permutation, taking as long as its busiest link carries
-- (one message a unit), routed dimension-ordered (x, then y, then z; half a
-- ring away goes the + way). The result is a percentage of the bisection
-- bound, the unit Fig. 6 uses: (N/2)^2 messages each way across the middle
-- of the longest dimension, 2 links per ring each way.
--
-- Pure Lua, no MPI: `lua5.1 scripts/figures/fig6_phases.lua` or
-- `bglua -n 1 scripts/figures/fig6_phases.lua`. On 8x8x8 it prints 30.33%,
-- the paper's "at most about 30%" for the MPICH default; the model's
-- postall, whose CPUs write all their messages under way in turn, gives
-- about 57% (docs/model.md).
local X, Y, Z = tonumber(arg and arg[1]) or 8, tonumber(arg and arg[2]) or 8, tonumber(arg and arg[3]) or 8
local dims = { X, Y, Z }
local N = X * Y * Z

local function coord(r)
  return { r % X, math.floor(r / X) % Y, math.floor(r / (X * Y)) }
end

-- The busiest link of the step in which every rank r sends to r + i.
local function busiest(i)
  local load, most = {}, 0
  for r = 0, N - 1 do
    local a, b = coord(r), coord((r + i) % N)
    local cur = { a[1], a[2], a[3] }
    for d = 1, 3 do
      local k = dims[d]
      local delta = (b[d] - a[d]) % k
      local step, n = 1, delta
      if 2 * delta > k then step, n = -1, k - delta end
      for _ = 1, n do
        -- a link: the node it leaves, its dimension and its direction
        local key = ((cur[1] * Y + cur[2]) * Z + cur[3]) * 6 + (d - 1) * 2 + (step > 0 and 0 or 1)
        local l = (load[key] or 0) + 1
        load[key] = l
        if l > most then most = l end
        cur[d] = (cur[d] + step) % k
      end
    end
  end
  return most
end

local total = 0
for i = 1, N - 1 do total = total + busiest(i) end
local longest = math.max(X, Y, Z)
local bound = (N / 2) ^ 2 / (2 * N / longest) -- units of one message on one link
print(string.format("%dx%dx%d torus, %d steps, every node in step, dimension-ordered: %d units against the bisection's %d: %.2f%%",
  X, Y, Z, N - 1, total, bound, 100 * bound / total))

-- topo: small helpers for torus-aware programs.
--   local topo = require "topo"
--   local left, right = topo.ring_neighbors()
--   local nbrs = topo.torus_neighbors()   -- the six torus neighbours of this rank
local topo = {}

-- ring_neighbors returns the previous and next rank in rank order (wrapping).
function topo.ring_neighbors(rank, size)
  rank = rank or mpi.rank()
  size = size or mpi.size()
  return (rank - 1) % size, (rank + 1) % size
end

-- torus_neighbors returns the ranks of the six torus neighbours of rank
-- (x-, x+, y-, y+, z-, z+), with the same slot t, or nil where none is mapped.
function topo.torus_neighbors(rank)
  local x, y, z, t = ml.coords(rank)
  local X, Y, Z = ml.dims()
  local function at(a, b, c) return ml.rank_of(a % X, b % Y, c % Z, t) end
  return {
    at(x - 1, y, z), at(x + 1, y, z),
    at(x, y - 1, z), at(x, y + 1, z),
    at(x, y, z - 1), at(x, y, z + 1),
  }
end

return topo

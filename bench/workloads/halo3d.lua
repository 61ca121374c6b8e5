-- halo3d.lua STEPS FACE_BYTES X Y Z: STEPS steps of a 3D 7-point stencil's
-- halo exchange on an X x Y x Z grid of ranks laid on the torus (x fastest;
-- in virtual-node mode Z is twice the torus's z, see common.check_dims): each
-- step posts six irecvs and six isends of FACE_BYTES to the grid neighbours
-- and waits for all twelve. No computation. Twin of ../smpi/halo3d.c.
local c = require "common"
local steps, face, X, Y, Z = c.args { "STEPS", "FACE_BYTES", "X", "Y", "Z" }
c.check_dims(X, Y, Z)
local rank = mpi.rank()
local x, y, z = rank % X, math.floor(rank / X) % Y, math.floor(rank / (X * Y))
local function at(a, b, d) return a % X + X * (b % Y + Y * (d % Z)) end
-- x-, x+, y-, y+, z-, z+
local nbrs = { at(x - 1, y, z), at(x + 1, y, z), at(x, y - 1, z), at(x, y + 1, z), at(x, y, z - 1), at(x, y, z + 1) }
local msg = mpi.bytes(face)
local t0 = mpi.wtime()
for _ = 1, steps do
  local reqs = {}
  for i = 1, 6 do reqs[i] = mpi.irecv(nbrs[i], i) end
  for i = 1, 6 do
    -- the tag names the direction as the receiver sees it: what goes to x+
    -- arrives from the receiver's x-
    local tag = (i % 2 == 1) and i + 1 or i - 1
    reqs[6 + i] = mpi.isend(msg, nbrs[i], tag)
  end
  mpi.waitall(reqs)
end
c.report(t0)

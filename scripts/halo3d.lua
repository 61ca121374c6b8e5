-- halo3d.lua: a 3D 7-point stencil's halo exchange with isend/irecv/waitall
-- on the torus neighbours, then an allreduce of a residual, for a few steps.
-- Run: bglua -ranks 64 scripts/halo3d.lua [steps] [face_bytes]
local topo = require "topo"
local steps = tonumber(arg[1]) or 5
local face = tonumber(arg[2]) or 8192
local nbrs = topo.torus_neighbors()
local residual = 1.0
for step = 1, steps do
  local reqs = {}
  for i, n in ipairs(nbrs) do
    reqs[#reqs + 1] = mpi.irecv(n, i)
  end
  for i, n in ipairs(nbrs) do
    -- the tag names the direction as the receiver sees it (x- sends to x+)
    local tag = (i % 2 == 1) and i + 1 or i - 1
    reqs[#reqs + 1] = mpi.isend(mpi.bytes(face), n, tag)
  end
  mpi.waitall(reqs)
  mpi.compute { flops = 2e6 }
  residual = mpi.allreduce(residual / 2, mpi.MAX)
end
if mpi.rank() == 0 then
  print(string.format("%d steps, residual %g, %.1f us per step", steps, residual, mpi.wtime() / steps * 1e6))
end

-- md.lua: a molecular-dynamics-style prototype in the [EMU] paper's style:
-- each rank owns the atoms of one cell of a 3D torus of cells; every step it
-- sends its atoms' positions to its six torus neighbours as active messages
-- (ml.send), waits until all six have arrived (ml.wait), computes the
-- electrostatic forces between its atoms and everything it received,
-- integrates, and every few steps reduces the total kinetic energy.
-- Shows: ml active messages and handlers, computation with a modeled cost.
-- Run: bglua -ranks 64 scripts/gallery/md.lua [steps] [atoms_per_cell]
local topo = require "topo"
local steps = tonumber(arg[1]) or 10
local k = tonumber(arg[2]) or 8
local rank = mpi.rank()
local nbrs = topo.torus_neighbors()
local x0, y0, z0 = ml.coords()

-- atoms: position (cell coordinates + offset), velocity, charge +-1
local atoms = {}
for i = 1, k do
  atoms[i] = {
    x = x0 + math.random(), y = y0 + math.random(), z = z0 + math.random(),
    vx = 0, vy = 0, vz = 0, q = (i % 2 == 0) and 1 or -1,
  }
end

-- A fast neighbour may already send the next step's positions, so the
-- handler files each batch under its step.
local inbox = {}
ml.register("coords", function(src, data)
  local box = inbox[data.step] or {}
  box[#box + 1] = data.atoms
  inbox[data.step] = box
end)

local dt = 1e-3
for step = 1, steps do
  local mine = {}
  for i, a in ipairs(atoms) do mine[i] = { a.x, a.y, a.z, a.q } end
  for _, n in ipairs(nbrs) do ml.send(n, "coords", { step = step, atoms = mine }) end
  ml.wait(function() return inbox[step] and #inbox[step] >= #nbrs end)
  local others = {}
  for _, batch in ipairs(inbox[step]) do
    for _, p in ipairs(batch) do others[#others + 1] = p end
  end
  inbox[step] = nil
  -- Coulomb forces on my atoms from all others (softened), then leapfrog.
  local pairs_done = 0
  for _, a in ipairs(atoms) do
    local fx, fy, fz = 0, 0, 0
    for _, p in ipairs(others) do
      local dx, dy, dz = a.x - p[1], a.y - p[2], a.z - p[3]
      local r2 = dx * dx + dy * dy + dz * dz + 0.01
      local f = a.q * p[4] / (r2 * math.sqrt(r2))
      fx, fy, fz = fx + f * dx, fy + f * dy, fz + f * dz
      pairs_done = pairs_done + 1
    end
    a.vx, a.vy, a.vz = a.vx + dt * fx, a.vy + dt * fy, a.vz + dt * fz
    a.x, a.y, a.z = a.x + dt * a.vx, a.y + dt * a.vy, a.z + dt * a.vz
  end
  mpi.compute { flops = 20 * pairs_done }
  if step % 5 == 0 or step == steps then
    local ke = 0
    for _, a in ipairs(atoms) do ke = ke + 0.5 * (a.vx ^ 2 + a.vy ^ 2 + a.vz ^ 2) end
    ke = mpi.allreduce(ke, mpi.SUM)
    if rank == 0 then
      print(string.format("step %3d  kinetic energy %.6e  t=%.1f us", step, ke, mpi.wtime() * 1e6))
    end
  end
end

-- fig4cf.lua: [ML] Figs. 4c-f, MPI bandwidth of one node against the number
-- of its links in use at once, each in both directions: the node in the
-- middle of a 3x3x3 torus exchanges large messages with 1 to 6 of its
-- neighbours. Four series: the eager protocol (4c), rendezvous with the main
-- CPU receiving (4d), adaptive eager (4e), and rendezvous with the
-- coprocessor receiving (4f). The paper: without the coprocessor the main
-- CPU keeps up with about two links (adaptive eager with fewer); with it,
-- more than three. Past that the CPU is the bottleneck and more links add
-- nothing.
-- Run: bglua -n 27 --torus 3x3x3 scripts/figures/fig4cf.lua [csv]
-- (coprocessor mode, the default, for the last series).
-- With "csv", rank 0 prints only CSV lines, the header first.
local rank, size = mpi.rank(), mpi.size()
local X, Y, Z = ml.dims()
assert(X == 3 and Y == 3 and Z == 3 and size == 27, "run with -n 27 --torus 3x3x3")
local centre = ml.rank_of(1, 1, 1)
local neighbours = {
  ml.rank_of(2, 1, 1), ml.rank_of(0, 1, 1), ml.rank_of(1, 2, 1),
  ml.rank_of(1, 0, 1), ml.rank_of(1, 1, 2), ml.rank_of(1, 1, 0),
}
local bytes = 65536 -- whole cache lines: the coprocessor may take them
local count = 8 -- messages each way on every link
local co = ml.mode() == "co"

local series = {
  { name = "eager", figure = "4c", protocol = "eager", cohelp = false },
  { name = "rendezvous", figure = "4d", protocol = "rendezvous", cohelp = false },
  { name = "adaptive", figure = "4e", protocol = "adaptive", cohelp = false },
  { name = "rendezvous+co", figure = "4f", protocol = "rendezvous", cohelp = true },
}

-- which link of the centre rank r uses, or nil
local link = {}
for i, n in ipairs(neighbours) do link[n] = i end

local function exchange(s, links)
  ml.set_protocol(s.protocol)
  if co then ml.set_cohelp(s.cohelp) end
  local data = mpi.bytes(bytes)
  mpi.barrier()
  local t0 = mpi.wtime()
  local reqs = {}
  if rank == centre then
    for i = 1, links do
      for k = 1, count do reqs[#reqs + 1] = mpi.irecv(neighbours[i], k) end
    end
    for k = 1, count do
      for i = 1, links do reqs[#reqs + 1] = mpi.isend(data, neighbours[i], k) end
    end
  elseif link[rank] and link[rank] <= links then
    for k = 1, count do reqs[#reqs + 1] = mpi.irecv(centre, k) end
    for k = 1, count do reqs[#reqs + 1] = mpi.isend(data, centre, k) end
  end
  mpi.waitall(reqs)
  local t = mpi.wtime() - t0
  ml.set_protocol("auto")
  -- the centre's traffic, both directions, over the time the last rank took
  t = mpi.allreduce(t, mpi.MAX)
  return 2 * links * count * bytes / t / 1e6
end

local rows = {}
for _, s in ipairs(series) do
  if s.cohelp and not co then
    if rank == 0 and arg[1] ~= "csv" then print("(no coprocessor series: run in --mode co)") end
  else
    for links = 1, 6 do
      rows[#rows + 1] = { s, links, exchange(s, links) }
    end
  end
end

if rank == 0 then
  local net = 2 * 0.25 * 700 * 240 / 270 -- one bidirectional link's net limit, MB/s
  if arg[1] == "csv" then
    print("protocol,figure,links,mbps,links_worth")
    for _, r in ipairs(rows) do
      print(string.format("%s,%s,%d,%.1f,%.2f", r[1].name, r[1].figure, r[2], r[3], r[3] / net))
    end
  else
    print(string.format("%-14s %6s %5s %9s %12s", "protocol", "figure", "links", "MB/s", "links' worth"))
    for _, r in ipairs(rows) do
      print(string.format("%-14s %6s %5d %9.1f %12.2f", r[1].name, r[1].figure, r[2], r[3], r[3] / net))
    end
    print(string.format("one bidirectional link: %.0f MB/s net", net))
  end
end

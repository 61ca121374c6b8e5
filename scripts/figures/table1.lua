-- table1.lua: [ML] Table 1, half round trip of a 1-byte message between torus
-- neighbours with each protocol, at the message-layer level (ml.send with
-- the protocol named) and at the MPI level (send/recv with ml.set_protocol
-- making MPI use that protocol, as BG/L MPI's environment switches did).
-- Run: bglua -n 2 scripts/figures/table1.lua [csv]
-- With "csv", rank 0 prints only CSV lines, the header first.
local published = {
  onepacket = { ml = 1600, mpi = 2350 },
  eager = { ml = 2700, mpi = 4000 },
  adaptive = { ml = 3300, mpi = 11000 },
  rendezvous = { ml = 12000, mpi = 17500 },
}
local protocols = { "onepacket", "eager", "adaptive", "rendezvous" }
local reps = 20
local rank = mpi.rank()
local peer = 1 - rank
local got = 0
local current -- the protocol being measured
ml.register("ping", function(src, data) ml.send(src, "pong", data, { protocol = current }) end)
ml.register("pong", function() got = got + 1 end)

local function ml_half_rtt(proto)
  current = proto
  mpi.barrier()
  got = 0
  local t0 = mpi.cycles()
  if rank == 0 then
    for i = 1, reps do
      ml.send(peer, "ping", "x", { protocol = proto })
      ml.wait(function() return got == i end)
    end
  else
    -- serve pings until rank 0 is done (it sends a last "stop" over MPI)
    local stop = mpi.irecv(0, 99)
    ml.wait(function() return mpi.test(stop) end)
  end
  local half = (mpi.cycles() - t0) / (2 * reps)
  if rank == 0 then mpi.send(true, 1, 99) end
  return half
end

local function mpi_half_rtt(proto)
  mpi.barrier()
  ml.set_protocol(proto)
  local t0 = mpi.cycles()
  for _ = 1, reps do
    if rank == 0 then
      mpi.send("x", peer); mpi.recv(peer)
    else
      mpi.recv(peer); mpi.send("x", peer)
    end
  end
  local half = (mpi.cycles() - t0) / (2 * reps)
  ml.set_protocol("auto")
  return half
end

local rows = {}
for _, proto in ipairs(protocols) do
  rows[#rows + 1] = { proto, "message layer", ml_half_rtt(proto), published[proto].ml }
end
for _, proto in ipairs(protocols) do
  rows[#rows + 1] = { proto, "MPI", mpi_half_rtt(proto), published[proto].mpi }
end
if rank == 0 then
  if arg[1] == "csv" then
    print("protocol,level,cycles,published,error_pct")
    for _, r in ipairs(rows) do
      print(string.format("%s,%s,%.0f,%d,%.1f", r[1], r[2] == "MPI" and "mpi" or "ml", r[3], r[4], 100 * (r[3] - r[4]) / r[4]))
    end
  else
    print(string.format("%-10s %-14s %8s %9s %7s", "protocol", "level", "cycles", "published", "error"))
    for _, r in ipairs(rows) do
      print(string.format("%-10s %-14s %8.0f %9d %+6.1f%%", r[1], r[2], r[3], r[4], 100 * (r[3] - r[4]) / r[4]))
    end
  end
end

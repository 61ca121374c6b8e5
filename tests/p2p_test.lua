-- Regression suite: point-to-point semantics. Run: bglua test tests/
local cases = {
  { name = "ring passes a token", ranks = 16,
    run = function()
      local rank, size = mpi.rank(), mpi.size()
      if rank == 0 then
        mpi.send(1, 1)
        expect(mpi.recv(size - 1)).to_equal(size)
      else
        local v = mpi.recv(rank - 1)
        mpi.send(v + 1, (rank + 1) % size)
      end
    end },
  { name = "messages from one source keep their order", ranks = 2,
    run = function()
      if mpi.rank() == 0 then
        for i = 1, 5 do mpi.send(i, 1, i % 2) end
      else
        local got = {}
        for i = 1, 5 do got[i] = mpi.recv(0, mpi.ANY_TAG) end
        expect(got).to_equal { 1, 2, 3, 4, 5 }
      end
    end },
  { name = "one-hop latency is near [ML] Fig. 4a's 3.35 us", ranks = 2,
    run = function()
      local peer = 1 - mpi.rank()
      local t0 = mpi.wtime()
      for _ = 1, 10 do
        if mpi.rank() == 0 then mpi.send("x", peer); mpi.recv(peer) else mpi.recv(peer); mpi.send("x", peer) end
      end
      expect((mpi.wtime() - t0) / 20).to_be_near(3.35e-6, 0.1)
    end },
  { name = "status describes the message", ranks = 2,
    run = function()
      if mpi.rank() == 0 then
        mpi.send("hello", 1, 42)
      else
        local data, st = mpi.recv()
        expect({ data, st.source, st.tag, st.bytes }).to_equal { "hello", 0, 42, 5 }
      end
    end },
  { name = "receiving from a rank that never sends deadlocks", ranks = 2, deadlocks = true,
    run = function() mpi.recv(1 - mpi.rank()) end },
  { name = "small messages are buffered: both ranks may send first", ranks = 2,
    run = function()
      local peer = 1 - mpi.rank()
      mpi.send(string.rep("x", 500), peer)
      expect(#mpi.recv(peer)).to_equal(500)
    end },
  { name = "large messages wait for their receiver (rendezvous), as on BG/L", ranks = 2, deadlocks = true,
    run = function()
      local peer = 1 - mpi.rank()
      mpi.send(mpi.bytes(4096), peer)
      mpi.recv(peer)
    end },
  { name = "a large isend completes once the receiver asked for the data", ranks = 2,
    run = function()
      local peer = 1 - mpi.rank()
      local s = mpi.isend(mpi.bytes(65536), peer)
      expect(mpi.test(s)).to_equal(false)
      local _, st = mpi.recv(peer)
      mpi.wait(s)
      expect(st.bytes).to_equal(65536)
    end },
  { name = "--rzv-limit moves the switch point", ranks = 2, rzv_limit = 8192,
    run = function()
      local peer = 1 - mpi.rank()
      mpi.send(mpi.bytes(4096), peer) -- eager now: no deadlock
      mpi.recv(peer)
    end },
  { name = "a bad destination is an error at the call site", ranks = 2, fails = "destination rank 7 out of range",
    run = function() mpi.send(1, 7) end },
  { name = "bad arguments can be caught", ranks = 1,
    run = function()
      expect(function() mpi.send(print, 0) end).to_fail_with "cannot send a function"
    end },
}

-- A 1 MiB message between neighbours, alone on its CPUs and links, takes
-- the same time at a coarse --grain as at the machine's own: the sender's
-- and the receiver's times, to the cycle (1 cycle is 1/700 us).
local function lone_mib()
  local t0 = mpi.wtime()
  if mpi.rank() == 0 then mpi.send(mpi.bytes(1048576), 1) else mpi.recv(0) end
  local want = mpi.rank() == 0 and 6.761380000e-03 or 6.765734286e-03
  expect(mpi.wtime() - t0).to_be_near(want, 1e-9)
end
for _, g in ipairs { 1, 16 } do
  cases[#cases + 1] = { name = "a lone 1 MiB message takes the same time at grain " .. g, ranks = 2, grain = g, run = lone_mib }
end
return cases

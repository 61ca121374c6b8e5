-- Buffered coscheduling (--runtime bcs): the paper's checks as regression
-- cases, and the core primitives.
return {
  { name = "a blocking send costs 1.5 slices on average", ranks = 2, runtime = "bcs", timeslice = "250us",
    run = function()
      local n, slice = 200, bcs.slice_length()
      if mpi.rank() == 0 then
        local total = 0
        for i = 1, n do
          mpi.compute(math.random() * 3 * slice)
          local t0 = mpi.wtime()
          mpi.send(i, 1)
          total = total + (mpi.wtime() - t0) / slice
        end
        expect(total / n).to_be_near(1.5, 0.05)
      else
        for i = 1, n do mpi.recv(0) end
      end
    end },
  { name = "1.9 ms of compute then a barrier: one barrier every 9 slices", ranks = 8, runtime = "bcs", timeslice = "250us",
    run = function()
      local last
      for i = 1, 6 do
        mpi.compute(1.9e-3)
        mpi.barrier()
        if last then expect(bcs.timeslice() - last).to_equal(9) end
        last = bcs.timeslice()
      end
    end },
  { name = "collectives give the same results as under direct", ranks = 7, runtime = "bcs",
    run = function()
      local r = mpi.rank()
      expect(mpi.allreduce(r, mpi.SUM)).to_equal(21)
      expect(mpi.bcast(r == 3 and "x" or nil, 3)).to_equal("x")
      expect(#mpi.allgather(r)).to_equal(7)
      expect(mpi.scan(1, mpi.SUM)).to_equal(r + 1)
      expect(mpi.allreduce(r, function(a, b) return a + b end)).to_equal(21)
      local t = {}
      for i = 1, 7 do t[i] = r * 10 + i - 1 end
      expect(mpi.alltoall(t)[1]).to_equal(r)
    end },
  { name = "nonblocking calls overlap the slices", ranks = 2, runtime = "bcs",
    run = function()
      local peer = 1 - mpi.rank()
      local t0 = mpi.wtime()
      local q = mpi.irecv(peer)
      local s = mpi.isend("x", peer)
      mpi.compute(5e-3) -- ten slices of 500 us: the exchange is long done
      mpi.waitall({ q, s })
      expect(mpi.wtime() - t0).to_be_below(5.01e-3)
    end },
  { name = "compare_and_write sees every rank's variable", ranks = 4, runtime = "bcs",
    run = function()
      bcs.set("ready", mpi.rank() + 1)
      mpi.barrier()
      if mpi.rank() == 0 then
        expect(bcs.compare_and_write({ 1, 2, 3 }, "ready", ">", 1, "go", 7)).to_equal(true)
        expect(bcs.get("go", 3)).to_equal(7)
        expect(bcs.compare_and_write({ 0, 1 }, "ready", ">", 1)).to_equal(false)
      end
    end },
  { name = "xfer_and_signal delivers to every destination", ranks = 3, runtime = "bcs",
    run = function()
      if mpi.rank() == 0 then
        bcs.xfer_and_signal({ 1, 2 }, { v = 42 }, "data", "done")
        expect(bcs.test_event("done", true)).to_equal(true)
      else
        local ok, data, src = bcs.test_event("data", true)
        expect(data.v).to_equal(42)
        expect(src).to_equal(0)
      end
    end },
  { name = "bcs functions need the bcs runtime", ranks = 1, fails = "needs the buffered coscheduling runtime",
    run = function() bcs.timeslice() end },
  { name = "a ring of blocking sends deadlocks under bcs", ranks = 3, runtime = "bcs", deadlocks = true,
    run = function()
      local r, n = mpi.rank(), mpi.size()
      mpi.send(r, (r + 1) % n)
      mpi.recv((r - 1) % n)
    end },
}

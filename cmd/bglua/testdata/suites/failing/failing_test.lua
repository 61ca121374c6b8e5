return {
  { name = "passes", ranks = 2, run = function() expect(1 + 1).to_equal(2) end },
  { name = "wrong sum", ranks = 4,
    run = function()
      print("rank " .. mpi.rank() .. " computed its part")
      expect(mpi.allreduce(mpi.rank(), mpi.SUM)).to_equal(7)
    end },
  { name = "expected a deadlock", ranks = 2, deadlocks = true, run = function() mpi.barrier() end },
  { name = "expected an error", ranks = 1, fails = "boom", run = function() end },
  { name = "error does not match", ranks = 1, fails = "^boom", run = function() error("bang") end },
  { name = "too slow", ranks = 2, run = function() mpi.compute(1e-3); expect(mpi.wtime()).to_be_below(1e-4) end },
}

-- One case of every kind JUnit tells apart (cmd/bglua test_test.go).
return {
  { name = "passes", ranks = 2, run = function() print("hello <&>") end },
  { name = "fails an expectation", ranks = 2,
    run = function() expect(mpi.rank()).to_equal(0) end },
  { name = "raises an error", run = function() error("boom") end },
  { name = "deadlocks", ranks = 2, run = function() mpi.recv(1 - mpi.rank()) end },
  { name = "times out", timeout = "100ms", run = function() while true do end end },
  { name = "wanted a deadlock", deadlocks = true, run = function() end },
}

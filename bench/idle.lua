-- idle.lua (bench): every rank blocks in a barrier that rank 0 enters last,
-- after it has measured the memory with all the other ranks parked (through
-- the module "hook" that BenchmarkIdleRank in ../bench_test.go provides; run
-- from the command line, the program only parks its ranks).
if mpi.rank() == 0 then
  mpi.compute(1e-3)
  local ok, hook = pcall(require, "hook")
  if ok then hook.report() end
end
mpi.barrier()

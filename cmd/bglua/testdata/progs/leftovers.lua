-- Messages that reach a rank that never takes them: the run succeeds, and
-- the command names them after it (five, then how many more).
ml.register("late", function() end)
if mpi.rank() == 0 then
  mpi.send("hello", 1, 7)
  ml.send(2, "late", "x")
  for i = 1, 5 do mpi.send(i, 2, i) end
end
print("done")

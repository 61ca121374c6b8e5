-- An advance loop that waits for a message nobody sends is a deadlock.
local got = false
ml.register("h", function() got = true end)
if mpi.rank() == 1 then
  while not got do ml.advance() end
end

-- A case whose run leaves a message nobody received: the warning is part of
-- the case's output, shown under -v or when the case fails.
local function forgets()
  if mpi.rank() == 0 then mpi.send("lost", 1, 7) end
end
return {
  { name = "passes", ranks = 2, run = forgets },
  { name = "expected an error", ranks = 2, fails = "boom", run = forgets },
}

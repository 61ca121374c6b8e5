-- A reduction operator that forgets its return: the run stops with an
-- error naming the operator, instead of a silent nil.
local function add(a, b)
  local s = a + b -- no return
end
print(mpi.allreduce(mpi.rank(), add))

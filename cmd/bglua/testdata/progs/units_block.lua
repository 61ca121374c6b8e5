-- A handler on a thread unit (--machine bgc) runs to completion: a call that
-- waits is an error that names the rank, the call and the unit.
ml.register("reduce", function(src, v)
  mpi.barrier()
end)
if mpi.rank() == 0 then ml.send(1, "reduce", 42) end

-- Parameters of collective algorithms in a case's coll field, as on the
-- command line: a Lua algorithm gets them as its last argument, and a
-- built-in shows them in force (testdata/suites/bad/coll_params_test.lua.txt:
-- a parameter a built-in does not take).
local got
local function mine(comm, data, root, p)
  got = p
  if comm:rank() ~= root then
    return comm:recv(root, 0)
  end
  for r = 0, comm:size() - 1 do
    if r ~= root then
      comm:send(data, r, 0)
    end
  end
  return data
end

return {
  { name = "a Lua algorithm gets its parameters", ranks = 2, coll = "bcast=mine:seg=4k,radix=2,label=x,allreduce=ring",
    run = function()
      mpi.coll.register("bcast", "mine", mine)
      expect(mpi.bcast(7, 0)).to_equal(7)
      expect(got.seg).to_equal(4096)
      expect(got.radix).to_equal(2)
      expect(got.label).to_equal("x")
      expect(mpi.coll.algorithm("bcast")).to_equal("mine:seg=4096,radix=2,label=x")
      expect(mpi.coll.algorithm("allreduce")).to_equal("ring")
    end },
  { name = "without parameters the table is empty", ranks = 2, coll = "bcast=mine",
    run = function()
      mpi.coll.register("bcast", "mine", mine)
      mpi.bcast(7, 0)
      expect(next(got)).to_equal(nil)
    end },
  { name = "a built-in's parameter, table form", ranks = 8, coll = { bcast = "torus:routes=1" },
    run = function()
      expect(mpi.bcast(mpi.bytes(4096), 0)).to_be_truthy()
      expect(mpi.coll.algorithm("bcast")).to_equal("torus:routes=1")
    end },
}

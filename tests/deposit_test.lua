-- Regression suite: ml.deposit, the torus deposit-bit line multicast ([ML]).
-- Run: bglua test tests/

-- Every rank registers "line"; the ones the line reaches wait for it and
-- return what came, the others nil.
local function listen(reached)
  local got
  ml.register("line", function(src, data, info)
    got = { src = src, data = data, bytes = info.bytes, at = mpi.wtime() }
  end)
  mpi.barrier()
  return function()
    if reached then ml.wait(function() return got ~= nil end) end
    return got
  end
end

return {
  { name = "a torus line goes round the ring and stops before the sender", ranks = 4, torus = "4x1x1",
    run = function()
      local rank = mpi.rank()
      local wait = listen(rank ~= 1)
      if rank == 1 then expect(ml.deposit(1, 1, "line", "hello")).to_equal(3) end
      local got = wait()
      if rank ~= 1 then
        expect({ got.src, got.data, got.bytes }).to_equal { 1, "hello", 5 }
      end
      -- Downstream nodes get their copy later: ranks 2, 3, 0 in that order.
      local at = mpi.gather(got and got.at or 0, 1)
      if rank == 1 then
        expect(at[3] < at[4] and at[4] < at[1]).to_be_truthy()
      end
    end },
  { name = "a mesh line runs to the edge", ranks = 4, torus = "4x1x1", mesh = true,
    run = function()
      local rank = mpi.rank()
      local wait = listen(rank == 0)
      if rank == 1 then expect(ml.deposit("x", -1, "line", { 1, 2 })).to_equal(1) end
      if rank == 3 then expect(ml.deposit("x", 1, "line", "edge")).to_equal(0) end
      local got = wait()
      if rank == 0 then expect(got.data).to_equal { 1, 2 } else expect(got).to_equal(nil) end
    end },
  { name = "dimensions by name or number", ranks = 12, torus = "2x3x2",
    run = function()
      local x, y, z = ml.coords()
      local reached = x == 0 and z == 0 and y > 0
      local wait = listen(reached)
      if mpi.rank() == 0 then expect(ml.deposit("y", -1, "line", 7)).to_equal(2) end
      local got = wait()
      expect(got ~= nil).to_equal(reached)
      mpi.barrier()
      got = nil
      local wait2 = listen(x == 0 and y == 0 and z == 1)
      if mpi.rank() == 0 then expect(ml.deposit(3, 1, "line", 8)).to_equal(1) end
      got = wait2()
      if got then expect(got.data).to_equal(8) end
    end },
  { name = "in virtual-node mode the rank in the sender's slot runs the handler", ranks = 8, torus = "4x1x1", mode = "vn",
    run = function()
      local _, _, _, t = ml.coords()
      local wait = listen(t == 1 and mpi.rank() ~= 5)
      if mpi.rank() == 5 then expect(ml.deposit(1, 1, "line", "vn")).to_equal(3) end
      local got = wait()
      if t == 1 and mpi.rank() ~= 5 then expect(got.src).to_equal(5) else expect(got).to_equal(nil) end
    end },
  { name = "one injection: the sender pays the same for a long line as for a short one", ranks = 16, torus = "16x1x1", mesh = true,
    run = function()
      ml.register("line", function() end)
      if mpi.rank() == 14 then
        local c0 = mpi.cycles()
        ml.deposit(1, 1, "line", "x") -- one node
        local short = mpi.cycles() - c0
        c0 = mpi.cycles()
        ml.deposit(1, -1, "line", "x") -- fourteen
        expect(mpi.cycles() - c0).to_equal(short)
      end
    end },
  { name = "bad arguments name what is wrong", ranks = 2,
    run = function()
      ml.register("line", function() end)
      expect(function() ml.deposit(4, 1, "line", 1) end).to_fail_with('dim must be 1, 2, 3 or "x", "y", "z", got 4')
      expect(function() ml.deposit("w", 1, "line", 1) end).to_fail_with('got "w"')
      expect(function() ml.deposit(1, 0, "line", 1) end).to_fail_with("dir must be 1 or %-1, got 0")
      expect(function() ml.deposit(1, "+", "line", 1) end).to_fail_with("dir must be 1 or %-1, got string")
      expect(function() ml.deposit(1, 1, {}, 1) end).to_fail_with("handler must be a name or a number")
      expect(function() ml.deposit(1, 1, "line", print) end).to_fail_with("ml.deposit:")
    end },
  { name = "a destination without the handler is an error naming both ranks", ranks = 2, torus = "2x1x1",
    fails = 'rank 1 has no handler "nope" registered %(message from rank 0%)',
    run = function()
      if mpi.rank() == 0 then
        ml.deposit(1, 1, "nope", "x")
      else
        ml.wait(function() return false end)
      end
    end },
}

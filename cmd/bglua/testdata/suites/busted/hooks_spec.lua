-- busted's structure: the hooks run around every case, outer first
-- (after hooks inner first), even when the case fails; pending cases are
-- skipped (cmd/bglua golden test_busted).
local function say(s)
  if mpi.rank() == 0 then print(s) end
end

setup(function() say("setup") end)
teardown(function() say("teardown") end)

describe("outer", function()
  before_each(function() say("outer before_each") end)
  after_each(function() say("outer after_each") end)

  it("runs between the hooks", { ranks = 2 }, function()
    say("body")
    finally(function() say("finally") end)
    expect(mpi.allreduce(1, mpi.SUM)).to_equal(2)
  end)

  describe("inner", function()
    setup(function() say("inner setup") end)
    before_each(function() say("inner before_each") end)
    after_each(function() say("inner after_each") end)

    it("fails, and the after hooks still run", function()
      say("body")
      finally(function() say("finally") end)
      expect("abc").not_to_match("b")
    end)

    it("is pending without a function")
  end)

  pending("is pending by name")
end)

it("has negated matchers", function()
  expect(nil).to_be_nil()
  expect({ 1, 2 }).to_be_a("table")
  expect({ 1, { 2 } }).to_contain({ 2 })
  expect("hello").not_to_contain("z")
  expect(1).not_to_equal(2)
end)

it("names an unknown matcher", function()
  expect(1).to_be_one()
end)

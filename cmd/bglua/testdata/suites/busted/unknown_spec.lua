-- A hook bglua does not have names itself and says what to use.
describe("x", function()
  before_all(function() end)
  it("never declared", function() end)
end)

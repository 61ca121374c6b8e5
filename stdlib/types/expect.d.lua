---@meta
-- LuaLS definitions of bglua's regression-suite helpers (bglua test).

---@class expect.Matchers
local Matchers = {}
---Deep equality for tables.
function Matchers.to_equal(v) end
---|actual - v| <= rel * |v| (rel defaults to 1e-9).
---@param v number
---@param rel? number
function Matchers.to_be_near(v, rel) end
---@param limit number
function Matchers.to_be_below(limit) end
---@param limit number
function Matchers.to_be_above(limit) end
function Matchers.to_be_truthy() end
---The function raises an error matching the Lua pattern.
---@param pattern string
function Matchers.to_fail_with(pattern) end

---@param actual any
---@return expect.Matchers
function expect(actual) end
---Group cases (busted style).
---@param name string
---@param fn fun()
function describe(name, fn) end
---A case: fields are run settings (ranks, torus, coll, fails, deadlocks, ...).
---@param name string
---@param fields_or_fn table|fun()
---@param fn? fun()
function it(name, fields_or_fn, fn) end

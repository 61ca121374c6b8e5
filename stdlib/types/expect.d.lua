---@meta
-- LuaLS definitions of bglua's regression-suite helpers (bglua test).

---@class expect.Matchers
local Matchers = {}
---Deep equality for tables.
---@param v any
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
---@param fields_or_fn bglua.Case|fun()
---@param fn? fun()
---@overload fun(name: string, fn: fun())
---@overload fun(name: string) a pending case
function it(name, fields_or_fn, fn) end

---A case of a suite (a *_test.lua file returns an array of them; it() takes
---the same fields). Any run flag is a field, with _ for -.
---@class bglua.Case
---@field name string
---@field run? fun() the case's program, run on every rank
---@field fails? string a Lua pattern: the run must end with a matching error
---@field deadlocks? boolean the run must end in a deadlock
---@field ranks? integer --ranks
---@field torus? string --torus, "XxYxZ"
---@field mesh? boolean --mesh
---@field mode? "co"|"vn"|"heater" --mode
---@field mapping? string --mapping: XYZT, TXYZ or a file
---@field machine? string --machine: bgl, bgc or a file
---@field runtime? "direct"|"bcs" --runtime
---@field timeslice? string --timeslice, e.g. "250us"
---@field routing? "deterministic"|"adaptive" --routing
---@field eager_limit? integer --eager-limit, bytes
---@field rzv_limit? integer --rzv-limit, bytes
---@field coll? string|table<string, string> --coll: "bcast=tree,..." or {bcast = "tree"}
---@field seed? integer --seed
---@field grain? integer --grain
---@field threads? integer --threads
---@field max_vtime? string --max-vtime, e.g. "10ms"
---@field timeout? string --timeout, host wall time, e.g. "30s"
---@field max_memory? string|integer --max-memory, e.g. "2GiB"
---@field args? string[] the program's arg table

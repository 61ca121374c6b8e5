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
function Matchers.to_be_nil() end
---The value's type, as type() names it.
---@param t "nil"|"boolean"|"number"|"string"|"table"|"function"|"thread"|"userdata"
function Matchers.to_be_a(t) end
---A string holding v, or a table with a value equal to v.
---@param v any
function Matchers.to_contain(v) end
---A string matching the Lua pattern.
---@param pattern string
function Matchers.to_match(pattern) end
---The function raises an error matching the Lua pattern.
---@param pattern string
function Matchers.to_fail_with(pattern) end
-- The negations: expect(x).not_to_equal(v) passes where to_equal fails.
---@param v any
function Matchers.not_to_equal(v) end
---@param v number
---@param rel? number
function Matchers.not_to_be_near(v, rel) end
---@param limit number
function Matchers.not_to_be_below(limit) end
---@param limit number
function Matchers.not_to_be_above(limit) end
function Matchers.not_to_be_truthy() end
function Matchers.not_to_be_nil() end
---@param t "nil"|"boolean"|"number"|"string"|"table"|"function"|"thread"|"userdata"
function Matchers.not_to_be_a(t) end
---@param v any
function Matchers.not_to_contain(v) end
---@param pattern string
function Matchers.not_to_match(pattern) end
---@param pattern string
function Matchers.not_to_fail_with(pattern) end

---@param actual any
---@return expect.Matchers
function expect(actual) end
---Group cases (busted style).
---@param name string
---@param fn fun()
function describe(name, fn) end
---A case: fields are run settings (ranks, torus, coll, fails, deadlocks, ...).
---Without a function the case is pending (skipped).
---@param name string
---@param fields_or_fn? bglua.Case|fun()
---@param fn? fun()
---@overload fun(name: string, fn: fun())
---@overload fun(name: string) a pending case
function it(name, fields_or_fn, fn) end
---A pending case: declared, reported as skipped, not run.
---@param name string
function pending(name) end
---Before each case of the block (every case is a simulation of its own).
---@param fn fun()
function setup(fn) end
---After each case of the block, last, even when the case failed.
---@param fn fun()
function teardown(fn) end
---Before each case of the block, after setup; outer blocks first.
---@param fn fun()
function before_each(fn) end
---After each case of the block, even when it failed; inner blocks first.
---@param fn fun()
function after_each(fn) end
---Inside a case: run fn when the case ends, even when it failed.
---@param fn fun()
function finally(fn) end
---busted's other names: context is describe, spec and test are it, and,
---every case being a simulation of its own, lazy_ and strict_ setups and
---teardowns are setup and teardown.
context = describe
spec = it
test = it
lazy_setup, strict_setup = setup, setup
lazy_teardown, strict_teardown = teardown, teardown

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
---@field pending? boolean|string the case is declared and skipped (a string says why)
---@field quiet? boolean --quiet
---@field stats? boolean --stats
---@field stats_json? string --stats-json FILE
---@field trace? string --trace FILE
---@field trace_ranks? string --trace-ranks, e.g. "0-3,8"
---@field mds? string --mds
---@field mds_dir? string --mds-dir

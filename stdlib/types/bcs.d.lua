---@meta
-- LuaLS definitions of bglua's bcs module (buffered coscheduling core
-- primitives, valid with --runtime bcs).

---@class bcs
bcs = {}

---Put data to one or many ranks atomically and signal events.
---@param dests integer|integer[]
---@param data any
---@param remote_event string|integer
---@param local_event? string|integer
function bcs.xfer_and_signal(dests, data, remote_event, local_event) end
---Test (or, with block, wait for) an event: takes one signal of it.
---Returns true, the data and the sending rank, or false.
---@async
---@param event string|integer
---@param block? boolean
---@return boolean signalled
---@return any data
---@return integer source
function bcs.test_event(event, block) end
---Global condition over a set of ranks: is var cmp value on all of them?
---If so and write_var is given, write write_value into write_var on all.
---Takes the global query's latency (under 2 us on BG/L).
---@async
---@param dests integer|integer[]
---@param var string
---@param cmp "=="|"~="|"<"|"<="|">"|">="
---@param value number
---@param write_var? string
---@param write_value? number
---@return boolean
function bcs.compare_and_write(dests, var, cmp, value, write_var, write_value) end
---Write this rank's global variable var (what compare_and_write reads).
---@param var string
---@param value number
function bcs.set(var, value) end
---Read the global variable var of a rank (default: this one).
---@param var string
---@param rank? integer
---@return number
function bcs.get(var, rank) end
---Current time slice number.
---@return integer
function bcs.timeslice() end
---The time slice in seconds (--timeslice).
---@return number
function bcs.slice_length() end
---This rank's monitoring counters (MMDS): primitives[name] = {count, min,
---max, total, avg} in seconds; computation and communication totals; slice.
---@return table
function bcs.stats() end

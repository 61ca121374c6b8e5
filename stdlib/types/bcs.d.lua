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
---Test (or, with block, wait for) an event.
---@async
---@param event string|integer
---@param block? boolean
---@return boolean
function bcs.test_event(event, block) end
---Global condition over a set of ranks: is var cmp value on all of them?
---@async
---@return boolean
function bcs.compare_and_write(dests, var, cmp, value, write_var, write_value) end
---Current time slice number.
---@return integer
function bcs.timeslice() end
---This rank's monitoring counters.
---@return table
function bcs.stats() end

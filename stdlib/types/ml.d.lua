---@meta
-- LuaLS definitions of bglua's ml module: the message layer's active messages
-- and the machine. Calls marked ---@async block the rank in virtual time.

---@class ml
ml = {}

---Register the function run when a message for handler arrives: when this
---rank advances, or, on a machine with thread units (ml.config().comm_threads
---> 0, as --machine bgc), on a unit of its node without the rank polling.
---There it runs to completion on the unit's clock (mpi.compute advances it,
---mpi.wtime reads it); ml.send, ml.task and calls that do not wait may be
---used, anything that blocks (ml.wait, mpi.recv, collectives) is an error.
---info.unit (the unit's index in the node: communication units first, then
---workers) and info.category ("comm" or "worker", the pool of that unit) are
---set on such machines only.
---@param handler string|integer
---@param fn fun(src: integer, data: any, info: {bytes: integer, protocol: string, unit?: integer, category?: "comm"|"worker"})
function ml.register(handler, fn) end
---Send an active message (nonblocking: costs this CPU the send).
---opts.category ("comm" by default, or "worker") says which thread units of
---the destination's node run the handler, on machines with thread units
---([EMU] ThreadCategory); it is checked and ignored on others. From a
---handler on a thread unit the message leaves at the unit's clock.
---@param dest integer
---@param handler string|integer
---@param data any
---@param opts? {protocol?: "auto"|"onepacket"|"eager"|"adaptive"|"rendezvous"|"vn", done?: fun(), category?: "comm"|"worker"}
function ml.send(dest, handler, data, opts) end
---Make this rank's messages that name no protocol (MPI's, and ml.send
---without opts.protocol) use this one where it applies; "auto" restores the
---size rule.
---@param name "auto"|"onepacket"|"eager"|"adaptive"|"rendezvous"|"vn"
---@return string previous
function ml.set_protocol(name) end
---Coprocessor mode: whether CPU 1 of this rank's node receives the node's
---aligned rendezvous data (on by default).
---@param on boolean
---@return boolean previous
function ml.set_cohelp(on) end
---Coprocessor mode: run fn as a work unit on CPU 1; what it declares with
---mpi.compute occupies CPU 1, not this rank's CPU. fn must not block.
---@param fn fun(): ...
---@return userdata handle for ml.cojoin
function ml.costart(fn) end
---Wait until a work unit of ml.costart is done; returns what fn returned.
---@async
---@param h userdata
---@return any ...
function ml.cojoin(h) end
---Run the advance loop once: completion callbacks, arrived messages, tasks.
---On a machine with thread units the units run messages and tasks: only the
---completion callbacks (opts.done) and deposit-bit messages are left here.
---When there is nothing to run it waits in virtual time for the next thing
---that concerns the rank (a message, a completion, a task, the end of a
---handler a unit ran for it), so `while not done do ml.advance() end`
---progresses; waiting for what never comes is a deadlock.
---@async
---@return integer ran how many callbacks, handlers and tasks ran
function ml.advance() end
---Advance until pred() is true, blocking in virtual time meanwhile. On a
---machine with thread units it is woken after every handler the units run
---for this rank, and returns no earlier than the end of the last one.
---@async
---@param pred fun(): boolean
function ml.wait(pred) end
---Queue a micro-task on this node ([EMU] addMessage): on a machine with
---thread units it goes to the node's InBuffer, for a unit of its category
---("worker" by default) to run as a handler is run; on others this rank's
---advance loop runs it and the category is checked and ignored.
---@param fn fun()
---@param category? "comm"|"worker"
function ml.task(fn, category) end
---Deposit-bit line multicast: one injection sends data along one torus
---dimension, and every node the packets pass keeps a copy; there the rank in
---this rank's slot t runs handler(src, data, info) when it advances. On a
---torus the line goes round the ring and stops before this node; on a mesh it
---runs to the edge. Nonblocking: costs this CPU the send.
---@param dim 1|2|3|"x"|"y"|"z"
---@param dir 1|-1
---@param handler string|integer
---@param data any
---@return integer reached how many ranks the line reaches
function ml.deposit(dim, dir, handler, data) end
---Broadcast over the collective (tree) network: every rank of the partition
---calls it; returns the root's data.
---@async
---@param data any
---@param root integer
---@return any
function ml.tree_bcast(data, root) end
---Combine a value from every rank with the tree network's ALU (integer and
---two-pass floating-point sums, max, min, and, or); every rank gets the result.
---@async
---@param value number|number[]
---@param op mpi.Op
---@return number|number[]
function ml.tree_reduce(value, op) end
---Barrier on the global-interrupt network (about 1.5 us on the full machine).
---@async
function ml.gi_barrier() end
---Torus coordinates of a rank (default this one).
---@param rank? integer
---@return integer x, integer y, integer z, integer t
function ml.coords(rank) end
---Rank at a position, or nil.
---@param x integer
---@param y integer
---@param z integer
---@param t? integer default 0
---@return integer?
function ml.rank_of(x, y, z, t) end
---Torus dimensions and ranks per node.
---@return integer X, integer Y, integer Z, integer T
function ml.dims() end
---Manhattan distance between the nodes of two ranks, wrap-around included.
---@param a integer
---@param b integer
---@return integer
function ml.hops(a, b) end
---Node index of a rank.
---@param rank? integer
---@return integer
function ml.node(rank) end
---@return "co"|"vn"|"heater"
function ml.mode() end
---The machine constants in force (read-only).
---@return table<string, number|string>
function ml.config() end

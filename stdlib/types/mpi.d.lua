---@meta
-- LuaLS definitions of bglua's mpi module (`bglua editor-setup` installs them).
-- Calls marked ---@async block the rank in virtual time.

---@class mpi
mpi = {}

---@alias mpi.value nil|boolean|number|string|table|mpi.bytes a message: plain data, no functions or cycles
---@alias mpi.op mpi.Op|fun(a: any, b: any): any

---A reduction operator; callable: mpi.SUM(a, b) combines two values as a
---reduction step would (and costs the CPU what one step costs).
---@class mpi.Op
---@operator call(any, any): any
---@class mpi.bytes
---@class mpi.Status
---@field source integer rank of the sender in the communicator
---@field tag integer
---@field bytes integer modeled size of the message
---@field cancelled? true set for a receive that mpi.cancel took back

---The keywords of mpi.sendrecv{...} (mpi4py's names).
---@class mpi.SendrecvArgs
---@field data mpi.value
---@field dest integer
---@field source? integer mpi.ANY_SOURCE if absent
---@field sendtag? integer 0 if absent
---@field recvtag? integer mpi.ANY_TAG if absent
---@field comm? Comm mpi.COMM_WORLD if absent (mpi.sendrecv only)

---@class Request
local Request = {}
---A message taken out of matching by mpi.mprobe or mpi.improbe.
---@class mpi.Message
local Message = {}
---@class Comm
local Comm = {}
---@class Cart: Comm
local Cart = {}

mpi.ANY_SOURCE = -1 ---@type integer
mpi.ANY_TAG = -1 ---@type integer
mpi.PROC_NULL = -2 ---@type integer
mpi.UNDEFINED = -32766 ---@type integer
mpi.COMM_WORLD = nil ---@type Comm
mpi.SUM = nil ---@type mpi.Op
mpi.PROD = nil ---@type mpi.Op
mpi.MAX = nil ---@type mpi.Op
mpi.MIN = nil ---@type mpi.Op
mpi.LAND = nil ---@type mpi.Op
mpi.LOR = nil ---@type mpi.Op
mpi.BAND = nil ---@type mpi.Op
mpi.BOR = nil ---@type mpi.Op
mpi.MAXLOC = nil ---@type mpi.Op
mpi.MINLOC = nil ---@type mpi.Op

---@class mpi.coll
mpi.coll = {}

---The parameters --coll gives an algorithm (--coll bcast=chain:seg=32k,radix=4
---gives {seg = 32768, radix = 4}): numbers for numbers and sizes, strings
---otherwise; an empty table when none were given. The algorithm checks them.
---@alias mpi.CollParams table<string, number|string>

---Make fn an algorithm for a collective, selectable with the option
---`--coll name=alg[:key=value,...]`. fn(comm, args..., params) gets the
---user's arguments (bcast: data, root; allreduce: value, op; barrier: none)
---and, last, the parameters (mpi.CollParams, always a table), and returns
---what the built-in returns on that rank; comm's point-to-point calls do not
---mix with the user's messages. See stdlib/coll.lua for templates.
---@param name string a collective: bcast, reduce, allreduce, gather, ...
---@param alg string the algorithm's name for --coll
---@param fn fun(comm: Comm, ...: any): any
function mpi.coll.register(name, alg, fn) end
---The algorithm in force for a collective: the one chosen with --coll, with
---its parameters if any ("chain:seg=32768,radix=4"), "auto", or "bcs" (the
---bcs runtime's own); and, second, the algorithm that
---ran this rank's last call of it on comm (what auto chose, or what a
---hardware algorithm fell back on on a sub-communicator), nil before the
---first call. A --coll choice runs as chosen or stops the run with an error.
---@param name string
---@param comm? Comm default mpi.COMM_WORLD
---@return string in_force
---@return string|nil ran
function mpi.coll.algorithm(name, comm) end

---A communicator with a process grid (row-major, last dimension fastest).
---@async
---@param comm Comm
---@param dims integer[] 0 entries are filled in as MPI_Dims_create does
---@param periods? boolean[]
---@return Cart
function mpi.cart_create(comm, dims, periods) end
---Balanced grid dimensions for n ranks (0 entries of dims are free).
---@param n integer
---@param dims integer[]
---@return integer[]
function mpi.dims_create(n, dims) end

---Rank of this process in COMM_WORLD (0-based).
---@return integer
function mpi.rank() end
---Number of ranks in COMM_WORLD.
---@return integer
function mpi.size() end
---The COMM_WORLD rank of rank r of COMM_WORLD (itself; r defaults to this rank).
---@param r? integer
---@return integer
function mpi.world_rank(r) end
---Where rank r of COMM_WORLD runs: its node's x, y, z and its slot t on the node.
---@param r? integer rank (default: this rank)
---@return integer x
---@return integer y
---@return integer z
---@return integer t
function mpi.torus_coords(r) end
---The smallest box of nodes holding every rank of COMM_WORLD: low x, y, z, high x, y, z.
---@return integer x0
---@return integer y0
---@return integer z0
---@return integer x1
---@return integer y1
---@return integer z1
function mpi.torus_bounds() end
---Blocking standard send.
---@async
---@param data mpi.value
---@param dest integer
---@param tag? integer default 0
function mpi.send(data, dest, tag) end
---Blocking receive; source and tag default to ANY_SOURCE and ANY_TAG.
---@async
---@param source? integer
---@param tag? integer
---@return any data
---@return mpi.Status status
function mpi.recv(source, tag) end
---Start a send.
---@param data mpi.value
---@param dest integer
---@param tag? integer
---@return Request
function mpi.isend(data, dest, tag) end
---Post a receive.
---@param source? integer
---@param tag? integer
---@return Request
function mpi.irecv(source, tag) end
---Wait for a request.
---@async
---@param req Request
---@return any data
---@return mpi.Status? status
function mpi.wait(req) end
---Wait for all requests.
---@async
---@param reqs Request[]
---@return any[] data
---@return mpi.Status[] statuses
function mpi.waitall(reqs) end
---Wait for one request; returns its 1-based index.
---@async
---@param reqs Request[]
---@return integer index
---@return any data
---@return mpi.Status? status
function mpi.waitany(reqs) end
---Is the request complete?
---@param req Request
---@return boolean done
---@return any data
---@return mpi.Status? status
function mpi.test(req) end
---Are all requests complete? As mpi4py's Request.testall: false alone while
---any is pending; once all are, true and what mpi.waitall gives.
---@param reqs Request[]
---@return boolean done
---@return any[]? data one per request (nil for sends); nil while pending
---@return mpi.Status[]? statuses one per request; nil while pending
function mpi.testall(reqs) end
---Wait until a matching message can be received.
---@async
---@param source? integer
---@param tag? integer
---@return mpi.Status
function mpi.probe(source, tag) end
---Is a matching message there?
---@param source? integer
---@param tag? integer
---@return boolean flag
---@return mpi.Status? status
function mpi.iprobe(source, tag) end
---Blocking synchronous send: returns once a receive has matched the
---message (under bcs every send waits for its receive anyway).
---@async
---@param data mpi.value
---@param dest integer
---@param tag? integer default 0
function mpi.ssend(data, dest, tag) end
---Start a synchronous send: the request completes once a receive has
---matched the message and its data has left.
---@param data mpi.value
---@param dest integer
---@param tag? integer default 0
---@return Request
function mpi.issend(data, dest, tag) end
---Wait for a message that a receive from source with tag would match and
---take it out of matching: only mpi.mrecv(msg) receives it, once.
---@async
---@param source? integer
---@param tag? integer
---@return mpi.Message msg
---@return mpi.Status status
function mpi.mprobe(source, tag) end
---As mpi.mprobe, without waiting: nil when no message matches.
---@param source? integer
---@param tag? integer
---@return mpi.Message? msg
---@return mpi.Status? status
function mpi.improbe(source, tag) end
---A persistent send, inactive until mpi.start: each start sends the value
---given here.
---@param data mpi.value
---@param dest integer
---@param tag? integer default 0
---@return Request
function mpi.send_init(data, dest, tag) end
---A persistent receive, inactive until mpi.start.
---@param source? integer
---@param tag? integer
---@return Request
function mpi.recv_init(source, tag) end
---Receive the message of a matched probe; a handle receives once.
---@async
---@param msg mpi.Message
---@return any data
---@return mpi.Status status
function mpi.mrecv(msg) end
---Start the receive of the message of a matched probe.
---@param msg mpi.Message
---@return Request
function mpi.imrecv(msg) end
---Cancel a receive that no message has matched yet: it completes with no
---data and status.cancelled true. A matched receive completes normally.
---Sends cannot be cancelled (an error). Under --runtime bcs, until a strobe matched it.
---@param req Request
function mpi.cancel(req) end
---Start a persistent request (mpi.send_init, mpi.recv_init); an error if it
---is active (started and not yet completed by a wait or test).
---@param req Request
function mpi.start(req) end
---Start persistent requests; none starts if one cannot.
---@param reqs Request[]
function mpi.startall(reqs) end
---Send to dest and receive from source at once. The positional order is
---MPI_Sendrecv's (the third argument is the source, not mpi4py's sendtag);
---mpi.sendrecv{data=, dest=, ...} takes mpi4py's keywords.
---@async
---@param data mpi.value
---@param dest integer
---@param source? integer mpi.ANY_SOURCE if absent
---@param sendtag? integer 0 if absent
---@param recvtag? integer mpi.ANY_TAG if absent
---@return any data
---@return mpi.Status status
---@overload fun(args: mpi.SendrecvArgs): any, mpi.Status
function mpi.sendrecv(data, dest, source, sendtag, recvtag) end
---@async
function mpi.barrier() end
---@async
---@param data mpi.value meaningful at the root only
---@param root? integer default 0 (as mpi4py)
---@return any
function mpi.bcast(data, root) end
---@async
---@param value number|number[]|any
---@param op? mpi.op default mpi.SUM (as mpi4py)
---@param root? integer default 0 (as mpi4py)
---@return any result at the root, nil elsewhere
function mpi.reduce(value, op, root) end
---@async
---@param value number|number[]|any
---@param op? mpi.op default mpi.SUM (as mpi4py)
---@return any
function mpi.allreduce(value, op) end
---@async
---@param value mpi.value
---@param root? integer default 0 (as mpi4py)
---@return any[]? values t[r+1] from rank r, at the root
function mpi.gather(value, root) end
---@async
---@param value mpi.value
---@param root? integer default 0 (as mpi4py)
---@return any[]?
function mpi.gatherv(value, root) end
---@async
---@param value mpi.value
---@return any[]
function mpi.allgather(value) end
---@async
---@param value mpi.value
---@return any[]
function mpi.allgatherv(value) end
---@async
---@param t any[] t[r+1] goes to rank r (read at the root)
---@param root? integer default 0 (as mpi4py)
---@return any
function mpi.scatter(t, root) end
---@async
---@param t any[]
---@param root? integer default 0 (as mpi4py)
---@return any
function mpi.scatterv(t, root) end
---@async
---@param t any[] t[r+1] goes to rank r
---@return any[]
function mpi.alltoall(t) end
---@async
---@param t any[]
---@return any[]
function mpi.alltoallv(t) end
---@async
---@param t any[] this rank's contribution to each rank's result
---@param op? mpi.op default mpi.SUM (as mpi4py)
---@return any
function mpi.reduce_scatter(t, op) end
---@async
---@param value any
---@param op? mpi.op default mpi.SUM (as mpi4py)
---@return any
function mpi.scan(value, op) end
---@async
---@param value any
---@param op? mpi.op default mpi.SUM (as mpi4py)
---@return any nil on rank 0
function mpi.exscan(value, op) end
---@async
---@param color integer
---@param key? integer
---@return Comm?
function mpi.split(color, key) end
---@async
---@return Comm
function mpi.dup() end
---Virtual seconds since the start, including the CPU time the rank's calls
---already charged (a call may return with its CPU still busy, as
---mpi.SUM(a, b) does): a reading after a call includes its whole cost.
---@return number
function mpi.wtime() end
---Virtual CPU cycles since the start (the same clock as mpi.wtime).
---@return integer
function mpi.cycles() end
---Begin a region of this rank's program named `name`: a slice of the
---trace (`--trace`) around the calls made until the matching
---mpi.trace_end, and a row of `--stats` (count, min, mean, max, total
---virtual time per name). Regions nest; they take no virtual time. A rank
---that ends with a region open is an error.
---@param name string
function mpi.trace_begin(name) end
---End the innermost open region. With `name`, it must be that region's
---name. Ending a region that is not open is an error.
---@param name? string
function mpi.trace_end(name) end
---Model local computation: seconds, {cycles=N} or {flops=N}.
---@async
---@param work number|{cycles: integer}|{flops: number}
function mpi.compute(work) end
---Stop every rank; the run exits with status code (1 if absent), as
---MPI_Abort; mpi.abort(code) as mpi4py's Abort(errorcode).
---@param msg? string
---@param code? integer
---@overload fun(code: integer)
function mpi.abort(msg, code) end
---A phantom payload: costs the network n bytes, carries no data.
---@param n integer
---@return mpi.bytes
function mpi.bytes(n) end

---Rank of this process in the communicator (0-based).
---@return integer
function Comm:rank() end
---The COMM_WORLD rank of member r of the communicator (default: this rank).
---@param r? integer
---@return integer
function Comm:world_rank(r) end
---Where member r of the communicator runs: its node's x, y, z and its slot t.
---@param r? integer member (default: this rank)
---@return integer x
---@return integer y
---@return integer z
---@return integer t
function Comm:torus_coords(r) end
---The smallest box of nodes holding every member: low x, y, z, high x, y, z.
---@return integer x0
---@return integer y0
---@return integer z0
---@return integer x1
---@return integer y1
---@return integer z1
function Comm:torus_bounds() end
---Number of ranks in the communicator.
---@return integer
function Comm:size() end
---Blocking standard send.
---@async
---@param data mpi.value
---@param dest integer
---@param tag? integer default 0
function Comm:send(data, dest, tag) end
---Blocking receive; source and tag default to ANY_SOURCE and ANY_TAG.
---@async
---@param source? integer
---@param tag? integer
---@return any data
---@return mpi.Status status
function Comm:recv(source, tag) end
---Start a send.
---@param data mpi.value
---@param dest integer
---@param tag? integer
---@return Request
function Comm:isend(data, dest, tag) end
---Post a receive.
---@param source? integer
---@param tag? integer
---@return Request
function Comm:irecv(source, tag) end
---Send to dest and receive from source at once. The positional order is
---MPI_Sendrecv's (the third argument is the source, not mpi4py's sendtag);
---mpi.sendrecv{data=, dest=, ...} takes mpi4py's keywords.
---@async
---@param data mpi.value
---@param dest integer
---@param source? integer mpi.ANY_SOURCE if absent
---@param sendtag? integer 0 if absent
---@param recvtag? integer mpi.ANY_TAG if absent
---@return any data
---@return mpi.Status status
---@overload fun(args: mpi.SendrecvArgs): any, mpi.Status
function Comm:sendrecv(data, dest, source, sendtag, recvtag) end
---Wait until a matching message can be received.
---@async
---@param source? integer
---@param tag? integer
---@return mpi.Status
function Comm:probe(source, tag) end
---Is a matching message there?
---@param source? integer
---@param tag? integer
---@return boolean flag
---@return mpi.Status? status
function Comm:iprobe(source, tag) end
---Blocking synchronous send: returns once a receive has matched the
---message (under bcs every send waits for its receive anyway).
---@async
---@param data mpi.value
---@param dest integer
---@param tag? integer default 0
function Comm:ssend(data, dest, tag) end
---Start a synchronous send: the request completes once a receive has
---matched the message and its data has left.
---@param data mpi.value
---@param dest integer
---@param tag? integer default 0
---@return Request
function Comm:issend(data, dest, tag) end
---Wait for a message that a receive from source with tag would match and
---take it out of matching: only mpi.mrecv(msg) receives it, once.
---@async
---@param source? integer
---@param tag? integer
---@return mpi.Message msg
---@return mpi.Status status
function Comm:mprobe(source, tag) end
---As mpi.mprobe, without waiting: nil when no message matches.
---@param source? integer
---@param tag? integer
---@return mpi.Message? msg
---@return mpi.Status? status
function Comm:improbe(source, tag) end
---A persistent send, inactive until mpi.start: each start sends the value
---given here.
---@param data mpi.value
---@param dest integer
---@param tag? integer default 0
---@return Request
function Comm:send_init(data, dest, tag) end
---A persistent receive, inactive until mpi.start.
---@param source? integer
---@param tag? integer
---@return Request
function Comm:recv_init(source, tag) end
---Only on a cartesian communicator (Cart:neighbor_allgather); an error here.
---@async
---@param value mpi.value
---@return table
function Comm:neighbor_allgather(value) end
---Only on a cartesian communicator (Cart:neighbor_alltoall); an error here.
---@async
---@param t table
---@return table
function Comm:neighbor_alltoall(t) end
---@async
function Comm:barrier() end
---@async
---@param data mpi.value meaningful at the root only
---@param root? integer default 0 (as mpi4py)
---@return any
function Comm:bcast(data, root) end
---@async
---@param value number|number[]|any
---@param op? mpi.op default mpi.SUM (as mpi4py)
---@param root? integer default 0 (as mpi4py)
---@return any result at the root, nil elsewhere
function Comm:reduce(value, op, root) end
---@async
---@param value number|number[]|any
---@param op? mpi.op default mpi.SUM (as mpi4py)
---@return any
function Comm:allreduce(value, op) end
---@async
---@param value mpi.value
---@param root? integer default 0 (as mpi4py)
---@return any[]? values t[r+1] from rank r, at the root
function Comm:gather(value, root) end
---@async
---@param value mpi.value
---@param root? integer default 0 (as mpi4py)
---@return any[]?
function Comm:gatherv(value, root) end
---@async
---@param value mpi.value
---@return any[]
function Comm:allgather(value) end
---@async
---@param value mpi.value
---@return any[]
function Comm:allgatherv(value) end
---@async
---@param t any[] t[r+1] goes to rank r (read at the root)
---@param root? integer default 0 (as mpi4py)
---@return any
function Comm:scatter(t, root) end
---@async
---@param t any[]
---@param root? integer default 0 (as mpi4py)
---@return any
function Comm:scatterv(t, root) end
---@async
---@param t any[] t[r+1] goes to rank r
---@return any[]
function Comm:alltoall(t) end
---@async
---@param t any[]
---@return any[]
function Comm:alltoallv(t) end
---@async
---@param t any[] this rank's contribution to each rank's result
---@param op? mpi.op default mpi.SUM (as mpi4py)
---@return any
function Comm:reduce_scatter(t, op) end
---@async
---@param value any
---@param op? mpi.op default mpi.SUM (as mpi4py)
---@return any
function Comm:scan(value, op) end
---@async
---@param value any
---@param op? mpi.op default mpi.SUM (as mpi4py)
---@return any nil on rank 0
function Comm:exscan(value, op) end
---@async
---@param color integer
---@param key? integer
---@return Comm?
function Comm:split(color, key) end
---@async
---@return Comm
function Comm:dup() end

---Neighbours along a dimension: the ranks disp steps down and up
---(mpi.PROC_NULL past a non-periodic edge).
---@param dim integer 0-based
---@param disp integer
---@return integer source
---@return integer dest
function Cart:shift(dim, disp) end
---Grid coordinates of a rank (default this one), 0-based.
---@param rank? integer
---@return integer[]
function Cart:coords(rank) end
---Rank at grid coordinates.
---@param coords integer[]
---@return integer
function Cart:rank_of(coords) end
---The grid's dimensions and periods.
---@return integer[] dims
---@return boolean[] periods
function Cart:dims() end
---Send value to every neighbour and return what each sent: for each
---dimension the neighbour a step down, then the one a step up (nil past the
---edge of a non-periodic dimension); t.n is 2 per dimension.
---@async
---@param value mpi.value
---@return table t
function Cart:neighbor_allgather(value) end
---t[i] goes to neighbour i (order as neighbor_allgather's); returns what
---each neighbour sent this rank, in the same order; t.n is 2 per dimension.
---@async
---@param t table one value per neighbour position, 2 per dimension
---@return table
function Cart:neighbor_alltoall(t) end

---@async
---@return any data
---@return mpi.Status? status
function Request:wait() end
---@return boolean done
---@return any data
---@return mpi.Status? status
function Request:test() end
---As mpi.cancel(req).
function Request:cancel() end
---As mpi.start(req).
function Request:start() end

---@async
---@return any data
---@return mpi.Status status
function Message:recv() end
---@return Request
function Message:irecv() end

-- Nonblocking collectives (MPI-3): each starts its collective and returns a
-- request; mpi.wait(req) (test, waitall, waitany, testall) gives what the
-- blocking form returns, and a nil status. Under --runtime bcs the runtime
-- carries them out: done in the slice after every rank started it.
-- docs/lua-api.md, Nonblocking collectives.
---Start barrier without waiting; wait gives what mpi.barrier gives.
---@return Request
function mpi.ibarrier() end
---Start bcast without waiting; wait gives what mpi.bcast gives (the root's data).
---@param data mpi.value meaningful at the root only
---@param root? integer default 0
---@return Request
function mpi.ibcast(data, root) end
---Start reduce without waiting; wait gives what mpi.reduce gives (the result at the root, nil elsewhere).
---@param value number|number[]|any
---@param op? mpi.op default mpi.SUM
---@param root? integer default 0
---@return Request
function mpi.ireduce(value, op, root) end
---Start allreduce without waiting; wait gives what mpi.allreduce gives.
---@param value number|number[]|any
---@param op? mpi.op default mpi.SUM
---@return Request
function mpi.iallreduce(value, op) end
---Start gather without waiting; wait gives what mpi.gather gives (t[r+1] from rank r at the root).
---@param value mpi.value
---@param root? integer default 0
---@return Request
function mpi.igather(value, root) end
---Start gatherv without waiting; wait gives what mpi.gatherv gives.
---@param value mpi.value
---@param root? integer default 0
---@return Request
function mpi.igatherv(value, root) end
---Start scatter without waiting; wait gives what mpi.scatter gives.
---@param t any[] t[r+1] goes to rank r (read at the root)
---@param root? integer default 0
---@return Request
function mpi.iscatter(t, root) end
---Start scatterv without waiting; wait gives what mpi.scatterv gives.
---@param t any[]
---@param root? integer default 0
---@return Request
function mpi.iscatterv(t, root) end
---Start allgather without waiting; wait gives what mpi.allgather gives.
---@param value mpi.value
---@return Request
function mpi.iallgather(value) end
---Start allgatherv without waiting; wait gives what mpi.allgatherv gives.
---@param value mpi.value
---@return Request
function mpi.iallgatherv(value) end
---Start alltoall without waiting; wait gives what mpi.alltoall gives.
---@param t any[] t[r+1] goes to rank r
---@return Request
function mpi.ialltoall(t) end
---Start alltoallv without waiting; wait gives what mpi.alltoallv gives.
---@param t any[]
---@return Request
function mpi.ialltoallv(t) end
---Start reduce_scatter without waiting; wait gives what mpi.reduce_scatter gives.
---@param t any[] this rank's contribution to each rank's result
---@param op? mpi.op default mpi.SUM
---@return Request
function mpi.ireduce_scatter(t, op) end
---Start scan without waiting; wait gives what mpi.scan gives.
---@param value any
---@param op? mpi.op default mpi.SUM
---@return Request
function mpi.iscan(value, op) end
---Start exscan without waiting; wait gives what mpi.exscan gives (nil on rank 0).
---@param value any
---@param op? mpi.op default mpi.SUM
---@return Request
function mpi.iexscan(value, op) end
---Start barrier without waiting; wait gives what mpi.barrier gives.
---@return Request
function Comm:ibarrier() end
---Start bcast without waiting; wait gives what mpi.bcast gives (the root's data).
---@param data mpi.value meaningful at the root only
---@param root? integer default 0
---@return Request
function Comm:ibcast(data, root) end
---Start reduce without waiting; wait gives what mpi.reduce gives (the result at the root, nil elsewhere).
---@param value number|number[]|any
---@param op? mpi.op default mpi.SUM
---@param root? integer default 0
---@return Request
function Comm:ireduce(value, op, root) end
---Start allreduce without waiting; wait gives what mpi.allreduce gives.
---@param value number|number[]|any
---@param op? mpi.op default mpi.SUM
---@return Request
function Comm:iallreduce(value, op) end
---Start gather without waiting; wait gives what mpi.gather gives (t[r+1] from rank r at the root).
---@param value mpi.value
---@param root? integer default 0
---@return Request
function Comm:igather(value, root) end
---Start gatherv without waiting; wait gives what mpi.gatherv gives.
---@param value mpi.value
---@param root? integer default 0
---@return Request
function Comm:igatherv(value, root) end
---Start scatter without waiting; wait gives what mpi.scatter gives.
---@param t any[] t[r+1] goes to rank r (read at the root)
---@param root? integer default 0
---@return Request
function Comm:iscatter(t, root) end
---Start scatterv without waiting; wait gives what mpi.scatterv gives.
---@param t any[]
---@param root? integer default 0
---@return Request
function Comm:iscatterv(t, root) end
---Start allgather without waiting; wait gives what mpi.allgather gives.
---@param value mpi.value
---@return Request
function Comm:iallgather(value) end
---Start allgatherv without waiting; wait gives what mpi.allgatherv gives.
---@param value mpi.value
---@return Request
function Comm:iallgatherv(value) end
---Start alltoall without waiting; wait gives what mpi.alltoall gives.
---@param t any[] t[r+1] goes to rank r
---@return Request
function Comm:ialltoall(t) end
---Start alltoallv without waiting; wait gives what mpi.alltoallv gives.
---@param t any[]
---@return Request
function Comm:ialltoallv(t) end
---Start reduce_scatter without waiting; wait gives what mpi.reduce_scatter gives.
---@param t any[] this rank's contribution to each rank's result
---@param op? mpi.op default mpi.SUM
---@return Request
function Comm:ireduce_scatter(t, op) end
---Start scan without waiting; wait gives what mpi.scan gives.
---@param value any
---@param op? mpi.op default mpi.SUM
---@return Request
function Comm:iscan(value, op) end
---Start exscan without waiting; wait gives what mpi.exscan gives (nil on rank 0).
---@param value any
---@param op? mpi.op default mpi.SUM
---@return Request
function Comm:iexscan(value, op) end
---Who progresses this rank's nonblocking collectives: "coprocessor" (CPU 1,
---coprocessor mode) or "inline" (only inside the rank's MPI calls).
---@return "coprocessor"|"inline"
function mpi.progress_model() end

---@meta
-- LuaLS definitions of the base library a rank sees: Lua 5.1's, without what
-- bglua's sandbox removes (dofile, loadfile, module, newproxy,
-- collectgarbage; the io, os, debug and package libraries, string.dump), and
-- with os.time and os.clock on virtual time. `bglua editor-setup` turns
-- LuaLS's own basic, io, os, debug and package libraries off so that these
-- stand instead, and an editor flags a call of what a rank cannot reach.

---The program's arguments (after PROGRAM.lua on the command line).
---@type string[]
arg = {}

---The global table.
---@type table
_G = {}

---"Lua 5.1".
---@type string
_VERSION = "Lua 5.1"

---Raise an error if v is false or nil; else return all arguments.
---@generic T
---@param v? T
---@param message? any
---@param ... any
---@return T
---@return any ...
function assert(v, message, ...) end

---Raise an error; level 1 (default) names the caller's position.
---@param message any
---@param level? integer
function error(message, level) end

---The environment of a function (or of the function at a stack level).
---@param f? integer|function
---@return table
function getfenv(f) end

---The metatable of object, or its __metatable field.
---@param object any
---@return any
function getmetatable(object) end

---Iterate over t[1], t[2], ... up to the first nil.
---@generic V
---@param t V[]
---@return fun(t: V[], i?: integer): integer, V
---@return V[]
---@return integer
function ipairs(t) end

---Load a chunk from a function that returns its pieces (source text only:
---bglua loads no bytecode).
---@param func fun(): string?
---@param chunkname? string
---@return function?
---@return string? error
function load(func, chunkname) end

---Load a chunk from source text (no bytecode).
---@param text string
---@param chunkname? string
---@return function?
---@return string? error
function loadstring(text, chunkname) end

---The next key and value of t after key.
---@generic K, V
---@param t table<K, V>
---@param key? K
---@return K?
---@return V?
function next(t, key) end

---Iterate over every key and value of t.
---@generic K, V
---@param t table<K, V>
---@return fun(t: table<K, V>, k?: K): K, V
---@return table<K, V>
function pairs(t) end

---Call f in protected mode: true and its results, or false and the error.
---(An abort, a deadlock or a limit still ends the run.)
---@param f function
---@param ... any
---@return boolean ok
---@return any ...
function pcall(f, ...) end

---Print to stdout, prefixed with the rank ("[3] ") unless --quiet, in
---virtual-time order.
---@param ... any
function print(...) end

---Raw equality (no __eq).
---@param a any
---@param b any
---@return boolean
function rawequal(a, b) end

---t[k] without __index.
---@param t table
---@param k any
---@return any
function rawget(t, k) end

---t[k] = v without __newindex.
---@param t table
---@param k any
---@param v any
---@return table
function rawset(t, k, v) end

---Load a module from the program's directory or bglua's stdlib ("coll").
---@param name string
---@return any
function require(name) end

---The arguments after n (select(n, ...)), or their count (select("#", ...)).
---@param n integer|"#"
---@param ... any
---@return any ...
function select(n, ...) end

---Set the environment of a function (or of the function at a stack level).
---@param f integer|function
---@param t table
---@return function?
function setfenv(f, t) end

---Set t's metatable (nil removes it); returns t.
---@generic T: table
---@param t T
---@param mt? table
---@return T
function setmetatable(t, mt) end

---The number e reads as (in base, 2 to 36), or nil.
---@param e any
---@param base? integer
---@return number?
function tonumber(e, base) end

---e as a string (its __tostring if it has one).
---@param e any
---@return string
function tostring(e) end

---The type of v: "nil", "number", "string", "boolean", "table",
---"function", "thread" or "userdata".
---@param v any
---@return type
function type(v) end

---The elements of list from i (default 1) to j (default #list).
---@param list any[]
---@param i? integer
---@param j? integer
---@return any ...
function unpack(list, i, j) end

---Call f in protected mode with err as its message handler.
---@param f function
---@param err fun(msg: any): any
---@return boolean ok
---@return any ...
function xpcall(f, err) end

---bglua's os: its clocks only, both virtual.
---@class os
os = {}

---The rank's virtual time in seconds (as mpi.wtime()).
---@return number
function os.clock() end

---The rank's virtual time in whole seconds: the same in every run.
---@return integer
function os.time() end

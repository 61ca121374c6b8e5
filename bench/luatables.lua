-- Lua tables on one rank, no MPI: records of a few fields made, read and
-- updated, a dictionary of string keys, method calls through a metatable,
-- pairs. It runs as it is under lua5.1 too, for the side-by-side figure in
-- bench/README.md:  bglua -n 1 bench/luatables.lua 200000  and
-- lua5.1 bench/luatables.lua 200000.
local n = tonumber(arg and arg[1]) or 200000
local recs = {}
for i = 1, n do
  recs[i] = {x = i, y = i * 2, z = i * 3, name = "p"}
end
local s = 0
for _ = 1, 5 do
  for i = 1, n do
    local p = recs[i]
    p.x = p.x + p.y - p.z
    s = s + p.x
  end
end
local d = {}
for i = 1, n do d["k" .. (i % 5000)] = i end
local c = 0
for _, v in pairs(d) do c = c + v end
local C = {}
C.__index = C
function C.get(self) return self.v end
local o = setmetatable({v = 1}, C)
for _ = 1, n * 5 do s = s + o:get() end
print(s, c)

-- Pure Lua on one rank, no MPI: what the interpreter costs (loops, calls,
-- tables, strings). bench/ab.sh compares revisions on it.
local n = tonumber(arg[1]) or 2000000
local function f(x) return x * 2 + 1 end
local s, t = 0, {}
for i = 1, n do
  s = s + f(i) % 7
  t[i % 64 + 1] = s
end
local i = 0
while i < n do i = i + 1; if i % 3 == 0 then s = s - 1 end end
local parts = {}
for k = 1, n / 100 do parts[#parts + 1] = tostring(k % 10) end
print(s, #table.concat(parts))

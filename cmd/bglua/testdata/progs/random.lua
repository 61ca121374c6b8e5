local t = {}
for i = 1, 3 do t[#t + 1] = math.random(1000) end
t[#t + 1] = string.format("%.6f", math.random())
print(table.concat(t, " "))
math.randomseed(42)
print("after randomseed(42):", math.random(100), math.random(5, 9))
local keys = {}
for k in pairs(string) do keys[#keys + 1] = k end
print("string library:", table.concat(keys, ","))

local c = ml.config()
print(c.name, c.clock_hz, c.hop_cycles, c.link_bytes_per_cycle, c.packet_max)
print("read-only:", pcall(function() c.hop_cycles = 1 end))
local n, first = 0, {}
for k, v in pairs(c) do
  n = n + 1
  if n <= 3 then first[#first + 1] = k .. "=" .. tostring(v) end
end
print("listed:", n > 40, table.concat(first, " "))

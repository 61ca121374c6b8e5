local c = ml.config()
print(c.name, c.clock_hz, c.hop_cycles, c.link_bytes_per_cycle, c.packet_max)
print("read-only:", pcall(function() c.hop_cycles = 1 end))

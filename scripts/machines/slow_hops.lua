-- A machine file: BG/L with links half as fast and twice the hop latency.
-- Run: bglua --machine scripts/machines/slow_hops.lua -ranks 512 scripts/pingpong.lua
return {
  base = "bgl",
  link_bytes_per_cycle = 0.125,
  hop_cycles = 126,
}

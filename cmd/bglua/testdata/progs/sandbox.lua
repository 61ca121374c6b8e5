-- What a rank can and cannot reach.
for _, name in ipairs { "io", "debug", "dofile", "loadfile", "channel", "collectgarbage" } do
  print(name, _G[name] == nil and "absent" or "PRESENT")
end
print("os.execute", os.execute == nil and "absent" or "PRESENT")
print("os.clock", os.clock(), "os.time", os.time())
print("require topo", type(require "topo"))
print("require missing", pcall(require, "no_such_module"))
print("loadstring", loadstring("return 1 + 1")())
local keys = {}
for k in pairs(mpi) do keys[#keys + 1] = k end
print("mpi:", table.concat(keys, " "))

-- A single value past the memory limit is the rank's error, before it is made.
local s = string.rep("xxxxxxxx", 2^28)
print(#s)

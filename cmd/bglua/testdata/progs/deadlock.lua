-- Every rank receives first: nobody sends.
local function get()
  return mpi.recv((mpi.rank() + 1) % mpi.size(), 5)
end
local ok = pcall(get)

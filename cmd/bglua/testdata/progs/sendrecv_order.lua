-- mpi4py's comm.sendrecv(x, right, 0) means sendtag 0; bglua's positional
-- order is MPI_Sendrecv's, so 0 is the source: a deadlock whose report
-- says so. The keyword form is mpi4py's.
local r, n = mpi.rank(), mpi.size()
local right, left = (r + 1) % n, (r - 1) % n
local got = mpi.sendrecv{data = r, dest = right, source = left, sendtag = 0}
print("keywords: from", got)
got = mpi.sendrecv(r, right, left)
print("positional: from", got)
mpi.sendrecv(r, right, 0)

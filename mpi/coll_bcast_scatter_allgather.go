package mpi

func init() {
	register("bcast", "scatter_allgather",
		"binomial scatter of n pieces of size/n, then ring allgather of the pieces (MPICH, long messages); the data rides with the root's piece",
		bcastAlg(bcastScatterAllgather))
	register("bcast", "scatter_recursive_doubling",
		"binomial scatter of n pieces of size/n, then recursive-doubling allgather of the pieces (MPICH, medium messages); power-of-two communicators only",
		bcastAlg(bcastScatterRDB))
	register("bcast", "mpich",
		"MPICH's default over point-to-point: binomial below 12 KiB or 8 ranks, else scatter_recursive_doubling on power-of-two communicators below 512 KiB, else scatter_allgather; --stats names the one that ran",
		bcastAlg(bcastMPICH))
}

// bcastLongMsg is MPICH's switch from the recursive-doubling allgather to
// the ring (MPIR_CVAR_BCAST_LONG_MSG_SIZE): below it, and on a power-of-two
// communicator, MPICH's scatter+allgather broadcast doubles.
const bcastLongMsg = 512 << 10

// bcastScatterAllgather is MPICH's long-message broadcast: the value is cut in
// n pieces, scattered down the binomial tree (each child gets the pieces of its
// subtree in one message), then every rank gathers the pieces it lacks around
// a ring. A Value is opaque and cannot be cut, so pieces are modeled: piece i
// is Size*(i+1)/n - Size*i/n bytes without data, and the real Data travels
// once around the ring with piece 0, the root's own piece, which reaches
// relative rank k at ring step k-1. Every message thus has exactly the size
// MPICH's would, and the value is complete when the ring is.
func bcastScatterAllgather(c *Comm, v Value, root int) (Value, error) {
	return bcastScatter(c, v, root, false)
}

// bcastScatterRDB is MPICH's medium-message broadcast on a power-of-two
// communicator: the same binomial scatter, then a recursive-doubling
// allgather, lg n exchanges of 1, 2, 4, ... pieces with the rank whose
// relative rank differs in one bit. It has lg n latencies where the ring has
// n-1, and on a torus its far partners share links where the ring's
// neighbours do not.
func bcastScatterRDB(c *Comm, v Value, root int) (Value, error) {
	if !isPow2(c.Size()) {
		return Value{}, c.cannot("bcast", "scatter_recursive_doubling", "the recursive-doubling allgather needs a power-of-two number of ranks")
	}
	return bcastScatter(c, v, root, true)
}

// bcastScatter is the scatter and the allgather that follows it: recursive
// doubling (rdb) or the ring. The root chooses, and the scatter message says
// which to the others.
func bcastScatter(c *Comm, v Value, root int, rdb bool) (Value, error) {
	n := c.Size()
	rel, parent, mask := binomialPos(c.Rank(), root, n)
	if parent >= 0 {
		m := c.CRecv(parent, tagBcast)
		return bcastScatterAllgatherRest(c, m.Data.(*bcastPieces), root, rel, mask)
	}
	if n == 1 {
		return v, nil
	}
	p := &bcastPieces{total: v.Size, rdb: rdb}
	bcastScatterDown(c, p, root, rel, mask)
	bcastAllgather(c, p, v.Data, root, rel)
	return v, nil
}

// bcastPieces is the scatter message: the pieces of a subtree (its Size) of a
// value of total bytes, and which allgather follows (the root chooses). The
// total travels as MPI's count does, for free.
type bcastPieces struct {
	total int
	rdb   bool
}

// pieceSize is the size of piece i of n of a total-byte value.
func pieceSize(total, n, i int) int {
	return int(int64(total)*int64(i+1)/int64(n) - int64(total)*int64(i)/int64(n))
}

func piecesSize(total, n, lo, hi int) int {
	return int(int64(total)*int64(hi)/int64(n) - int64(total)*int64(lo)/int64(n))
}

// bcastScatterAllgatherRest continues on a non-root rank once the scatter
// message from the parent has arrived.
func bcastScatterAllgatherRest(c *Comm, p *bcastPieces, root, rel, mask int) (Value, error) {
	bcastScatterDown(c, p, root, rel, mask)
	return Value{Data: bcastAllgather(c, p, nil, root, rel), Size: p.total}, nil
}

// bcastAllgather is the allgather p says, of data (the root's) or for it.
func bcastAllgather(c *Comm, p *bcastPieces, data any, root, rel int) any {
	if p.rdb {
		return bcastRDB(c, data, p.total, root, rel)
	}
	return bcastRing(c, data, p.total, root, rel)
}

// bcastScatterDown sends each child the pieces of its subtree.
func bcastScatterDown(c *Comm, p *bcastPieces, root, rel, mask int) {
	n := c.Size()
	for m := mask >> 1; m > 0; m >>= 1 {
		if ch := rel + m; ch < n {
			c.CSend(Value{Data: p, Size: piecesSize(p.total, n, ch, min(ch+m, n))}, (ch+root)%n, tagBcast)
		}
	}
}

// bcastRDB is the recursive-doubling allgather of the pieces, in relative
// ranks, on a power-of-two communicator: at the step of bit b, rank rel holds
// the pieces of the 2^b ranks that agree with it above bit b, and exchanges
// them with rel^2^b for theirs. The data travels with piece 0, so a rank
// sends it when its block holds piece 0 (rel < 2^b) and receives it from a
// partner whose block does. It returns the data.
func bcastRDB(c *Comm, data any, total, root, rel int) any {
	n := c.Size()
	for m := 1; m < n; m <<= 1 {
		partner := rel ^ m
		lo := rel &^ (m - 1)
		out := Value{Size: piecesSize(total, n, lo, lo+m)}
		if rel < m {
			out.Data = data
		}
		peer := (partner + root) % n
		got := c.CSendrecv(out, peer, peer, tagBcastRing)
		if partner < m {
			data = got.Data
		}
	}
	return data
}

// bcastRing is the ring allgather of the pieces, in relative ranks: at step s
// rank rel sends piece rel-s to rel+1 and receives piece rel-s-1 from rel-1.
// It returns the data, which travels with piece 0.
func bcastRing(c *Comm, data any, total, root, rel int) any {
	n := c.Size()
	right, left := (rel+1)%n, (rel-1+n)%n
	for s := 0; s < n-1; s++ {
		send, recv := (rel-s+n)%n, (rel-s-1+n)%n
		out := Value{Size: pieceSize(total, n, send)}
		if send == 0 {
			out.Data = data
		}
		got := c.CSendrecv(out, (right+root)%n, (left+root)%n, tagBcastRing)
		if recv == 0 {
			data = got.Data
		}
	}
	return data
}

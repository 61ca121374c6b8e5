package mpi

func init() {
	register("bcast", "tree",
		"collective network: the root's 256-byte packets go up the partition's tree and down to every node, pipelined at up to 337 MB/s (COMM_WORLD or a copy; else the default)",
		bcastAlg(bcastTree))
}

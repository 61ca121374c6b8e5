package mpi

func init() {
	register("allreduce", "tree",
		"collective network: the tree's integer ALU combines every node's packets and sends the result down to all (floating-point sums in two passes, exact); any predefined operator but PROD, on numbers (else the default)",
		allreduceAlg(allreduceTree))
}

package mpi

func init() {
	register("reduce", "tree",
		"collective network: the tree's integer ALU combines every node's packets (floating-point sums in two passes, exact); any predefined operator but PROD, on numbers (PROD or a Lua operator: an error); COMM_WORLD or a copy, else binomial",
		reduceAlg(reduceTree))
}

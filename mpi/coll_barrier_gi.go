package mpi

func init() {
	register("barrier", "gi",
		"global interrupt network: a hardware barrier of the whole partition, 1.5 us on 65,536 nodes (COMM_WORLD or a copy; else dissemination)",
		barrierAlg(barrierGI))
}

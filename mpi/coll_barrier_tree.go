package mpi

func init() {
	register("barrier", "tree",
		"collective network: a one-packet reduction up and down the partition's tree (COMM_WORLD or a copy; else dissemination)",
		barrierAlg(barrierTree))
}

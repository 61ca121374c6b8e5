// Package hw models the Blue Gene/L machine: its constants (Machine), the torus
// geometry and the mapping of ranks to nodes, deterministic and adaptive routing,
// the busy times of links and processors, the collective and global-interrupt
// networks, the deposit bit and the I/O nodes. It is a pure model: given a
// virtual time and a request it answers with times and reservations. It holds no
// clock, starts no goroutine and does no I/O.
package hw

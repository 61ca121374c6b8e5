// Package hw models the Blue Gene/L machine: the torus geometry and the mapping of
// ranks to nodes, dimension-ordered routing, and the busy times of links and
// processors. It is a pure model: given a virtual time and a request it answers with
// times and reservations. It holds no clock, starts no goroutine and does no I/O.
package hw

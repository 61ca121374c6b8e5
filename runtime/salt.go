package runtime

// tieSalt, when not zero, reorders events of equal tie keys (ScheduleKey)
// by a hash of their sequence numbers instead of the order in which they
// were scheduled. Tests set it (SetTieSalt) to show that a model's results
// do not depend on that order: a model that gives its events tie keys
// meaning that their order follows from what they are must give the same
// results under every salt.
var tieSalt uint64

// SetTieSalt sets the salt for the whole process (0: scheduling order) and
// returns the previous one. For tests only; not safe while engines run.
func SetTieSalt(s uint64) uint64 {
	old := tieSalt
	tieSalt = s
	return old
}

// saltSeq is seq scrambled by the salt (a bijection, so distinct events
// keep distinct sequence numbers).
func saltSeq(seq uint64) uint64 {
	z := seq ^ tieSalt
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

package runtime

// tieSalt, when not zero, has every event with a tie key (ScheduleKey) go
// into its queue later and in another order than it was scheduled in: the
// events scheduled since the queue was last looked at go in together, in
// an order a hash of their keys and the salt gives (those of equal keys in
// an order the salt gives too). Tests set it
// (SetTieSalt) to show that a model's results do not depend on when its
// keyed events were scheduled.
var tieSalt uint64

// SetTieSalt sets the salt for the whole process (0: none) and returns the
// previous one. For tests only; not safe while engines run.
func SetTieSalt(s uint64) uint64 {
	old := tieSalt
	tieSalt = s
	return old
}

// saltKey is key scrambled by the salt.
func saltKey(key uint64) uint64 {
	z := key ^ tieSalt
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

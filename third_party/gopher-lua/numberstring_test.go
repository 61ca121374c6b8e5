package lua

import "testing"

var numberStringSink string

// BenchmarkNumberString measures how a number becomes a string (tostring,
// print, ..): integers, the common case, and fractions.
func BenchmarkNumberString(b *testing.B) {
	for _, c := range []struct {
		name string
		v    LNumber
	}{{"int", 12345}, {"negint", -7}, {"frac", 0.1}, {"third", 1.0 / 3}, {"big", 1e15}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				numberStringSink = c.v.String()
			}
		})
	}
}

// BenchmarkConcatNumbers is Lua code that turns numbers into strings.
func BenchmarkConcatNumbers(b *testing.B) {
	L := NewState()
	defer L.Close()
	fn, err := L.LoadString(`local n = ...; local s; for i = 1, n do s = i .. " " .. (i / 4) end; return s`)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	L.Push(fn)
	L.Push(LNumber(b.N))
	L.Call(1, 1)
}

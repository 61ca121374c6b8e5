package lua

import "testing"

// benchTableLua runs src, a chunk that takes the iteration count, once for b.N.
func benchTableLua(b *testing.B, src string) {
	L := NewState()
	defer L.Close()
	fn, err := L.LoadString(src)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	L.Push(fn)
	L.Push(LNumber(b.N))
	L.Call(1, 0)
}

// BenchmarkTableArray fills an array and reads it back: one op is one
// element written and read.
func BenchmarkTableArray(b *testing.B) {
	benchTableLua(b, `local n = ...; local t = {}; for i = 1, n do t[i] = i end; local s = 0; for i = 1, #t do s = s + t[i] end`)
}

// BenchmarkTableAppend appends with t[#t+1] and table.insert.
func BenchmarkTableAppend(b *testing.B) {
	benchTableLua(b, `local n = ...; local t = {}; for i = 1, n do if i % 2 == 0 then t[#t + 1] = i else table.insert(t, i) end end`)
}

// BenchmarkTableSparse writes and reads integer keys 7 apart.
func BenchmarkTableSparse(b *testing.B) {
	benchTableLua(b, `local n = ...; local t = {}; for i = 1, n do t[i * 7] = i end; local s = 0; for i = 1, n do s = s + t[i * 7] end`)
}

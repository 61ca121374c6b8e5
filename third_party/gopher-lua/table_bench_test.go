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

// BenchmarkTableRecord makes a record of four fields and reads and updates
// them: one op is one record.
func BenchmarkTableRecord(b *testing.B) {
	benchTableLua(b, `local n = ...; local s = 0
for i = 1, n do local p = {x = i, y = 2, z = 3, name = "p"}; p.x = p.x + p.y - p.z; s = s + p.x end`)
}

// BenchmarkTableObject calls a method through a metatable's __index: one
// op is one call.
func BenchmarkTableObject(b *testing.B) {
	benchTableLua(b, `local n = ...; local C = {}; C.__index = C
function C.get(self) return self.v end
local o = setmetatable({v = 1}, C); local s = 0
for i = 1, n do s = s + o:get() end`)
}

// BenchmarkTableStringKeys writes and reads string keys of a table of
// 1,000 of them: one op is one write and one read.
func BenchmarkTableStringKeys(b *testing.B) {
	benchTableLua(b, `local n = ...; local keys = {}; for i = 1, 1000 do keys[i] = "k" .. i end
local d, s = {}, 0
for i = 1, n do local k = keys[i % 1000 + 1]; d[k] = i; s = s + d[k] end`)
}

// BenchmarkTablePairs walks a table of 100 string keys with pairs: one op
// is one key visited.
func BenchmarkTablePairs(b *testing.B) {
	benchTableLua(b, `local n = ...; local d = {}; for i = 1, 100 do d["k" .. i] = i end
local s, left = 0, n
while left > 0 do for k, v in pairs(d) do s = s + v; left = left - 1; if left == 0 then break end end end`)
}

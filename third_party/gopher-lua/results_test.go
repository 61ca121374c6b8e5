package lua

import "testing"

// TestResults: a Go function sees how many results its caller takes.
func TestResults(t *testing.T) {
	L := NewState()
	defer L.Close()
	var got []int
	L.SetGlobal("f", L.NewFunction(func(L *LState) int {
		got = append(got, L.Results())
		L.Push(LNumber(1))
		L.Push(LNumber(2))
		return 2
	}))
	if err := L.DoString(`
		f()
		local a = f()
		local b, c = f()
		local t = { f() }
		local n = select("#", f())
		local d, e, g = f(), 5
		pcall(f)
	`); err != nil {
		t.Fatal(err)
	}
	want := []int{0, 1, 2, MultRet, MultRet, 1, MultRet}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

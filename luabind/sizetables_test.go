package luabind

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// newTableSizes lists the hash size (C operand) of every NEWTABLE of p and
// its nested functions, in order.
func newTableSizes(p *lua.FunctionProto) []int {
	var out []int
	for _, inst := range p.Code {
		if int(inst>>opShift) == lua.OP_NEWTABLE {
			out = append(out, int(inst>>cShift&cMask))
		}
	}
	for _, f := range p.FunctionPrototypes {
		out = append(out, newTableSizes(f)...)
	}
	return out
}

// An empty constructor whose table then gets fields by name is sized for
// them; one that gets none, or a constructor with fields of its own, is
// left as the compiler made it.
func TestSizeTables(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []int
	}{
		{"module", "local M = {}\nfunction M.a() end\nM.b = 1\nM['c'] = 2\nreturn M", []int{3}},
		{"array", "local t = {}\nfor i = 1, 3 do t[i] = i end\nreturn t", []int{0}},
		{"constructor", "local t = { x = 1, y = 2 }\nt.z = 3\nreturn t", []int{2}},
		{"two tables", "local a = {}\na.x = 1\nlocal b = {}\nb.y = 1\nb.z = 2\nreturn a, b", []int{1, 2}},
		{"nested function", "return function()\n  local o = {}\n  o.k = 1\n  return o\nend", []int{1}},
		{"register reused", "do local a = {}\na.x = 1 end\ndo local b = {}\nb.y = 2\nb.z = 3 end", []int{1, 2}},
	}
	for _, c := range cases {
		p, err := compile(c.name, []byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := newTableSizes(p)
		if len(got) != len(c.want) {
			t.Fatalf("%s: sizes %v, want %v", c.name, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: sizes %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// A sized table is the same table: its fields, their order under pairs and
// its length are those of an unsized one.
func TestSizeTablesSameTables(t *testing.T) {
	src := `local M = {}
M.b = 2; M.a = 1; M[1] = "x"; M.c = nil; M.d = 4
local order = {}
for k, v in pairs(M) do order[#order + 1] = tostring(k) .. "=" .. tostring(v) end
return table.concat(order, ","), #M`
	run := func(size bool) (string, int) {
		p, err := compile("same", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if !size {
			for i, inst := range p.Code {
				if int(inst>>opShift) == lua.OP_NEWTABLE {
					p.Code[i] = inst &^ (cMask << cShift)
				}
			}
		}
		L := lua.NewState()
		defer L.Close()
		L.Push(L.NewFunctionFromProto(p))
		L.Call(0, 2)
		return L.ToString(-2), L.ToInt(-1)
	}
	s1, n1 := run(true)
	s0, n0 := run(false)
	if s1 != s0 || n1 != n0 {
		t.Errorf("sized: %q, %d; unsized: %q, %d", s1, n1, s0, n0)
	}
	if s1 == "" || n1 != 1 {
		t.Errorf("the program gave %q, %d", s1, n1)
	}
}

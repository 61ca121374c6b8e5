package wire

import "testing"

// A text reads back as written, after what came before it; a text cut
// short, or a length past the bytes, sets Bad and reads as "".
func FuzzText(f *testing.F) {
	f.Add("", []byte{})
	f.Add("héllo", []byte{1, 2})
	f.Fuzz(func(t *testing.T, s string, before []byte) {
		b := AppendText(append([]byte(nil), before...), s)
		r := Reader{B: b[len(before):]}
		if got := r.Text(); got != s || r.Bad || len(r.B) != 0 {
			t.Fatalf("%q read back as %q (bad %v, %d bytes left)", s, got, r.Bad, len(r.B))
		}
		if len(s) > 0 {
			short := Reader{B: b[len(before) : len(b)-1]}
			if got := short.Text(); got != "" || !short.Bad {
				t.Fatalf("%q cut short read as %q, bad %v", s, got, short.Bad)
			}
		}
	})
}

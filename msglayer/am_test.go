package msglayer

import (
	"strings"
	"testing"

	"github.com/bglua/bglua/hw"
)

// CheckAM refuses a one-packet message that does not fit a packet with its
// header, and the virtual-node protocol between nodes; the rest goes.
func TestCheckAM(t *testing.T) {
	// Ranks 0 and 2 share node 0, ranks 1 and 3 node 1 (XYZT, 2 per node).
	l, _ := newLayer(t, 4, hw.Dims{X: 2, Y: 1, Z: 1}, 2)
	fits := l.M.PayloadPerPacket() - AMHeader
	for _, c := range []struct {
		src, dst, n int
		proto       Protocol
		err         string
	}{
		{0, 1, fits, OnePacket, ""},
		{0, 1, fits + 1, OnePacket, "do not fit one packet"},
		{0, 2, 1, VN, ""},
		{0, 1, 1, VN, `protocol "vn" is for two ranks of one node`},
		{0, 1, 1 << 20, Auto, ""},
	} {
		err := l.CheckAM(c.src, c.dst, c.n, c.proto)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckAM(%d, %d, %d, %v) = %v, want %q", c.src, c.dst, c.n, c.proto, err, c.err)
		}
	}
}

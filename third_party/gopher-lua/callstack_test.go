package lua

import "testing"

// An auto-growing call stack starts with one segment and a slice of one,
// grows both as frames are pushed, up to its largest size, and gives its
// frames back in order.
func TestCallStackGrows(t *testing.T) {
	const most = 40
	cs := newAutoGrowingCallFrameStack(most).(*autoGrowingCallFrameStack)
	if len(cs.segments) != 1 || cs.segments[0] == nil {
		t.Fatalf("a new stack has %d segments", len(cs.segments))
	}
	for round := range 2 {
		for i := range most {
			cs.Push(callFrame{Pc: i})
			if got := cs.Last().Idx; got != i {
				t.Fatalf("round %d: frame %d has index %d", round, i, got)
			}
		}
		if want := most / FramesPerSegment; len(cs.segments) != want {
			t.Errorf("round %d: %d frames in %d segments, want %d", round, most, len(cs.segments), want)
		}
		for i := range most {
			if got := cs.At(i).Pc; got != i {
				t.Errorf("round %d: At(%d) is frame %d", round, i, got)
			}
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("round %d: a frame past %d did not overflow", round, most)
				}
			}()
			cs.Push(callFrame{})
		}()
		for i := most - 1; i >= 0; i-- {
			if got := cs.Pop().Pc; got != i {
				t.Fatalf("round %d: popped frame %d, want %d", round, got, i)
			}
		}
		if !cs.IsEmpty() {
			t.Errorf("round %d: not empty after popping every frame", round)
		}
	}
}

package runtime

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// boxed is an event that carries a pointer to a value its sender keeps.
type boxed struct {
	v   *int
	got *[]int
}

func (b *boxed) Act(now Time) { *b.got = append(*b.got, *b.v) }

// intCheck's form of a boxed is the value it points to.
type intCheck struct{}

func (intCheck) Form(a Action) []byte {
	if b, ok := a.(*boxed); ok {
		return []byte(fmt.Sprint(*b.v))
	}
	return nil
}

func (intCheck) Differ(a Action, sent, ran []byte) string {
	return fmt.Sprintf("value %s, then %s", sent, ran)
}

// TestCrossingCheck: under a check, an event whose sender changes what it
// points to after sending it stops the run with a *CrossingError; one
// whose sender leaves it alone runs as it would without the check, and so
// do events the check has no form for.
func TestCrossingCheck(t *testing.T) {
	const look = 20
	for _, tc := range []struct {
		name   string
		change bool
		check  bool
	}{
		{"left alone", false, true},
		{"changed, unchecked", true, false},
		{"changed", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGroup(2, look)
			if tc.check {
				g.Check = intCheck{}
			}
			var got, other []string
			var ran []int
			v := 1
			e0, e1 := g.Part(0), g.Part(1)
			e0.Spawn(0, 0, func(p *Proc) {
				p.Sleep(5)
				e0.Send(e1, p.Now()+look, PrioModel, &boxed{v: &v, got: &ran})
				e0.Send(e1, p.Now()+look, PrioModel, logAction{&other, "unchecked"})
				p.Sleep(3)
				if tc.change {
					v = 2
				}
				got = append(got, "sent")
			})
			err := g.Run(context.Background(), 1)
			var ce *CrossingError
			if tc.change && tc.check {
				if !errors.As(err, &ce) || ce.From != 0 || ce.To != 1 || ce.Sent != 5 || ce.Ran != 25 || ce.Diff != "value 1, then 2" {
					t.Fatalf("error %v, want a crossing error", err)
				}
				t.Log(err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := 1
			if tc.change {
				want = 2 // in one process, the event reads the value as it is when it runs
			}
			if len(ran) != 1 || ran[0] != want || len(other) != 1 {
				t.Errorf("ran %v %v, want [%d] and the unchecked event", ran, other, want)
			}
		})
	}
}

package sweep

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/bglua/bglua"
)

// WriteTable writes a line per point of the report, in sweep order: the
// point, its measured virtual time against the Hockney and LogGP models of
// its algorithm (that of its first collective; a point-to-point message
// for auto), its events and messages. A failed point says "failed". The
// table holds no host time: the same sweep writes the same table.
func WriteTable(w io.Writer, s *Spec, r *Report) error {
	// Numbers align right; the labels, padded to one width, left.
	width := len("coll")
	for _, o := range r.Outcomes {
		width = max(width, len(o.Choice.Label))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 0, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\t  ranks\t  size\t  seed\t  time\t  hockney\t  loggp\t  events\t  messages\t\n", width, "coll")
	for _, o := range r.Outcomes {
		coll := o.Choice.collectives()[0]
		f := r.formula(coll, o.Choice)
		nodes := s.nodes(o.Ranks)
		n := float64(o.Size)
		hockney := bglua.FormatSeconds(f.Hockney(o.Ranks, nodes, n))
		loggp := bglua.FormatSeconds(f.LogGP(o.Ranks, nodes, n))
		time, events, msgs := "failed", "-", "-"
		if o.Row != nil {
			time = bglua.FormatSeconds(o.Row.Time)
			events, msgs = strconv.FormatUint(o.Row.Events, 10), strconv.FormatInt(o.Row.Messages, 10)
		}
		fmt.Fprintf(tw, "%-*s\t  %d\t  %d\t  %d\t  %s\t  %s\t  %s\t  %s\t  %s\t\n", width, o.Choice.Label, o.Ranks, o.Size, o.Seed, time, hockney, loggp, events, msgs)
	}
	return tw.Flush()
}

// Package sweep is `bglua sweep`: it runs a program over rank counts,
// sizes, collective algorithms and seeds through the root package's Run,
// one run per point, several at once; keeps the results in a CSV that a
// later sweep resumes from; and draws, per collective, virtual time against
// size with the Hockney and LogGP curves of the machine's constants. It
// uses the root package as any embedder can.
package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bglua/bglua"
)

// SizeArg is the placeholder of a program argument that becomes the size.
const SizeArg = "{size}"

// Choice is one set of collective algorithms a point runs with (one --coll).
type Choice struct {
	Label string            // "bcast=binomial", "auto" for none
	Coll  map[string]string // nil for auto
}

// NewChoice is the choice of algorithms coll (empty: auto), labelled with
// its NAME=ALG pairs sorted by name.
func NewChoice(coll map[string]string) Choice {
	if len(coll) == 0 {
		return Choice{Label: "auto"}
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(coll)) {
		parts = append(parts, k+"="+coll[k])
	}
	return Choice{Label: strings.Join(parts, ","), Coll: coll}
}

// collectives are the collectives of the choice, sorted, or "auto".
func (c Choice) collectives() []string {
	if len(c.Coll) == 0 {
		return []string{"auto"}
	}
	return slices.Sorted(maps.Keys(c.Coll))
}

// Spec is a sweep: a program, the values of each parameter, and how to run.
type Spec struct {
	Program bglua.Program
	// Args are the program's arguments, SizeArg among them or not (then
	// the size comes first); with the program's name, the CSV's program
	// column.
	Args    []string
	Ranks   []int
	Sizes   []int64
	Choices []Choice
	Seeds   []int64
	// Base is the Config of every point before its ranks, seed, algorithms
	// and arguments; Setup says how it differs from the defaults (the
	// command's flags), as part of the key of a point in the CSV.
	Base  bglua.Config
	Setup string
	// Jobs is how many points run at once.
	Jobs int
	// Out is the CSV file; the PNGs go beside it (Out without .csv, then
	// _COLLECTIVE.png). NoHostTime leaves the host time out of the CSV.
	Out        string
	NoHostTime bool
	NoPlots    bool
	// Progress, if set, is called after each point with how many are done,
	// have failed, and are to run in all (the points resumed not counted).
	Progress func(done, failed, total int)
	// Failed, if set, is called when a point fails.
	Failed func(Outcome)
}

// Point is one run of a sweep.
type Point struct {
	Choice Choice
	Ranks  int
	Size   int64
	Seed   int64
}

func (p Point) String() string {
	return fmt.Sprintf("%s ranks=%d size=%d seed=%d", p.Choice.Label, p.Ranks, p.Size, p.Seed)
}

// Outcome is how a point went: its row, or its error.
type Outcome struct {
	Point
	Row     *Row
	Err     error
	Resumed bool // the row was in the CSV already
}

// Report is what a sweep did.
type Report struct {
	Outcomes []Outcome // every point, in sweep order
	Params   Params
	Files    []string // the CSV and the PNGs written
	Notes    []string // what could not be drawn
}

// Ran is how many points ran (not resumed).
func (r *Report) Ran() int {
	n := 0
	for _, o := range r.Outcomes {
		if !o.Resumed {
			n++
		}
	}
	return n
}

// FirstError is the error of the first failed point in sweep order, nil
// if none failed.
func (r *Report) FirstError() error {
	for _, o := range r.Outcomes {
		if o.Err != nil {
			return o.Err
		}
	}
	return nil
}

// points are the points of s, in sweep order: choice, ranks, size, seed.
func (s *Spec) points() []Point {
	var pts []Point
	for _, c := range s.Choices {
		for _, r := range s.Ranks {
			for _, n := range s.Sizes {
				for _, seed := range s.Seeds {
					pts = append(pts, Point{c, r, n, seed})
				}
			}
		}
	}
	return pts
}

// programColumn is the program and its arguments as the CSV names them.
func (s *Spec) programColumn() string {
	return strings.Join(append([]string{s.Program.Name}, s.Args...), " ")
}

// args are the program's arguments at size n: SizeArg replaced by it, or
// n first if no argument holds SizeArg.
func (s *Spec) args(n int64) []string {
	size := strconv.FormatInt(n, 10)
	out := make([]string, 0, len(s.Args)+1)
	found := false
	for _, a := range s.Args {
		if strings.Contains(a, SizeArg) {
			found = true
			a = strings.ReplaceAll(a, SizeArg, size)
		}
		out = append(out, a)
	}
	if !found {
		out = append([]string{size}, out...)
	}
	return out
}

// config is the Config of point p.
func (s *Spec) config(p Point) bglua.Config {
	c := s.Base
	c.Ranks, c.Seed, c.Coll, c.Args = p.Ranks, p.Seed, p.Choice.Coll, s.args(p.Size)
	c.Quiet = true
	c.Threads = 1 // the points are the parallelism; results are the same for every Threads
	return c
}

// Run runs the sweep. Its error is one that stops the sweep before any point
// runs (a bad Config, an unreadable or foreign CSV: a *bglua.UsageError or
// *bglua.ConfigError), or writing its files; a failing point is in the
// Report, and the sweep goes on without it. An interrupt (ctx) stops it:
// the points under way fail with the interrupt, those not started are
// left out of the Report.
func Run(ctx context.Context, s Spec) (*Report, error) {
	pts := s.points()
	for _, p := range pts {
		if err := s.config(p).Validate(); err != nil {
			return nil, err
		}
	}
	m, err := Constants(ctx, s.Base)
	if err != nil {
		return nil, err
	}
	params, err := Derive(m)
	if err != nil {
		return nil, &bglua.UsageError{Msg: err.Error()}
	}
	table, err := openTable(s.Out, header(!s.NoHostTime))
	if err != nil {
		return nil, err
	}
	defer table.close()
	rep := &Report{Params: params, Outcomes: make([]Outcome, len(pts))}
	var todo []int
	prog := s.programColumn()
	for i, p := range pts {
		rep.Outcomes[i].Point = p
		if row, ok := table.rows[key(prog, s.Setup, p)]; ok {
			rep.Outcomes[i].Row, rep.Outcomes[i].Resumed = row, true
		} else {
			todo = append(todo, i)
		}
	}
	ran := s.runAll(ctx, pts, todo, table, rep)
	if err := table.rewrite(rep.rowsInOrder()); err != nil {
		return rep, err
	}
	rep.Outcomes = ran
	rep.Files = append(rep.Files, s.Out)
	if !s.NoPlots {
		files, notes, err := s.plots(rep)
		rep.Files, rep.Notes = append(rep.Files, files...), notes
		if err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// runAll runs the points todo (indexes into pts) on s.Jobs workers, adds
// each row to the table as it comes, and returns the outcomes of the points
// that ran or were resumed, in sweep order (those an interrupt kept from
// starting left out).
func (s *Spec) runAll(ctx context.Context, pts []Point, todo []int, t *table, rep *Report) []Outcome {
	jobs := min(max(s.Jobs, 1), max(len(todo), 1))
	next := make(chan int)
	type result struct {
		i   int
		out Outcome
	}
	results := make(chan result)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					continue // interrupted: start no more points
				}
				results <- result{i, s.runPoint(ctx, pts[i])}
			}
		}()
	}
	go func() {
		defer close(next)
		for _, i := range todo {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	started := make([]bool, len(pts))
	done, failed := 0, 0
	for r := range results {
		started[r.i] = true
		rep.Outcomes[r.i] = r.out
		done++
		if r.out.Err != nil {
			failed++
			if s.Failed != nil {
				s.Failed(r.out)
			}
		} else if err := t.append(r.out.Row); err != nil {
			rep.Outcomes[r.i].Err = err
		}
		if s.Progress != nil {
			s.Progress(done, failed, len(todo))
		}
	}
	var out []Outcome
	for i, o := range rep.Outcomes {
		if o.Resumed || started[i] {
			out = append(out, o)
		}
	}
	return out
}

// runPoint runs one point.
func (s *Spec) runPoint(ctx context.Context, p Point) Outcome {
	var tw timeWriter
	cfg := s.config(p)
	cfg.Stdout = &tw
	res, err := bglua.Run(ctx, cfg, s.Program)
	if err != nil {
		return Outcome{Point: p, Err: err}
	}
	row := &Row{
		Program: s.programColumn(), Setup: s.Setup, Coll: p.Choice.Label, Ranks: p.Ranks, Size: p.Size, Seed: p.Seed,
		Time: res.Seconds, End: res.Seconds, Events: res.Events, Messages: res.Messages, Bytes: res.Bytes,
		Host: res.HostSeconds, hostColumn: !s.NoHostTime,
	}
	if tw.found {
		row.Time = tw.max
	}
	return Outcome{Point: p, Row: row}
}

// timeWriter takes a program's output and keeps the largest value of its
// "time SECONDS" lines (the bench workloads' report); it keeps no other
// output.
type timeWriter struct {
	mu    sync.Mutex
	line  []byte
	long  bool // the current line is too long to be a time line
	max   float64
	found bool
}

// maxTimeLine is the longest line read as a time line.
const maxTimeLine = 64

func (w *timeWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		part := b
		if i >= 0 {
			part = b[:i]
		}
		if !w.long {
			if len(w.line)+len(part) > maxTimeLine {
				w.long, w.line = true, w.line[:0]
			} else {
				w.line = append(w.line, part...)
			}
		}
		if i < 0 {
			break
		}
		if !w.long {
			w.take(string(w.line))
		}
		w.line, w.long = w.line[:0], false
		b = b[i+1:]
	}
	return n, nil
}

// take reads a whole line.
func (w *timeWriter) take(line string) {
	f := strings.Fields(line)
	if len(f) != 2 || f[0] != "time" {
		return
	}
	v, err := strconv.ParseFloat(f[1], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	if !w.found || v > w.max {
		w.max, w.found = v, true
	}
}

// constantsProg prints ml.config()'s numbers, a "name value" line each.
const constantsProg = `for k, v in pairs(ml.config()) do
  if type(v) == "number" then print(k .. " " .. string.format("%.17g", v)) end
end`

// Constants are the numeric machine constants of a run of cfg, as its
// ml.config() gives them (a run of one rank that prints them).
func Constants(ctx context.Context, cfg bglua.Config) (Machine, error) {
	var out bytes.Buffer
	cfg.Ranks, cfg.Quiet, cfg.Stdout, cfg.Coll, cfg.Args = 1, true, &out, nil, nil
	cfg.Trace, cfg.Progress, cfg.Stats = nil, nil, false
	_, err := bglua.Run(ctx, cfg, bglua.Program{Name: "ml.config", Code: []byte(constantsProg)})
	if err != nil {
		var re *bglua.RankError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("reading the machine's constants: %v", err)
		}
		return nil, err
	}
	m := Machine{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		k, v, _ := strings.Cut(line, " ")
		if x, err := strconv.ParseFloat(v, 64); err == nil {
			m[k] = x
		}
	}
	return m, nil
}

// Command figures runs every figure script of bglua through the embedding
// API, writes what each printed as NAME.csv, draws it as NAME.png, and prints
// a table of measured against published values (Markdown, for
// docs/model.md). A full-size run writes to docs/figures, the committed
// figures; a -quick run writes to a new temporary directory, which it names,
// so that it never overwrites them. -out DIR chooses the directory.
//
//	go run ./scripts/figures            # every figure, full size, into docs/figures
//	go run ./scripts/figures -list      # the figures and how each is run
//	go run ./scripts/figures -only fig4a,line_bcast
//	go run ./scripts/figures -quick     # reduced sizes (the test's), into a temporary directory
//
// The figures are data (figures.go). A script that does not exist yet is
// skipped with a note. Everything written is the same byte for byte on every
// run; only the host times printed on stderr and in the table change.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bglua/bglua"
)

// Setup is how a script is run: the flags of the bglua command that
// figures use, as a Config.
type Setup struct {
	Ranks   int
	Torus   string
	Mesh    bool
	Machine string
	Mode    string
	Coll    map[string]string
	// Progress is the --progress-model of nonblocking collectives
	// (Config.ProgressModel); "" the default.
	Progress string
	// Seed is the run's --seed; 0 is the bglua command's default, 1, so
	// that the command line printed for a figure (which leaves a seed of 1
	// out) gives its numbers where random choices matter (adaptive
	// routing's ties: figures 5b and 6).
	Seed int64
}

// config is the Config of a run with script args.
func (s Setup) config(args []string) bglua.Config {
	seed := s.Seed
	if seed == 0 {
		seed = 1
	}
	return bglua.Config{Seed: seed, Ranks: s.Ranks, Torus: s.Torus, Mesh: s.Mesh, Machine: s.Machine, Mode: s.Mode, Coll: s.Coll,
		ProgressModel: s.Progress, Args: args}
}

// command is the bglua command line that does the same run.
func (s Setup) command(script string, args []string) string {
	cmd := []string{"bglua"}
	if s.Machine != "" {
		cmd = append(cmd, "--machine", s.Machine)
	}
	cmd = append(cmd, "-ranks", strconv.Itoa(s.Ranks))
	if s.Torus != "" {
		cmd = append(cmd, "--torus", s.Torus)
	}
	if s.Mesh {
		cmd = append(cmd, "--mesh")
	}
	if s.Mode != "" {
		cmd = append(cmd, "--mode", s.Mode)
	}
	if len(s.Coll) > 0 {
		cmd = append(cmd, s.collFlag())
	}
	if s.Progress != "" {
		cmd = append(cmd, "--progress-model", s.Progress)
	}
	if s.Seed > 1 {
		cmd = append(cmd, "--seed", strconv.FormatInt(s.Seed, 10))
	}
	cmd = append(cmd, script)
	return strings.Join(append(cmd, args...), " ")
}

// collFlag is the --coll flag of the setup, names sorted.
func (s Setup) collFlag() string {
	keys := make([]string, 0, len(s.Coll))
	for k := range s.Coll {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + s.Coll[k]
	}
	return "--coll " + strings.Join(keys, ",")
}

// Measure is one row of the summary: a number taken out of a figure's
// outcome beside the published one.
type Measure struct {
	What      string
	Unit      string
	Published float64 // 0: none to compare with (PubText says what the paper says)
	PubText   string  // the published value as text, unit included, when not just the number
	// AtMost and AtLeast are bounds the paper gives ("at most about 30%",
	// "more than three links"): 0, none. The model is out of bound past
	// one by more than the tolerance.
	AtMost, AtLeast float64
	FullOnly        bool // published for the full size only: not compared in -quick
	Get             Extract
}

// tolerance is how far a value may be from its published one, or past its
// published bound, and still reproduce it: 10%, the figures' tolerance
// unless one is stated (docs/model.md).
const tolerance = 0.10

// Figure is one published figure and the script that reproduces it.
type Figure struct {
	Name   string // docs/figures/NAME.csv and NAME.png
	Title  string
	Script string // from the repository root
	Setup  Setup
	Quick  *Setup // the setup of -quick; nil: the same as Setup
	// Colls, if set, runs the script once per entry, each a --coll value
	// ("bcast=tree"), and joins the CSVs (same header; the script names
	// the algorithm in a column).
	Colls []string
	// Progress, if set, runs the script once per entry (after the sizes
	// and Colls), each a --progress-model value; the CSVs are joined as
	// for Colls.
	Progress []string
	// Sizes, if set, runs the script once per rank count (each with every
	// Colls entry), on the default torus; QuickSizes in -quick.
	Sizes, QuickSizes []int
	Plot              Plot
	Refs              []Ref
	Measures          []Measure
}

// runner runs figures and collects the summary.
type runner struct {
	root   string // repository root
	out    string // where the CSV and PNG files go
	quick  bool
	replot bool      // draw from the CSVs in out, run nothing
	log    io.Writer // progress and notes
	rows   []summaryRow
	notes  []string
}

type summaryRow struct {
	figure, what, model, published, diff string
	out                                  bool // out of tolerance or bound
}

// compare is the difference column of value v of m, and whether v is out
// of tolerance of the published value or out of a published bound.
func compare(m Measure, v float64) (string, bool) {
	var diff string
	out := false
	if m.Published != 0 {
		d := (v - m.Published) / m.Published
		diff = fmt.Sprintf("%+.1f%%", 100*d)
		if diff == "-0.0%" {
			diff = "+0.0%"
		}
		// (Rounded as printed: -10.0% is within 10%.)
		if r := math.Round(1000*math.Abs(d)) / 1000; r > tolerance {
			diff, out = diff+", out of tolerance", true
		}
	}
	bound := func(what string) {
		if diff != "" {
			diff += ", "
		}
		diff, out = diff+what, true
	}
	if m.AtMost != 0 && v > m.AtMost*(1+tolerance) {
		bound("above the bound")
	}
	if m.AtLeast != 0 && v < m.AtLeast*(1-tolerance) {
		bound("below the bound")
	}
	return diff, out
}

// args is what a figure script gets: arg[1] == "csv", arg[2] == "quick" in
// -quick mode.
func (r *runner) args() []string {
	if r.quick {
		return []string{"csv", "quick"}
	}
	return []string{"csv"}
}

func (r *runner) setup(f Figure) Setup {
	if r.quick && f.Quick != nil {
		return *f.Quick
	}
	return f.Setup
}

// errMissing is a figure whose script is not written yet.
var errMissing = errors.New("script does not exist yet")

// setups are the runs of figure f: one, or one per size and --coll value.
func (r *runner) setups(f Figure) ([]Setup, error) {
	bases := []Setup{r.setup(f)}
	sizes := f.Sizes
	if r.quick && f.QuickSizes != nil {
		sizes = f.QuickSizes
	}
	if len(sizes) > 0 {
		bases = nil
		for _, n := range sizes {
			s := r.setup(f)
			s.Ranks, s.Torus = n, ""
			bases = append(bases, s)
		}
	}
	if len(f.Colls) > 0 {
		var err error
		if bases, err = withColls(f, bases); err != nil {
			return nil, err
		}
	}
	if len(f.Progress) == 0 {
		return bases, nil
	}
	var out []Setup
	for _, base := range bases {
		for _, m := range f.Progress {
			s := base
			s.Progress = m
			out = append(out, s)
		}
	}
	return out, nil
}

// withColls is a run of each base setup per --coll value of figure f.
func withColls(f Figure, bases []Setup) ([]Setup, error) {
	var out []Setup
	for _, base := range bases {
		for _, c := range f.Colls {
			s := base
			s.Coll = map[string]string{}
			for _, kv := range strings.Split(c, ",") {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" || v == "" {
					return nil, fmt.Errorf("figure %s: bad --coll value %q (want NAME=ALG)", f.Name, c)
				}
				s.Coll[k] = v
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// run runs one figure and writes its CSV and PNG. When the figure has
// several runs, one that fails is noted and left out.
func (r *runner) run(f Figure) (*Outcome, error) {
	path := filepath.Join(r.root, filepath.FromSlash(f.Script))
	code, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errMissing
	}
	if err != nil {
		return nil, err
	}
	setups, err := r.setups(f)
	if err != nil {
		return nil, err
	}
	o := &Outcome{}
	if r.replot {
		b, err := os.ReadFile(filepath.Join(r.out, f.Name+".csv"))
		if err != nil {
			return nil, fmt.Errorf("-replot: %v", unwrapPath(err))
		}
		if o.Table, err = parseCSV(b); err != nil {
			return nil, fmt.Errorf("-replot: %s.csv: %v", f.Name, err)
		}
	} else if o, err = r.runAll(f, setups, code, path); err != nil {
		return nil, err
	}
	png, notes, err := render(f, o.Table, subtitle(setups))
	for _, n := range notes {
		r.note(f.Name, n)
	}
	if err != nil {
		return nil, fmt.Errorf("plotting %s: %v", f.Name, err)
	}
	if err := os.WriteFile(filepath.Join(r.out, f.Name+".png"), png, 0o644); err != nil {
		return nil, err
	}
	return o, nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// run runs one setup as the bglua command would: on as many threads as
// the machine has cores, with the command's garbage-collector headroom
// unless the environment sets GOGC or GOMEMLIMIT. The results are the same
// either way; the host times in the summary are then the command's.
func run(cfg bglua.Config, prog bglua.Program) (*bglua.Result, error) {
	cfg.Threads = goruntime.NumCPU()
	cfg.Tune = bglua.Tuning{Procs: true, GC: true}
	return bglua.Run(context.Background(), cfg, prog)
}

// runAll runs the script once per setup and writes the CSVs joined.
func (r *runner) runAll(f Figure, setups []Setup, code []byte, path string) (*Outcome, error) {
	prog := bglua.Program{Name: f.Script, Code: code, Dir: filepath.Dir(path)}
	var csv strings.Builder
	var header string
	o := &Outcome{}
	for _, s := range setups {
		var out strings.Builder
		cfg := s.config(r.args())
		cfg.Stdout, cfg.Quiet = &out, true
		if len(setups) > 1 {
			fmt.Fprintf(r.log, "figures: %s: %s\n", f.Name, s.command(f.Script, r.args()))
		}
		res, err := run(cfg, prog)
		if err == nil {
			_, err = parseCSV([]byte(out.String()))
		}
		if err != nil {
			err = fmt.Errorf("%s: %v", s.command(f.Script, r.args()), err)
			if len(setups) == 1 {
				return nil, err
			}
			r.note(f.Name, "left out: "+err.Error())
			continue
		}
		head, rows, _ := strings.Cut(out.String(), "\n")
		switch {
		case header == "":
			header = head
			csv.WriteString(out.String())
		case head != header:
			return nil, fmt.Errorf("%s: CSV header %q differs from the first run's %q", s.command(f.Script, r.args()), head, header)
		default:
			csv.WriteString(rows)
		}
		o.Results = append(o.Results, res)
		o.Host += res.HostSeconds
	}
	if len(o.Results) == 0 {
		return nil, fmt.Errorf("every run failed")
	}
	var err error
	if o.Table, err = parseCSV([]byte(csv.String())); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(r.out, f.Name+".csv"), []byte(csv.String()), 0o644); err != nil {
		return nil, err
	}
	return o, nil
}

// subtitle says what ran: ranks, torus, machine (from the setups, so that
// -replot draws the same).
func subtitle(setups []Setup) string {
	s0, last := setups[0], setups[len(setups)-1]
	ranks := thousands(strconv.Itoa(s0.Ranks))
	if last.Ranks != s0.Ranks {
		ranks += " to " + thousands(strconv.Itoa(last.Ranks))
	}
	s := ranks + " ranks on the default torus"
	if s0.Torus != "" {
		kind := "torus"
		if s0.Mesh {
			kind = "mesh"
		}
		s = fmt.Sprintf("%s ranks on a %s %s", ranks, s0.Torus, kind)
	}
	if s0.Mode != "" {
		s += ", --mode " + s0.Mode
	}
	if s0.Machine != "" {
		s += ", --machine " + s0.Machine
	}
	if s0.Progress != "" {
		models := []string{}
		for _, s := range setups {
			if !slices.Contains(models, s.Progress) {
				models = append(models, s.Progress)
			}
		}
		s += ", --progress-model " + strings.Join(models, " and ")
	}
	sameColl := true
	for _, x := range setups {
		sameColl = sameColl && x.collFlag() == s0.collFlag()
	}
	switch {
	case len(s0.Coll) > 0 && sameColl:
		s += ", " + s0.collFlag()
	case len(setups) > 1 && len(s0.Coll) > 0:
		s += fmt.Sprintf(", %d runs (sizes, --coll)", len(setups))
	case len(setups) > 1 && s0.Progress == "":
		s += fmt.Sprintf(", %d runs", len(setups))
	}
	return s
}

func (r *runner) note(fig, msg string) {
	r.notes = append(r.notes, fig+": "+msg)
	fmt.Fprintf(r.log, "figures: %s: %s\n", fig, msg)
}

// summarize adds the figure's measures to the summary.
func (r *runner) summarize(f Figure, o *Outcome) {
	for _, m := range f.Measures {
		row := summaryRow{figure: f.Name, what: m.What, published: m.PubText}
		if row.published == "" && m.Published != 0 {
			row.published = withUnit(number(m.Published), m.Unit)
		}
		v, err := m.Get(o)
		switch {
		case err != nil:
			row.model = "n/a (" + err.Error() + ")"
		default:
			row.model = withUnit(number(v), m.Unit)
			if !(r.quick && m.FullOnly) {
				row.diff, row.out = compare(m, v)
			}
		}
		if r.quick && m.FullOnly {
			row.published = "(full size only)"
		}
		r.rows = append(r.rows, row)
	}
}

func withUnit(v, unit string) string {
	switch unit {
	case "":
		return v
	case "%":
		return v + "%"
	}
	return v + " " + unit
}

// number formats a value with the precision a reader wants of it.
func number(v float64) string {
	a := v
	if a < 0 {
		a = -a
	}
	var s string
	switch {
	case a >= 1000:
		return thousands(fmt.Sprintf("%.0f", v))
	case a >= 100:
		s = fmt.Sprintf("%.1f", v)
	case a >= 10:
		s = fmt.Sprintf("%.2f", v)
	default:
		s = fmt.Sprintf("%.3g", v)
	}
	if strings.Contains(s, ".") && !strings.Contains(s, "e") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// fmtPub formats a published value for PubText.
func fmtPub(v float64) string { return number(v) }

func thousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// table writes the summary as Markdown.
func (r *runner) table(w io.Writer) {
	fmt.Fprintln(w, "| figure | quantity | model | published | difference |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|")
	var out []string
	for _, row := range r.rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", row.figure, row.what, row.model, row.published, row.diff)
		if row.out {
			out = append(out, row.figure+" ("+row.what+")")
		}
	}
	if len(out) > 0 {
		fmt.Fprintf(w, "\nOut of tolerance (%.0f%%) or bound: %s.\n", 100*tolerance, strings.Join(out, "; "))
	}
}

// select picks the figures named in only (comma-separated; all if empty).
func selectFigures(figs []Figure, only string) ([]Figure, error) {
	if only == "" {
		return figs, nil
	}
	var out []Figure
	for _, name := range strings.Split(only, ",") {
		found := false
		for _, f := range figs {
			if f.Name == name {
				out, found = append(out, f), true
			}
		}
		if !found {
			var names []string
			for _, f := range figs {
				names = append(names, f.Name)
			}
			return nil, fmt.Errorf("-only: no figure %q (figures: %s)", name, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// findRoot is the directory above dir holding the module's go.mod.
func findRoot(dir string) (string, error) {
	for d := dir; ; {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/bglua/bglua\n") {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no bglua go.mod above %s: run from the repository or give -root", dir)
		}
		d = up
	}
}

// main1 is the command; it returns the exit status.
func main1(args []string, figs []Figure, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("figures", flag.ContinueOnError)
	fl.SetOutput(stderr)
	only := fl.String("only", "", "run only these figures (comma-separated names, see -list)")
	list := fl.Bool("list", false, "list the figures and how each is run")
	quick := fl.Bool("quick", false, "reduced sizes (published values of full-size runs are not compared), written to a new temporary directory unless -out is given")
	root := fl.String("root", "", "repository root (default: found from the working directory)")
	out := fl.String("out", "", "where to write NAME.csv and NAME.png (default ROOT/docs/figures, the committed figures; with -quick a new temporary directory)")
	replot := fl.Bool("replot", false, "run nothing: draw the PNGs and the table from the CSVs already in -out")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "figures: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	sel, err := selectFigures(figs, *only)
	if err != nil {
		fmt.Fprintln(stderr, "figures:", err)
		return 2
	}
	r := &runner{root: *root, out: *out, quick: *quick, replot: *replot, log: stderr}
	if r.root == "" {
		wd, err := os.Getwd()
		if err == nil {
			r.root, err = findRoot(wd)
		}
		if err != nil {
			fmt.Fprintln(stderr, "figures:", err)
			return 2
		}
	}
	if *list {
		for _, f := range sel {
			state := ""
			if _, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(f.Script))); err != nil {
				state = "  (not written yet)"
			}
			fmt.Fprintf(stdout, "%-18s %s%s\n", f.Name, f.Title, state)
			setups, err := r.setups(f)
			if err != nil {
				fmt.Fprintln(stderr, "figures:", err)
				return 2
			}
			for _, s := range setups {
				fmt.Fprintf(stdout, "%-18s %s\n", "", s.command(f.Script, r.args()))
			}
		}
		return 0
	}
	switch {
	case r.out != "":
	case r.quick && r.replot:
		fmt.Fprintln(stderr, "figures: -quick -replot: give -out, the directory of the -quick run to redraw")
		return 2
	case r.quick:
		// Reduced sizes are not the committed figures: never write them over.
		dir, err := os.MkdirTemp("", "bglua-figures-quick-")
		if err != nil {
			fmt.Fprintln(stderr, "figures:", err)
			return 2
		}
		r.out = dir
		fmt.Fprintln(stderr, "figures: -quick writes to", dir)
	default:
		r.out = filepath.Join(r.root, "docs", "figures")
	}
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		fmt.Fprintln(stderr, "figures:", err)
		return 2
	}
	status := 0
	for _, f := range sel {
		if len(f.Colls) == 0 && len(f.Sizes) == 0 && len(f.Progress) == 0 && !r.replot {
			fmt.Fprintf(stderr, "figures: %s: %s\n", f.Name, r.setup(f).command(f.Script, r.args()))
		}
		o, err := r.run(f)
		switch {
		case errors.Is(err, errMissing):
			r.note(f.Name, "skipped: "+f.Script+" does not exist yet")
			continue
		case err != nil:
			r.note(f.Name, "FAILED: "+err.Error())
			status = 1
			continue
		}
		if !r.replot {
			fmt.Fprintf(stderr, "figures: %s: %d rows, host %.2f s\n", f.Name, len(o.Table.Rows), o.Host)
		}
		r.summarize(f, o)
	}
	r.table(stdout)
	if len(r.notes) > 0 {
		fmt.Fprintln(stdout)
		for _, n := range r.notes {
			fmt.Fprintln(stdout, "- "+n)
		}
	}
	return status
}

func main() {
	// As in the bglua command: a run in one partition is fastest with one
	// P, and a run in partitions raises it for its threads.
	goruntime.GOMAXPROCS(1)
	os.Exit(main1(os.Args[1:], figures, os.Stdout, os.Stderr))
}

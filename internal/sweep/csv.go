package sweep

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/bglua/bglua"
)

// Row is the result of one point, a line of the CSV.
type Row struct {
	Program, Setup, Coll string
	Ranks                int
	Size, Seed           int64
	// Time is the virtual time measured: the largest "time SECONDS" line
	// the program printed, else the run's end (End), in seconds.
	Time, End       float64
	Events          uint64
	Messages, Bytes int64
	Host            float64 // host (wall) seconds of the run
	hostColumn      bool
	rec             []string // the line as read from the file, if it was
}

// header is the CSV's first line; host: with the host_s column.
func header(host bool) []string {
	h := []string{"program", "setup", "coll", "ranks", "size", "seed", "time_s", "end_s", "events", "messages", "bytes"}
	if host {
		h = append(h, "host_s")
	}
	return h
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// record is the row as a CSV line.
func (r *Row) record() []string {
	if r.rec != nil {
		return r.rec
	}
	rec := []string{r.Program, r.Setup, r.Coll, strconv.Itoa(r.Ranks), strconv.FormatInt(r.Size, 10), strconv.FormatInt(r.Seed, 10),
		formatFloat(r.Time), formatFloat(r.End), strconv.FormatUint(r.Events, 10), strconv.FormatInt(r.Messages, 10), strconv.FormatInt(r.Bytes, 10)}
	if r.hostColumn {
		rec = append(rec, strconv.FormatFloat(r.Host, 'f', 3, 64))
	}
	return rec
}

// parseRow reads a CSV line of the columns of header(host).
func parseRow(rec []string, host bool) (*Row, error) {
	r := &Row{Program: rec[0], Setup: rec[1], Coll: rec[2], hostColumn: host, rec: rec}
	var errs []error
	num := func(i int, f func(string) error) {
		if err := f(rec[i]); err != nil {
			errs = append(errs, fmt.Errorf("%s %q is not a number", header(host)[i], rec[i]))
		}
	}
	num(3, func(s string) (err error) { r.Ranks, err = strconv.Atoi(s); return })
	num(4, func(s string) (err error) { r.Size, err = strconv.ParseInt(s, 10, 64); return })
	num(5, func(s string) (err error) { r.Seed, err = strconv.ParseInt(s, 10, 64); return })
	num(6, func(s string) (err error) { r.Time, err = strconv.ParseFloat(s, 64); return })
	num(7, func(s string) (err error) { r.End, err = strconv.ParseFloat(s, 64); return })
	num(8, func(s string) (err error) { r.Events, err = strconv.ParseUint(s, 10, 64); return })
	num(9, func(s string) (err error) { r.Messages, err = strconv.ParseInt(s, 10, 64); return })
	num(10, func(s string) (err error) { r.Bytes, err = strconv.ParseInt(s, 10, 64); return })
	if host {
		num(11, func(s string) (err error) { r.Host, err = strconv.ParseFloat(s, 64); return })
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return r, nil
}

// key identifies a point of a sweep of program prog with setup.
func key(prog, setup string, p Point) string {
	return keyOf(prog, setup, p.Choice.Label, p.Ranks, p.Size, p.Seed)
}

func (r *Row) key() string { return keyOf(r.Program, r.Setup, r.Coll, r.Ranks, r.Size, r.Seed) }

func keyOf(prog, setup, coll string, ranks int, size, seed int64) string {
	return strings.Join([]string{prog, setup, coll, strconv.Itoa(ranks), strconv.FormatInt(size, 10), strconv.FormatInt(seed, 10)}, "\x00")
}

// table is the CSV of a sweep: the rows it held, and the file open to
// append each new row as its point ends, so that an interrupted sweep
// keeps what it did.
type table struct {
	path   string
	header []string
	rows   map[string]*Row // by key
	order  []*Row          // as in the file
	f      *os.File
	w      *csv.Writer
}

// openTable reads the CSV at path, if there is one, and opens it to append.
func openTable(path string, head []string) (*table, error) {
	t := &table{path: path, header: head, rows: map[string]*Row{}}
	if err := t.read(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, &bglua.UsageError{Msg: fmt.Sprintf("--out: cannot write the CSV: %v", pathError(err))}
	}
	t.f, t.w = f, csv.NewWriter(f)
	if len(t.order) == 0 {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
		if err := t.write(head); err != nil {
			f.Close()
			return nil, err
		}
	}
	return t, nil
}

// read takes in the rows of an existing CSV.
func (t *table) read() error {
	f, err := os.Open(t.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &bglua.UsageError{Msg: fmt.Sprintf("--out: cannot read the CSV: %v", pathError(err))}
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err == io.EOF {
		return nil // an empty file: a new sweep
	}
	host := len(t.header) == len(header(true))
	if err != nil || !slices.Equal(head, t.header) {
		other := "with host_s"
		if host {
			other = "without host_s (--no-host-time)"
		}
		if err == nil && slices.Equal(head, header(!host)) {
			return &bglua.UsageError{Msg: fmt.Sprintf("--out %s: the CSV was written %s: sweep with the same setting or give another --out", t.path, other)}
		}
		return &bglua.UsageError{Msg: fmt.Sprintf("--out %s: not a sweep CSV (want the columns %s): give another --out", t.path, strings.Join(t.header, ","))}
	}
	r.FieldsPerRecord = len(t.header)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		var row *Row
		if err == nil {
			row, err = parseRow(rec, host)
		}
		if err != nil {
			line, _ := r.FieldPos(0)
			return &bglua.UsageError{Msg: fmt.Sprintf("--out %s:%d: %v", t.path, line, unwrapCSV(err))}
		}
		if _, dup := t.rows[row.key()]; !dup {
			t.order = append(t.order, row)
		}
		t.rows[row.key()] = row
	}
}

// unwrapCSV is a CSV parse error without the position, which the caller
// gives.
func unwrapCSV(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (t *table) write(rec []string) error {
	if err := t.w.Write(rec); err != nil {
		return err
	}
	t.w.Flush()
	return t.w.Error()
}

// append adds a row at the end of the file.
func (t *table) append(r *Row) error {
	return t.write(r.record())
}

// rewrite writes the file anew: rows (the sweep's, in sweep order), then
// the other rows the file held, in their order. It replaces the file
// whole, so that an error leaves the old one.
func (t *table) rewrite(rows []*Row) error {
	tmp, err := os.CreateTemp(filepath.Dir(t.path), filepath.Base(t.path)+".*")
	if err != nil {
		return fmt.Errorf("--out: cannot write the CSV: %v", pathError(err))
	}
	defer os.Remove(tmp.Name())
	w := csv.NewWriter(tmp)
	w.Write(t.header)
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.key()] = true
		w.Write(r.record())
	}
	for _, r := range t.order {
		if !seen[r.key()] {
			w.Write(r.record())
		}
	}
	w.Flush()
	err = w.Error()
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), t.path)
	}
	if err != nil {
		return fmt.Errorf("--out: cannot write the CSV: %v", pathError(err))
	}
	return nil
}

func (t *table) close() { t.f.Close() }

// rowsInOrder are the rows of the points that have one, in sweep order.
func (r *Report) rowsInOrder() []*Row {
	var rows []*Row
	for _, o := range r.Outcomes {
		if o.Row != nil {
			rows = append(rows, o.Row)
		}
	}
	return rows
}

// pathError says "FILE: why" without the Go operation.
func pathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

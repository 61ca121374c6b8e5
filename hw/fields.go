package hw

import (
	"reflect"
	"strings"
	"unicode"
)

// Field is one constant of a machine description, named as machine files and
// ml.config() name it (snake case: ClockHz is clock_hz).
type Field struct {
	Name  string
	Value any // int, int64, float64 or string
}

// Fields lists the machine's constants in declaration order.
func (m *Machine) Fields() []Field {
	v := reflect.ValueOf(m).Elem()
	t := v.Type()
	fs := make([]Field, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		fs = append(fs, Field{Name: SnakeCase(t.Field(i).Name), Value: v.Field(i).Interface()})
	}
	return fs
}

// SnakeCase turns a Go field name into a machine-file key: "MPICallCycles"
// becomes "mpi_call_cycles".
func SnakeCase(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		if unicode.IsUpper(c) {
			prevLower := i > 0 && !unicode.IsUpper(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1]) && !pluralAcronym(r, i)
			if i > 0 && (prevLower || nextLower && unicode.IsUpper(r[i-1])) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(c))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// pluralAcronym reports whether r[i] ends an acronym followed by a plural s,
// as in "CPUsPerNode", so that it reads cpus and not cp_us.
func pluralAcronym(r []rune, i int) bool {
	return i > 0 && unicode.IsUpper(r[i-1]) && r[i+1] == 's' && (i+2 == len(r) || unicode.IsUpper(r[i+2]))
}

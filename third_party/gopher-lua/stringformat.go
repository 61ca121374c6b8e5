package lua

import (
	"math"
	"strconv"
	"strings"
)

// strFormat is Lua 5.1's string.format (lstrlib.c, str_format), which hands
// each item to C's sprintf: the same options (c d i o u x X e E f g G q s),
// flags (- + space # 0), widths and precisions of at most two digits, the
// same conversions of a number to an integer, and the same errors.
func strFormat(L *LState) int {
	format := L.CheckString(1)
	top := L.GetTop()
	arg := 1
	buf := make([]byte, 0, len(format)+16)
	for i := 0; i < len(format); {
		c := format[i]
		i++
		if c != '%' {
			buf = append(buf, c)
			continue
		}
		if i < len(format) && format[i] == '%' {
			buf = append(buf, '%')
			i++
			continue
		}
		arg++
		if arg > top {
			L.ArgError(arg, "no value")
		}
		var spec cFormat
		i = spec.scan(L, format, i)
		// Past the end, C reads the string's terminating NUL.
		var op byte
		if i < len(format) {
			op = format[i]
			i++
		}
		switch op {
		case 'c':
			item := spec.pad(nil, "", []byte{byte(cInt32(float64(L.CheckNumber(arg))))}, false)
			// sprintf wrote a NUL; Lua takes the item up to it.
			buf = append(buf, cString(item)...)
		case 'd', 'i':
			buf = spec.signed(buf, cLong(float64(L.CheckNumber(arg))))
		case 'o', 'u', 'x', 'X':
			buf = spec.unsigned(buf, op, cUnsignedLong(float64(L.CheckNumber(arg))))
		case 'e', 'E', 'f', 'g', 'G':
			buf = spec.float(buf, op, float64(L.CheckNumber(arg)))
		case 'q':
			buf = appendQuoted(buf, L.CheckString(arg))
		case 's':
			s := L.CheckString(arg)
			if !spec.precSet && len(s) >= 100 {
				// Lua keeps a long string whole, without formatting it.
				buf = append(buf, s...)
				continue
			}
			s = cString(s)
			if spec.precSet && len(s) > spec.prec {
				s = s[:spec.prec]
			}
			buf = spec.pad(buf, "", []byte(s), false)
		case 0:
			L.RaiseError("%s", "invalid option '%' to 'format'")
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", op)
		}
	}
	L.Push(LString(buf))
	return 1
}

// cFormat is one item's flags, width and precision.
type cFormat struct {
	minus, plus, space, alt, zero bool
	width, prec                   int
	precSet                       bool
}

// scan reads flags, width and precision at format[i:] as Lua 5.1's
// scanformat does, and returns where the option letter is.
func (f *cFormat) scan(L *LState, format string, i int) int {
	start := i
	for ; i < len(format); i++ {
		switch format[i] {
		case '-':
			f.minus = true
		case '+':
			f.plus = true
		case ' ':
			f.space = true
		case '#':
			f.alt = true
		case '0':
			f.zero = true
		default:
			goto flagsDone
		}
	}
flagsDone:
	if i-start >= len("-+ #0")+1 {
		L.RaiseError("invalid format (repeated flags)")
	}
	digits := func(n *int) {
		for k := 0; k < 2 && i < len(format) && isDigit(format[i]); k++ {
			*n = *n*10 + int(format[i]-'0')
			i++
		}
	}
	digits(&f.width)
	if i < len(format) && format[i] == '.' {
		i++
		f.precSet = true
		digits(&f.prec)
	}
	if i < len(format) && isDigit(format[i]) {
		L.RaiseError("invalid format (width or precision too long)")
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// pad appends sign, prefix and body within the width: on the left with
// spaces, on the right with '-', or between prefix and body with zeros when
// zeros is set (the '0' flag where C honours it).
func (f *cFormat) pad(buf []byte, prefix string, body []byte, zeros bool) []byte {
	n := f.width - len(prefix) - len(body)
	if f.minus {
		buf = append(buf, prefix...)
		buf = append(buf, body...)
		return appendRepeat(buf, ' ', n)
	}
	if zeros {
		buf = append(buf, prefix...)
		buf = appendRepeat(buf, '0', n)
		return append(buf, body...)
	}
	buf = appendRepeat(buf, ' ', n)
	buf = append(buf, prefix...)
	return append(buf, body...)
}

func appendRepeat(buf []byte, c byte, n int) []byte {
	for ; n > 0; n-- {
		buf = append(buf, c)
	}
	return buf
}

func (f *cFormat) sign(neg bool) string {
	switch {
	case neg:
		return "-"
	case f.plus:
		return "+"
	case f.space:
		return " "
	}
	return ""
}

// digits are those of an integer conversion with C's precision: at least
// prec digits, none for a zero of precision 0.
func (f *cFormat) digits(d []byte) []byte {
	if f.precSet && f.prec == 0 && len(d) == 1 && d[0] == '0' {
		return d[:0]
	}
	if f.precSet && len(d) < f.prec {
		z := make([]byte, 0, f.prec)
		z = appendRepeat(z, '0', f.prec-len(d))
		return append(z, d...)
	}
	return d
}

func (f *cFormat) signed(buf []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	d := f.digits(strconv.AppendUint(nil, u, 10))
	return f.pad(buf, f.sign(v < 0), d, f.zero && !f.precSet)
}

func (f *cFormat) unsigned(buf []byte, op byte, v uint64) []byte {
	base := 16
	switch op {
	case 'o':
		base = 8
	case 'u':
		base = 10
	}
	d := strconv.AppendUint(nil, v, base)
	if op == 'X' {
		for i, c := range d {
			if 'a' <= c && c <= 'f' {
				d[i] = c - 'a' + 'A'
			}
		}
	}
	d = f.digits(d)
	prefix := ""
	if f.alt {
		switch {
		case op == 'o' && (len(d) == 0 || d[0] != '0'):
			d = append([]byte{'0'}, d...)
		case op == 'x' && v != 0:
			prefix = "0x"
		case op == 'X' && v != 0:
			prefix = "0X"
		}
	}
	return f.pad(buf, prefix, d, f.zero && !f.precSet)
}

func (f *cFormat) float(buf []byte, op byte, v float64) []byte {
	upper := op == 'E' || op == 'G'
	neg := math.Signbit(v)
	if math.IsInf(v, 0) || v != v {
		s := "inf"
		if v != v {
			s = "nan"
		}
		if upper {
			s = strings.ToUpper(s)
		}
		return f.pad(buf, f.sign(neg), []byte(s), false)
	}
	prec := 6
	if f.precSet {
		prec = f.prec
	}
	a := math.Abs(v)
	var d []byte
	switch op {
	case 'e', 'E', 'f':
		d = strconv.AppendFloat(nil, a, op, prec, 64)
		if f.alt && prec == 0 {
			// "%#.0e" keeps the point: 5.e+00, 3.
			if k := indexByte(d, op); op != 'f' && k >= 0 {
				d = append(d[:k], append([]byte{'.'}, d[k:]...)...)
			} else if op == 'f' {
				d = append(d, '.')
			}
		}
	default: // g, G
		if prec == 0 {
			prec = 1
		}
		if !f.alt {
			d = strconv.AppendFloat(nil, a, op, prec, 64)
			break
		}
		// '#': C keeps trailing zeros and the point.
		e := 'e'
		if upper {
			e = 'E'
		}
		exp := 0
		if a != 0 {
			s := strconv.AppendFloat(nil, a, 'e', prec-1, 64)
			exp, _ = strconv.Atoi(string(s[indexByte(s, 'e')+1:]))
		}
		if exp < -4 || exp >= prec {
			d = strconv.AppendFloat(nil, a, byte(e), prec-1, 64)
		} else {
			d = strconv.AppendFloat(nil, a, 'f', prec-1-exp, 64)
		}
		if indexByte(d, '.') < 0 {
			if k := indexByte(d, byte(e)); k >= 0 {
				d = append(d[:k], append([]byte{'.'}, d[k:]...)...)
			} else {
				d = append(d, '.')
			}
		}
	}
	return f.pad(buf, f.sign(neg), d, f.zero)
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// cString is s up to its first NUL, as C's string functions see it.
func cString[T string | []byte](s T) T {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}

// cLong is C's (long)x on x86-64 (cvttsd2si): truncation toward zero, and
// the smallest long for NaN and values out of range.
func cLong(x float64) int64 {
	if x != x || x >= 0x1p63 || x < -0x1p63 {
		return math.MinInt64
	}
	return int64(x)
}

// cUnsignedLong is C's (unsigned long)x as gcc compiles it on x86-64:
// values from 2^63 up are converted less 2^63, others as a long.
func cUnsignedLong(x float64) uint64 {
	if x >= 0x1p63 {
		return uint64(cLong(x-0x1p63)) ^ 1<<63
	}
	return uint64(cLong(x))
}

// cInt32 is C's (int)x on x86-64.
func cInt32(x float64) int32 {
	if x != x || x >= 0x1p31 || x < -0x1p31 {
		return math.MinInt32
	}
	return int32(x)
}

// appendQuoted is %q as Lua 5.1 writes it: between double quotes, with ",
// \ and newline escaped by a backslash, \r as \r and NUL as \000.
func appendQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			buf = append(buf, '\\', c)
		case '\r':
			buf = append(buf, '\\', 'r')
		case 0:
			buf = append(buf, '\\', '0', '0', '0')
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

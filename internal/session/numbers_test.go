package session

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// floatRef and integerRef are jreader.float and jreader.integer as they were before
// plainNumber: skipNumber, then strconv.
func floatRef(r *jreader, field string) float64 {
	n := r.number(field)
	if n == nil {
		return 0
	}
	f, err := strconv.ParseFloat(unsafe.String(&n[0], len(n)), 64)
	if err != nil {
		r.fail(&errType{field, "a number in range"})
	}
	return f
}

func integerRef(r *jreader, field string) int64 {
	n := r.number(field)
	if n == nil {
		return 0
	}
	s := unsafe.String(&n[0], len(n))
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f >= 1<<63 || f < -1<<63 {
		r.fail(&errType{field, "an integer in range"})
		return 0
	}
	return int64(f)
}

// TestNumbersAsStrconv: float and integer read every number as skipNumber and strconv did —
// the same value (to the bit: -0 too), the same end, the same refusal — for numbers of every
// shape: signs, leading zeros, up to 25 digits before and after the point, exponents, and
// what may follow them.
func TestNumbersAsStrconv(t *testing.T) {
	check := func(in string) {
		t.Helper()
		r1, r2 := jreader{b: []byte(in)}, jreader{b: []byte(in)}
		f1, f2 := r1.float("f"), floatRef(&r2, "f")
		if math.Float64bits(f1) != math.Float64bits(f2) || r1.i != r2.i || (r1.err == nil) != (r2.err == nil) {
			t.Fatalf("float(%q) = %v at %d (%v), strconv %v at %d (%v)", in, f1, r1.i, r1.err, f2, r2.i, r2.err)
		}
		r1, r2 = jreader{b: []byte(in)}, jreader{b: []byte(in)}
		i1, i2 := r1.integer("i"), integerRef(&r2, "i")
		if i1 != i2 || r1.i != r2.i || (r1.err == nil) != (r2.err == nil) {
			t.Fatalf("integer(%q) = %v at %d (%v), strconv %v at %d (%v)", in, i1, r1.i, r1.err, i2, r2.i, r2.err)
		}
	}
	for _, in := range []string{"0", "-0", "0.0", "-0.0", "1", "-1", "01", "00", "-", "1.", ".5", "1.5", "0.1", "0.3",
		"1e5", "1E-3", "1.5e+3", "1e", "9007199254740992", "9007199254740993", "0.9007199254740993",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
		"9999999999999999999", "99999999999999999999", "1234567890123456789", "0.0000000000000000000001",
		"0.00000000000000000000001", "123.4567890123456789", " 42", "\t-7.25,", "3x", "3.x", "null", "true", "\"1\"",
		"0.1234567890123456789012", "1.7976931348623157e308", "1e400", "-1e400", "4.2}", "12 ", "-01"} {
		check(in)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		return b.String()
	}
	tails := []string{"", ",", "}", " ", "x", "e", "E5", "e-2", ".", "0", "]", "\n"}
	for range 300_000 {
		var b strings.Builder
		if rng.IntN(3) == 0 {
			b.WriteByte('-')
		}
		switch rng.IntN(6) {
		case 0:
			b.WriteByte('0')
		case 1:
			b.WriteString(digits(1 + rng.IntN(25)))
		default:
			b.WriteByte(byte('1' + rng.IntN(9)))
			b.WriteString(digits(rng.IntN(19)))
		}
		if rng.IntN(2) == 0 {
			b.WriteByte('.')
			b.WriteString(digits(rng.IntN(22)))
		}
		b.WriteString(tails[rng.IntN(len(tails))])
		check(b.String())
	}
}

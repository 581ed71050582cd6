package validate

import (
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/jsonc"
)

// value is a document scalar as CUE sees it when pigo encodes it: an int64, a big integer
// (its first MaxDigits digits), a float64, a string, a bool or null.
type value struct {
	kind Kind
	// num is the number exactly (ints and floats); nil for an infinite float, whose sign inf
	// gives.
	num *big.Rat
	inf int
	// text is how CUE writes the value in a message; for a string it is written when a
	// message needs it (msgText: Quote of str), not for every string checked.
	text string
	str  string
	b    bool
}

func valueOf(n *jsonc.Node) value {
	switch n.Kind {
	case jsonc.Null:
		return value{kind: Null, text: "null"}
	case jsonc.Bool:
		return value{kind: Bool, b: n.Bool, text: strconv.FormatBool(n.Bool)}
	case jsonc.String:
		return value{kind: String, str: n.Str}
	}
	if IsInt(n.Num) {
		if i, err := strconv.ParseInt(n.Num, 10, 64); err == nil {
			return value{kind: Int, num: new(big.Rat).SetInt64(i), text: strconv.FormatInt(i, 10)}
		}
		num := n.Num
		if len(num) > MaxDigits {
			num = num[:MaxDigits]
		}
		if b, ok := new(big.Int).SetString(num, 10); ok {
			return value{kind: Int, num: new(big.Rat).SetInt(b), text: b.String()}
		}
	}
	f, _ := strconv.ParseFloat(n.Num, 64)
	v := value{kind: Float, text: FormatFloat(f)}
	switch {
	case math.IsInf(f, 1):
		v.inf, v.text = 1, "Infinity"
	case math.IsInf(f, -1):
		v.inf, v.text = -1, "-Infinity"
	default:
		v.num = new(big.Rat)
		v.num.SetFloat64(f)
	}
	return v
}

// msgText is how CUE writes the value in a message.
func (v value) msgText() string {
	if v.kind == String {
		return Quote(v.str)
	}
	return v.text
}

// equalsLiteral reports whether the value is the literal l (JSON text) for CUE: the same kind
// (an int is not a float) and the same value.
func (v value) equalsLiteral(l string) bool {
	switch {
	case l == "null":
		return v.kind == Null
	case l == "true" || l == "false":
		return v.kind == Bool && v.b == (l == "true")
	case strings.HasPrefix(l, `"`):
		if body, ok := plainQuoted(l); ok {
			return v.kind == String && v.str == body // what Unquote gives, without its copy
		}
		s, err := strconv.Unquote(l)
		return err == nil && v.kind == String && v.str == s
	}
	if v.num == nil || (v.kind == Int) != IsInt(l) {
		return false
	}
	r, ok := new(big.Rat).SetString(l)
	return ok && r.Cmp(v.num) == 0
}

// plainQuoted returns the text of a double-quoted literal without escapes, quotes or control
// characters inside, as strconv.Unquote would; ok is false for any other literal.
func plainQuoted(l string) (string, bool) {
	if len(l) < 2 || l[0] != '"' || l[len(l)-1] != '"' {
		return "", false
	}
	body := l[1 : len(l)-1]
	for i := 0; i < len(body); i++ {
		if c := body[i]; c == '\\' || c == '"' || c < 0x20 || c >= 0x7F {
			return "", false
		}
	}
	return body, true
}

// check runs the value through a disjunction: ok when a branch takes it, else the message the
// CUE walker gives (Translate's wording: the branches' reasons, a type or literal conflict left
// out when a bound or pattern says more).
func (v value) check(alts []alt, got string) (string, bool) {
	if len(alts) == 0 {
		return "", true
	}
	// CUE sorts a failed disjunction's errors by their message and drops repeats.
	type failure struct{ raw, msg string }
	var fs []failure
	for _, a := range alts {
		raw, m, ok := v.branch(&a, got)
		if ok {
			return "", true
		}
		fs = append(fs, failure{raw, m})
	}
	slices.SortStableFunc(fs, func(a, b failure) int { return strings.Compare(a.raw, b.raw) })
	var msgs []string
	for _, f := range fs {
		if f.msg != "" && !slices.Contains(msgs, f.msg) {
			msgs = append(msgs, f.msg)
		}
	}
	var general []string
	for _, m := range msgs {
		if !strings.HasPrefix(m, "expected ") {
			general = append(general, m)
		}
	}
	if len(general) > 0 {
		msgs = general
	}
	if len(msgs) == 0 {
		return "invalid value " + got, false
	}
	return strings.Join(msgs, "; or "), false
}

// branch tries one branch: ok, or CUE's error (raw) and Translate's wording of it (msg).
func (v value) branch(a *alt, got string) (raw, msg string, ok bool) {
	if a.lit != "" {
		if v.equalsLiteral(a.lit) {
			return "", "", true
		}
		lit := litText(a.lit)
		if !acceptsKind(a.litKind, v.kind) || (v.kind == Float) != (a.litKind == Float) {
			return "conflicting values " + v.msgText() + " and " + lit + " (mismatched types " + v.kindName() + " and " + a.name + ")",
				"expected " + Article(a.name) + ", got " + got, false
		}
		return "conflicting values " + lit + " and " + v.msgText(), "expected " + lit + ", got " + v.msgText(), false
	}
	if !acceptsKind(a.kind, v.kind) {
		return "conflicting values " + v.msgText() + " and " + a.name + " (mismatched types " + v.kindName() + " and " + a.name + ")",
			"expected " + Article(a.name) + ", got " + got, false
	}
	for _, at := range a.atoms {
		if !v.holds(&at) {
			return "invalid value " + v.msgText() + " (out of bound " + at.text + ")", v.boundMessage(&at), false
		}
	}
	return "", "", true
}

// kindName is the value's type as CUE names it.
func (v value) kindName() string {
	switch v.kind {
	case Null:
		return "null"
	case Bool:
		return "bool"
	case Int:
		return "int"
	case Float:
		return "float"
	}
	return "string"
}

// holds reports whether an atom holds for the value.
func (v value) holds(at *atom) bool {
	switch {
	case at.op == "=~":
		return v.kind == String && matches(at.str, v.str)
	case at.op == "!~":
		return v.kind == String && !matches(at.str, v.str)
	case at.isStr: // != "s"
		return v.kind != String || v.str != at.str
	}
	c := v.inf
	if v.num != nil {
		c = v.num.Cmp(new(big.Rat).SetInt64(at.num))
	}
	switch at.op {
	case ">=":
		return c >= 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case "<":
		return c < 0
	}
	return c != 0
}

// boundMessage is Translate's wording of CUE's "invalid value V (out of bound B)".
func (v value) boundMessage(at *atom) string {
	b := at.text
	switch {
	case b == `!=""`:
		return "must not be empty"
	case strings.HasPrefix(b, "=~"):
		return v.msgText() + " does not match the pattern " + b[2:]
	case strings.HasPrefix(b, "!~"):
		return v.msgText() + " must not match " + b[2:]
	case strings.HasPrefix(b, "!="):
		return "must not be " + b[2:]
	}
	return v.msgText() + " is out of range (must be " + b + ")"
}

// litText is a literal as CUE writes it in a conflict.
func litText(l string) string {
	if s, err := strconv.Unquote(l); err == nil && strings.HasPrefix(l, `"`) {
		return Quote(s)
	}
	return l
}

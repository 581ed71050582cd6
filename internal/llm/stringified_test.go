package llm

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// stringifiedSeeds add, to stringifySeeds, arguments already in JSON.stringify's form (which
// isStringified must take) and near misses of every kind (which it must refuse).
var stringifiedSeeds = []string{
	`{"path":"a.go","offset":10,"limit":200}`, `{"oldText":"x\n\t\"y\"\\","newText":"\u0001é✓<>&\u001f"}`,
	`{"a":[1,-2,0,1.5,-0.25,1e+21,1e-7,123456789012345,1234567890123456]}`, `9007199254740993`,
	`{"a":1, "b":2}`, `{"a":1,"b":2} `, ` {"a":1}`, `{"a" :1}`, `[1 ,2]`, `{"a":-0}`, `{"a":0.0}`,
	`{"a":1.50}`, `{"a":1E5}`, `{"a":1e5}`, `{"a":100000}`, `{"a":1e21}`, `{"a":1e+21}`, `{"a":1e-7}`,
	`{"a":0.0000001}`, `{"a":12345678901234567890}`, `{"a":1e400}`, `{"a":"\/"}`, `{"a":"\u0041"}`,
	`{"a":"\u000A"}`, `{"a":"\u000a"}`, `{"a":"\u001F"}`, `{"a":"\u007f"}`, "{\"a\":\"\x7f\u2028\"}",
	`{"a":"\u2028"}`, `{"a":"\ud83d\ude00"}`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", "{\"a\":\"\xed\xa0\x80\"}",
	`{"a":1,"a":1}`, `{"\u0061":1,"a":2}`, `{"a":{"b":1},"b":{"a":1}}`, `[{"a":1},{"a":1}]`,
	`{"a":true,"b":false,"c":null}`, `{"a":tru}`, `[]`, `{}`, `[[]]`, `""`, `"x"`, `0`, `-1`, `null`,
	`{"a":1}x`, `{"a":1`, `{"a":}`, `[,1]`, `{,"a":1}`,
}

// checkStringified: what isStringified takes is JSON.stringify's form exactly (the tree, the
// reference, writes the same bytes), and what the tree writes unchanged is taken (within the
// nesting the fast path follows).
func checkStringified(t *testing.T, raw []byte) {
	t.Helper()
	want, err := jsonStringifyTree(raw)
	same := err == nil && string(want) == string(raw)
	got := isStringified(raw)
	if got != same && (got || strings.Count(string(raw), "[")+strings.Count(string(raw), "{") <= maxFastDepth) {
		t.Fatalf("%q: isStringified %v, JSON.stringify writes %q (err %v)", raw, got, want, err)
	}
	if got {
		// What it takes is written as a string by appendStringifiedQuoted as AppendJSString
		// writes it, after a prefix and into a buffer with or without room.
		for _, b := range [][]byte{nil, []byte(`{"a":`), make([]byte, 3, 3+2*len(raw)+2)} {
			want := string(AppendJSString(append([]byte(nil), b...), string(raw)))
			if got := string(appendStringifiedQuoted(append(b[:len(b):len(b)], []byte{}...), raw)); got != want {
				t.Fatalf("%q: appendStringifiedQuoted wrote %q, AppendJSString %q", raw, got, want)
			}
		}
	}
}

// TestStringifiedQuotedSame: appendStringifiedQuoted writes stringified JSON as AppendJSString
// does: the seeds (checkStringified compares the two for each one taken), arguments with an
// escape in every place of a word, and 200,000 random ones of quotes, backslashes, escapes,
// non-ASCII and plain runs of every length.
func TestStringifiedQuotedSame(t *testing.T) {
	for _, s := range append(append([]string(nil), stringifySeeds...), stringifiedSeeds...) {
		checkStringified(t, []byte(s))
	}
	taken := 0
	for n := range 20 {
		for at := range n {
			v := []byte(strings.Repeat("x", n))
			v[at] = '"'
			raw := []byte(`{"k":"` + strings.ReplaceAll(string(v), `"`, `\\`) + `"}`)
			checkStringified(t, raw)
			if isStringified(raw) {
				taken++
			}
			raw = []byte(`{"k":"` + strings.ReplaceAll(string(v), `"`, `\"`) + `"}`)
			checkStringified(t, raw)
			if isStringified(raw) {
				taken++
			}
		}
	}
	r := rand.New(rand.NewSource(12))
	parts := []string{`\n`, `\"`, `\\`, `\t`, `\u0001`, `é`, `✓`, "\u2028", `","x":"`, `":[1,2],"y":"`}
	for range 200_000 {
		var sb strings.Builder
		sb.WriteString(`{"k":"`)
		for range r.Intn(12) {
			if r.Intn(2) == 0 {
				sb.WriteString(parts[r.Intn(len(parts))])
			} else {
				for range r.Intn(20) {
					sb.WriteByte(byte('a' + r.Intn(26)))
				}
			}
		}
		sb.WriteString(`"}`)
		raw := []byte(sb.String())
		if isStringified(raw) {
			taken++
		}
		checkStringified(t, raw)
	}
	if taken < 100_000+2*190 {
		t.Fatalf("only %d random arguments were stringified", taken)
	}
}

// TestQuoteOrBackslash: the word test marks exactly the quotes and backslashes, for every
// byte value at every place of a word and a million random words.
func TestQuoteOrBackslash(t *testing.T) {
	check := func(w uint64) {
		var want uint64
		for k := range 8 {
			if c := byte(w >> (8 * k)); c == '"' || c == '\\' {
				want |= 0x80 << (8 * k)
			}
		}
		if got := quoteOrBackslash(w); got != want {
			t.Fatalf("%#016x: %#016x, want %#016x", w, got, want)
		}
	}
	for k := range 8 {
		for c := range 256 {
			for _, fill := range []uint64{0, 0x2222222222222222, 0x5c5c5c5c5c5c5c5c, 0xffffffffffffffff, 0x4141414141414141} {
				check(fill&^(0xff<<(8*k)) | uint64(c)<<(8*k))
			}
		}
	}
	r := rand.New(rand.NewSource(13))
	for range 1_000_000 {
		check(r.Uint64())
	}
}

func FuzzStringifiedQuoted(f *testing.F) {
	for _, s := range append(append([]string(nil), stringifySeeds...), stringifiedSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkStringified(t, []byte(s)) })
}

func TestIsStringifiedMatchesTree(t *testing.T) {
	for _, s := range append(append([]string(nil), stringifySeeds...), stringifiedSeeds...) {
		checkStringified(t, []byte(s))
	}
	deep := strings.Repeat("[", maxFastDepth+2) + strings.Repeat("]", maxFastDepth+2)
	if isStringified([]byte(deep)) {
		t.Error("nesting beyond maxFastDepth taken")
	}
	// Written pi's way, the usual arguments take the fast path (fails if they do not).
	for _, s := range stringifiedSeeds[:3] {
		if !isStringified([]byte(s)) {
			t.Errorf("%s: not taken", s)
		}
	}
}

func FuzzIsStringified(f *testing.F) {
	for _, s := range append(append([]string(nil), stringifySeeds...), stringifiedSeeds...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkStringified(t, []byte(s)) })
}

// TestArgumentsWrittenBothWays: JSONText and json.RawMessage values are written the same with
// the fast path and without it.
func TestArgumentsWrittenBothWays(t *testing.T) {
	defer func() { stringifiedOff = false }()
	for _, s := range append(append([]string(nil), stringifySeeds...), stringifiedSeeds...) {
		for _, v := range []any{JSONText(s), json.RawMessage(s)} {
			stringifiedOff = false
			fast := string(AppendJSON(nil, Obj{{K: "a", V: v}}))
			stringifiedOff = true
			slow := string(AppendJSON(nil, Obj{{K: "a", V: v}}))
			if fast != slow {
				t.Fatalf("%T %q: fast %s, slow %s", v, s, fast, slow)
			}
		}
	}
}

func BenchmarkArgumentsText(b *testing.B) {
	args := JSONText(`{"path":"internal/llm/jsonw.go","oldText":"` + strings.Repeat(`\tif x {\n\t\treturn \"y\"\n\t}\n`, 100) + `","newText":"z"}`)
	b.SetBytes(int64(len(args)))
	for b.Loop() {
		AppendJSON(nil, args)
	}
}

// TestIsStringifiedAllocates: checking a call's arguments allocates nothing (the key array
// comes from a pool: on the stack it escaped, one 256-byte allocation a call), also for
// arguments with more keys than the array holds at first.
func TestIsStringifiedAllocates(t *testing.T) {
	many := `{`
	for i := range 40 {
		many += `"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":1,`
	}
	many = many[:len(many)-1] + `}`
	for _, raw := range []string{`{"path":"a.go","offset":10,"limit":200}`, `{"a":{"b":[1,{"c":"d"}]}}`, many} {
		if !isStringified([]byte(raw)) {
			t.Fatalf("%s: not taken", raw)
		}
		b := []byte(raw)
		if n := testing.AllocsPerRun(100, func() { isStringified(b) }); n != 0 {
			t.Fatalf("%s: %v allocations a check", raw, n)
		}
	}
}

// TestIsStringifiedRandomStrings: canonicalStr, which jumps to an ASCII word's first quote,
// backslash or control character (escape8), takes exactly the strings JSON.stringify writes
// as they are, over 200,000 random string values of plain runs, escapes canonical and not,
// raw control, non-ASCII and invalid bytes.
func TestIsStringifiedRandomStrings(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	parts := []string{`\n`, `\"`, `\\`, `\t`, `\u0001`, `\u001f`, `\u000a`, `\/`, `\u0041`, `\ud83d\ude00`, "\x01", "\n", "é", "✓",
		"\xff", "\u2028", `"`, `\`, "\x7f"}
	for range 200_000 {
		var sb strings.Builder
		sb.WriteString(`{"k":"`)
		for range r.Intn(8) {
			if r.Intn(2) == 0 {
				sb.WriteString(parts[r.Intn(len(parts))])
			} else {
				for range r.Intn(20) {
					sb.WriteByte(byte(0x20 + r.Intn(0x5f)))
				}
			}
		}
		sb.WriteString(`"}`)
		checkStringified(t, []byte(sb.String()))
	}
}

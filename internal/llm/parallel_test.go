package llm

import (
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

// randomElem is a message-like value: strings with and without escapes (some that grow six
// times when escaped, so that a run outgrows its region), recorded forms, numbers, nested
// objects and arrays, and now and then a large one (runs of very different sizes, empty runs).
func randomElem(r *rand.Rand) any {
	str := func() string {
		var sb strings.Builder
		for range r.Intn(40) {
			switch r.Intn(8) {
			case 0:
				sb.WriteByte(byte(r.Intn(0x20)))
			case 1:
				sb.WriteString(`"\`)
			case 2:
				sb.WriteString("é\u2028😀")
			default:
				sb.WriteByte(byte('a' + r.Intn(26)))
			}
		}
		if r.Intn(50) == 0 {
			sb.WriteString(strings.Repeat("\x01", r.Intn(5000)))
		}
		if r.Intn(100) == 0 {
			sb.WriteString(strings.Repeat("x", r.Intn(200000)))
		}
		return sb.String()
	}
	o := Obj{{K: "role", V: "user"}, {K: "content", V: str()}}
	switch r.Intn(6) {
	case 0:
		s := str()
		o = append(o, Field{K: "text", V: quotedString(s, string(AppendJSString(nil, s)))})
	case 1:
		o = append(o, Field{K: "n", V: r.Float64() * 1e6}, Field{K: "i", V: r.Intn(1000)}, Field{K: "b", V: r.Intn(2) == 0})
	case 2:
		o = append(o, Field{K: "parts", V: []any{Obj{{K: "type", V: "text"}, {K: "text", V: str()}}, str(), nil}})
	case 3:
		o = append(o, Field{K: "tool_calls", V: []Obj{{{K: "id", V: str()}, {K: "arguments", V: JSONText(`{"path":"a","n":1.50}`)}}}})
	case 4:
		o = append(o, Field{K: "omitted", V: Omit})
	}
	return o
}

// The array written on several cores is byte for byte the one written in order, whatever the
// number of cores, the elements' sizes and escapes; the offsets the memo keeps are each
// element's bytes (the next body copies them), and the next body is the one written anew.
func TestParallelArraySameBytes(t *testing.T) {
	defer SetParallelMin(SetParallelMin(0))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewSource(1))
	for round := range 200 {
		procs := 2 + round%7
		runtime.GOMAXPROCS(procs)
		n := r.Intn(300)
		if round%10 == 0 {
			n = 2*procs + r.Intn(3)
		}
		elems := make([]any, n)
		for i := range elems {
			elems[i] = randomElem(r)
		}
		want := AppendJSON(nil, Obj{{K: "model", V: "m"}, {K: "messages", V: elems}, {K: "stream", V: true}})
		m := new(BodyMemo)
		got := AppendJSON(nil, Obj{{K: "model", V: "m"}, {K: "messages", V: MemoArray(m, elems)}, {K: "stream", V: true}})
		if string(got) != string(want) {
			t.Fatalf("round %d, %d cores, %d elements: bodies differ\n got %.300s\nwant %.300s", round, procs, n, got, want)
		}
		s := m.last
		for i, e := range elems {
			if enc := string(s.enc(i)); enc != string(AppendJSON(nil, e)) {
				t.Fatalf("round %d: element %d's offsets give %.100q", round, i, enc)
			}
		}
		// The next body: one more element, written in place from the offsets kept.
		next := append(elems[:n:n], randomElem(r))
		got = AppendJSON(nil, Obj{{K: "model", V: "m"}, {K: "messages", V: MemoArray(m, next)}, {K: "stream", V: true}})
		want = AppendJSON(nil, Obj{{K: "model", V: "m"}, {K: "messages", V: next}, {K: "stream", V: true}})
		if string(got) != string(want) {
			t.Fatalf("round %d: the next body differs", round)
		}
	}
}

// Arrays below parallelMin, and one core, are written in order by appendMemo itself.
func TestParallelOnlyWhenLarge(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	elems := make([]any, 100)
	for i := range elems {
		elems[i] = fmt.Sprint(i)
	}
	if _, _, ok := appendParallel([]byte("["), elems, nil); ok {
		t.Fatal("a small array was written in parallel")
	}
	defer SetParallelMin(SetParallelMin(0))
	if _, _, ok := appendParallel([]byte("["), elems, nil); !ok {
		t.Fatal("a large array on two cores was not written in parallel")
	}
	runtime.GOMAXPROCS(1)
	if _, _, ok := appendParallel([]byte("["), elems, nil); ok {
		t.Fatal("an array was written in parallel on one core")
	}
}

package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func readAll(t testing.TB, r io.Reader, flush bool) ([]Event, error) {
	return read(r, flush, false)
}

// read reads every event; with borrow, each event's data is borrowed ([Reader.Borrow]) and
// copied here before the next.
func read(r io.Reader, flush, borrow bool) ([]Event, error) {
	sr := NewReader(r)
	sr.FlushAtEOF = flush
	sr.Borrow = borrow
	var out []Event
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		ev.Data = strings.Clone(ev.Data)
		out = append(out, ev)
	}
}

func TestFraming(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Event
	}{
		{"lf", "data: a\n\ndata: b\n\n", []Event{{Data: "a", Retry: -1}, {Data: "b", Retry: -1}}},
		{"crlf", "event: x\r\ndata: a\r\n\r\n", []Event{{Event: "x", Data: "a", Retry: -1}}},
		{"cr", "data: a\rdata: b\r\r", []Event{{Data: "a\nb", Retry: -1}}},
		{"comment and ping", ": OPENROUTER PROCESSING\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n", []Event{{Event: "ping", Data: `{"type": "ping"}`, Retry: -1}}},
		{"no space", "data:a\n\n", []Event{{Data: "a", Retry: -1}}},
		{"two spaces keep one", "data:  a\n\n", []Event{{Data: " a", Retry: -1}}},
		{"field without colon", "data\n\n", []Event{{Data: "", Retry: -1}}},
		{"id persists, retry", "id: 7\nretry: 1500\ndata: a\n\ndata: b\n\n", []Event{{Data: "a", ID: "7", Retry: 1500}, {Data: "b", ID: "7", Retry: 1500}}},
		{"bad retry ignored", "retry: 1x\ndata: a\n\n", []Event{{Data: "a", Retry: -1}}},
		{"unknown field", "foo: bar\ndata: a\n\n", []Event{{Data: "a", Retry: -1}}},
		{"unterminated dropped", "data: a\n\ndata: b", []Event{{Data: "a", Retry: -1}}},
		{"blank lines only", "\n\n\r\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(t, strings.NewReader(tc.in), false)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestFlushAtEOF(t *testing.T) {
	got, err := readAll(t, strings.NewReader("data: a\n\nevent: e\ndata: b"), true)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{Data: "a", Retry: -1}, {Event: "e", Data: "b", Retry: -1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// chunked yields the input in pieces of the given sizes, cycling.
type chunked struct {
	s     string
	sizes []int
	i     int
}

func (c *chunked) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	n := c.sizes[c.i%len(c.sizes)]
	c.i++
	if n > len(p) {
		n = len(p)
	}
	if n > len(c.s) {
		n = len(c.s)
	}
	copy(p, c.s[:n])
	c.s = c.s[n:]
	return n, nil
}

// Any chunking gives the same events as reading the stream whole, CRLF split included.
func TestChunkBoundaries(t *testing.T) {
	in := "event: a\r\ndata: x\r\n\r\n: c\rdata: y\r\rdata: z\n\n"
	want, err := readAll(t, strings.NewReader(in), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 3 {
		t.Fatalf("got %d events: %+v", len(want), want)
	}
	for _, sizes := range [][]int{{1}, {2}, {3}, {1, 5}, {7, 1, 2}} {
		got, err := readAll(t, &chunked{s: in, sizes: sizes}, false)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sizes %v: %s", sizes, diff)
		}
	}
	got, err := readAll(t, iotest.OneByteReader(strings.NewReader(in)), false)
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("one byte reader: %v %+v", err, got)
	}
}

func TestLimits(t *testing.T) {
	r := NewReader(strings.NewReader("data: " + strings.Repeat("x", 100) + "\n\n"))
	r.MaxLine = 50
	if _, err := r.Next(); !errors.Is(err, ErrTooLong) {
		t.Errorf("long line: %v", err)
	}
	r = NewReader(strings.NewReader(strings.Repeat("data: xxxxxxxxx\n", 20) + "\n"))
	r.MaxEvent = 50
	if _, err := r.Next(); !errors.Is(err, ErrTooLong) {
		t.Errorf("long event: %v", err)
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	_, err := readAll(t, io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom)), false)
	if !errors.Is(err, boom) {
		t.Errorf("got %v", err)
	}
}

// FuzzReader: never panics, never returns more data than it was given, and any chunking of
// the input gives the same events as reading it whole.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"data: a\n\n", "event: x\r\ndata: {}\r\n\r\n", ": c\rdata:\r\r", "id: 1\nretry: 5\ndata: a\ndata: b\n\n", "data: a\r"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, in string, size uint8) {
		whole, err1 := readAll(t, strings.NewReader(in), true)
		total := 0
		for _, ev := range whole {
			total += len(ev.Data)
		}
		if total > len(in) {
			t.Fatalf("%d bytes of data from %d of input", total, len(in))
		}
		n := int(size%16) + 1
		parts, err2 := readAll(t, &chunked{s: in, sizes: []int{n}}, true)
		if (err1 == nil) != (err2 == nil) || !cmp.Equal(whole, parts) {
			t.Fatalf("chunk %d: %+v %v vs %+v %v", n, parts, err2, whole, err1)
		}
		borrowed, err3 := read(&chunked{s: in, sizes: []int{n}}, true, true)
		if (err1 == nil) != (err3 == nil) || !cmp.Equal(whole, borrowed) {
			t.Fatalf("borrowed, chunk %d: %+v %v vs %+v %v", n, borrowed, err3, whole, err1)
		}
	})
}

func BenchmarkReader(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10000; i++ {
		sb.WriteString(`data: {"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"hello "}}]}` + "\n\n")
	}
	in := sb.String()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(strings.NewReader(in))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}

// TestLineEnd: the first CR or LF, as bytes.IndexAny finds it, for every string of up to 9
// bytes of "a", CR and LF and for long runs (past the vectorised searches' blocks).
func TestLineEnd(t *testing.T) {
	var all func(prefix string, n int)
	all = func(prefix string, n int) {
		if got, want := lineEnd([]byte(prefix)), bytes.IndexAny([]byte(prefix), "\r\n"); got != want {
			t.Fatalf("lineEnd(%q) = %d, want %d", prefix, got, want)
		}
		if n > 0 {
			for _, c := range []string{"a", "\r", "\n"} {
				all(prefix+c, n-1)
			}
		}
	}
	all("", 9)
	long := strings.Repeat("x", 100)
	for _, s := range []string{long, long + "\r" + long + "\n", long + "\n" + long + "\r", long + "\r"} {
		if got, want := lineEnd([]byte(s)), bytes.IndexAny([]byte(s), "\r\n"); got != want {
			t.Errorf("lineEnd = %d, want %d", got, want)
		}
	}
}

// TestDataLines: one data line is the event's data as is; more are joined with LF, and the
// next event starts afresh.
func TestDataLines(t *testing.T) {
	got, err := readAll(t, strings.NewReader("data: a\ndata: b\ndata: c\n\ndata: d\n\ndata\ndata\n\n"), false)
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{{Data: "a\nb\nc", Retry: -1}, {Data: "d", Retry: -1}, {Data: "\n", Retry: -1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// TestBorrow: borrowed data is the data a copying reader gives, whatever the chunking (a data
// line split between reads, several data lines, a last event without its blank line), it stays
// as it was until the next call of Next though the reader moves and refills its buffer, and an
// event of one data line costs no allocation.
func TestBorrow(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&sb, "data: {\"n\":%d,\"text\":%q}\n\n", i, strings.Repeat("abc", i))
		if i%7 == 0 {
			sb.WriteString("event: e\r\ndata: one\r\ndata: two\r\n\r\n: comment\n")
		}
	}
	sb.WriteString("data: last")
	in := sb.String()
	want, err := read(strings.NewReader(in), true, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, sizes := range [][]int{{1}, {3}, {7, 1, 2}, {100}, {4096}, {len(in)}} {
		got, err := read(&chunked{s: in, sizes: sizes}, true, true)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sizes %v: %s", sizes, diff)
		}
		// The data of the event before stays intact until Next is called again.
		r := NewReader(&chunked{s: in, sizes: sizes})
		r.Borrow, r.FlushAtEOF = true, true
		for i := range want {
			ev, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if ev.Data != want[i].Data {
				t.Fatalf("sizes %v, event %d: %q", sizes, i, ev.Data)
			}
		}
	}
	ev := "data: " + strings.Repeat("x", 4000) + "\n\n"
	r := NewReader(strings.NewReader(strings.Repeat(ev, 200)))
	r.Borrow = true
	r.Next() // the buffer is made
	if n := testing.AllocsPerRun(100, func() {
		if e, err := r.Next(); err != nil || len(e.Data) != 4000 {
			t.Fatal(err, len(e.Data))
		}
	}); n != 0 {
		t.Errorf("%v allocations an event", n)
	}
}

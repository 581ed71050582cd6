package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
)

// BodyMemo lets a session's request bodies be extended instead of rebuilt: it remembers the
// elements of the last body's message array and where each was written in that body. The
// next body copies the bytes of every element equal to the one at the same place last time
// and writes only the others (the turn's new messages, the one whose cache marker moved,
// everything after a compaction or a model switch). Equality is of the values being written
// (strings, numbers, raw JSON, nested objects and arrays), so the body is byte for byte the
// one a full rebuild writes, whatever changed; values are compared without being written, and
// a string still held from the last turn compares by its pointer.
//
// When the bytes before the array are the last body's too (they are unless the model or
// something written before the messages changed), the next body is written into the last
// body's buffer: the bytes of its leading equal elements stay where they are, the rest of the
// array and what follows it are written after them (later equal elements are copied from a
// saved copy of their bytes), so a turn costs what it adds, not a copy of the whole body.
// The last body's bytes after its kept prefix are then overwritten: a body built through a
// memo is good until the next one is built through it ([Open] sends it through a reader that
// fails instead of sending changed bytes, should a request still be reading it).
//
// A nil *BodyMemo memoises nothing. It is safe for concurrent use (each body reads one
// remembered state and leaves its own; a state is written into by one body only, and a body
// that finds it taken is written whole).
type BodyMemo struct {
	mu    sync.Mutex
	last  *memoState
	stats MemoStats
	// kept is a provider's own memo of what it derived from the last context (TakeKept).
	kept any
}

// TakeKept returns what the last body's provider kept with PutKept (nil if nothing) and
// leaves nothing kept: two bodies built at once never share it (the second finds nothing
// and derives its own). A nil memo keeps nothing.
func (m *BodyMemo) TakeKept() any {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := m.kept
	m.kept = nil
	return k
}

// PutKept keeps v for the next body's TakeKept.
func (m *BodyMemo) PutKept(v any) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.kept = v
	m.mu.Unlock()
}

// MemoStats counts the array elements copied from the last body and written anew, and the
// bodies written into the last one's buffer.
type MemoStats struct{ Reused, Written, InPlace int }

// memoState is one body's array: its elements and where their bytes are in buf.
type memoState struct {
	elems []any
	// off holds each element's start and end offsets in buf.
	off []int
	// buf is the body up to the end of the array; arrStart is the offset of its '['.
	buf      []byte
	arrStart int

	mu sync.Mutex
	// taken: a later body was written into buf, so its bytes after that body's kept prefix
	// are no longer this body's.
	taken bool
}

func (s *memoState) enc(i int) []byte { return s.buf[s.off[2*i]:s.off[2*i+1]] }

// free reports whether no later body was written into s's buffer yet.
func (s *memoState) free() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.taken
}

// memoArray is a JSON array AppendJSON writes through a BodyMemo.
type memoArray struct {
	m     *BodyMemo
	prev  *memoState
	elems []any
	// sum is hintSums(elems) when sizeHint computed it (nil otherwise).
	sum []int
}

// Stats returns the counts so far.
func (m *BodyMemo) Stats() MemoStats {
	if m == nil {
		return MemoStats{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// MemoArray is es as a value AppendJSON writes as a JSON array through m (a plain []any when
// m is nil). Put it in the body once: the array written last is the one remembered.
func MemoArray[E any](m *BodyMemo, es []E) any {
	elems := make([]any, len(es))
	for i := range es {
		elems[i] = es[i]
	}
	if m == nil {
		return elems
	}
	m.mu.Lock()
	prev := m.last
	m.mu.Unlock()
	return &memoArray{m: m, prev: prev, elems: elems}
}

// MemoObjs is MemoArray of a provider's converted messages: a DirectSlab's object is put in
// the array as its Direct, which boxes without an allocation (an Obj is boxed in one: at
// 64 MB of session ~60,000 of them).
func MemoObjs(m *BodyMemo, os []Obj) any {
	if m == nil {
		return MemoArray(m, os)
	}
	elems := make([]any, len(os))
	for i, o := range os {
		if d, ok := directOf(o); ok {
			elems[i] = d
		} else {
			elems[i] = o
		}
	}
	m.mu.Lock()
	prev := m.last
	m.mu.Unlock()
	return &memoArray{m: m, prev: prev, elems: elems}
}

// appendMemo writes a's elements after b, copying those equal to the last body's (or leaving
// them in place: see BodyMemo), and remembers this body's.
func appendMemo(b []byte, a *memoArray) []byte {
	prev := a.prev
	if prev != nil {
		prev.mu.Lock()
		switch {
		case prev.taken:
			prev.mu.Unlock()
			prev = nil
		case len(b) == prev.arrStart && bytes.Equal(b, prev.buf[:prev.arrStart]):
			prev.taken = true
			prev.mu.Unlock()
			return appendMemoInPlace(a, prev)
		default:
			// Copied from: nobody writes into it meanwhile.
			defer prev.mu.Unlock()
		}
	}
	if prev != nil {
		need := 2
		for i, e := range a.elems {
			if i < len(prev.elems) {
				need += 1 + prev.off[2*i+1] - prev.off[2*i]
			} else {
				need += 1 + sizeHint(e)
			}
		}
		b = slices.Grow(b, need+64<<10)
	}
	arrStart := len(b)
	b = append(b, '[')
	if prev == nil {
		if pb, off, ok := appendParallel(b, a.elems, a.sum); ok {
			b = append(pb, ']')
			a.m.remember(&memoState{elems: a.elems, off: off, buf: b, arrStart: arrStart}, 0, len(a.elems), false)
			return b
		}
	}
	off := make([]int, 0, 2*len(a.elems))
	reused := 0
	for i, e := range a.elems {
		if i > 0 {
			b = append(b, ',')
		}
		start := len(b)
		if prev != nil && i < len(prev.elems) && sameJSON(prev.elems[i], e) {
			b = append(b, prev.enc(i)...)
			reused++
		} else {
			b = AppendJSON(b, e)
		}
		off = append(off, start, len(b))
	}
	b = append(b, ']')
	a.m.remember(&memoState{elems: a.elems, off: off, buf: b, arrStart: arrStart}, reused, len(a.elems)-reused, false)
	return b
}

// appendMemoInPlace writes a's array and what follows it into prev's buffer, which holds the
// same bytes before the array: the leading elements equal to prev's stay where they are.
func appendMemoInPlace(a *memoArray, prev *memoState) []byte {
	n := len(a.elems)
	k := 0
	for k < n && k < len(prev.elems) && sameJSON(prev.elems[k], a.elems[k]) {
		k++
	}
	keep := prev.arrStart + 1
	if k > 0 {
		keep = prev.off[2*k-1]
	}
	// Later elements equal to prev's: their bytes are about to be overwritten, so they are
	// copied out first (one copy of the span from the first to the last of them).
	same := make([]bool, n)
	lo, hi := -1, -1
	for i := k; i < n && i < len(prev.elems); i++ {
		if sameJSON(prev.elems[i], a.elems[i]) {
			same[i] = true
			if lo < 0 {
				lo = prev.off[2*i]
			}
			hi = prev.off[2*i+1]
		}
	}
	var saved []byte
	if lo >= 0 {
		saved = append([]byte(nil), prev.buf[lo:hi]...)
	}
	b := prev.buf[:keep]
	need := len(saved) + 64<<10
	for i := k; i < n; i++ {
		if !same[i] {
			need += 1 + sizeHint(a.elems[i])
		}
	}
	if cap(b)-len(b) < need {
		// A quarter to spare: the next turns append without copying the body again.
		b = slices.Grow(b, need+len(b)/4)
	}
	off := make([]int, 2*n)
	copy(off, prev.off[:2*k])
	reused := k
	for i := k; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		start := len(b)
		if same[i] {
			b = append(b, saved[prev.off[2*i]-lo:prev.off[2*i+1]-lo]...)
			reused++
		} else {
			b = AppendJSON(b, a.elems[i])
		}
		off[2*i], off[2*i+1] = start, len(b)
	}
	b = append(b, ']')
	a.m.remember(&memoState{elems: a.elems, off: off, buf: b, arrStart: prev.arrStart}, reused, n-reused, true)
	return b
}

func (m *BodyMemo) remember(s *memoState, reused, written int, inPlace bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = s
	m.stats.Reused += reused
	m.stats.Written += written
	if inPlace {
		m.stats.InPlace++
	}
}

// guard is the remembered state whose buffer body is (nil when it is none of them).
func (m *BodyMemo) guard(body []byte) *memoState {
	if m == nil || cap(body) == 0 {
		return nil
	}
	m.mu.Lock()
	s := m.last
	m.mu.Unlock()
	if s == nil || cap(s.buf) == 0 || &body[:1][0] != &s.buf[:1][0] {
		return nil
	}
	return s
}

// ErrBodySuperseded is what a request still reading a body gets once a later body was written
// into its buffer (see BodyMemo): it fails rather than send other bytes.
var ErrBodySuperseded = errors.New("the request body was superseded by a later request's")

// guardedBody reads a body written through a BodyMemo, checking that no later body was written
// into its buffer meanwhile (under the lock a later body takes to claim it).
type guardedBody struct {
	s    *memoState
	body []byte
	off  int
}

func (r *guardedBody) Read(p []byte) (int, error) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.s.taken {
		return 0, ErrBodySuperseded
	}
	if r.off >= len(r.body) {
		return 0, io.EOF
	}
	n := copy(p, r.body[r.off:])
	r.off += n
	return n, nil
}

// Close does nothing: a guardedBody is an io.ReadCloser so that http.NewRequest takes it as the
// request's Body itself, not wrapped in io.NopCloser, where bodyConn.ReadFrom would not see it.
func (r *guardedBody) Close() error { return nil }

// WriteTo writes the body in pieces of 1 MiB, each under the lock: the writer gets the bytes
// without a copy through a small buffer.
func (r *guardedBody) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		r.s.mu.Lock()
		if r.s.taken {
			r.s.mu.Unlock()
			return total, ErrBodySuperseded
		}
		if r.off >= len(r.body) {
			r.s.mu.Unlock()
			return total, nil
		}
		piece := r.body[r.off:min(len(r.body), r.off+1<<20)]
		n, err := w.Write(piece)
		r.s.mu.Unlock()
		r.off += n
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
}

// sameJSON reports whether a and b are values AppendJSON writes identically, judged without
// writing them. Types it does not know are never the same (they are written anew).
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		// A JSString is written as the string it stands for.
		y, ok := StringOf(b)
		return ok && x == y
	case *JSString:
		y, ok := StringOf(b)
		return ok && x.String() == y
	case Obj:
		y, ok := b.(Obj)
		if !ok || len(x) != len(y) {
			return false
		}
		if len(x) > 0 && &x[0] == &y[0] {
			// The same object (a provider kept its conversion: see BodyMemo.TakeKept).
			return true
		}
		for i := range x {
			if x[i].K != y[i].K || !sameJSON(x[i].V, y[i].V) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, sameJSON)
	case []Obj:
		y, ok := b.([]Obj)
		return ok && slices.EqualFunc(x, y, func(p, q Obj) bool { return sameJSON(p, q) })
	case []string:
		y, ok := b.([]string)
		return ok && slices.Equal(x, y)
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int:
		y, ok := b.(int)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case json.RawMessage:
		y, ok := b.(json.RawMessage)
		return ok && (len(x) == 0) == (len(y) == 0) && bytes.Equal(x, y)
	case JSONText:
		y, ok := b.(JSONText)
		return ok && bytes.Equal(x, y)
	case omit:
		_, ok := b.(omit)
		return ok
	case Direct:
		y, ok := b.(Direct)
		return ok && x.SameDirect(y)
	case map[string]string:
		y, ok := b.(map[string]string)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || w != v {
				return false
			}
		}
		return true
	}
	return false
}

// JSONText is raw JSON written as a JSON string holding its JSON.stringify form (a tool
// call's arguments in OpenAI's bodies): what string(AppendJSON(nil, raw)) is, written when
// the body is, so that a body extended through a BodyMemo does not re-serialise the
// arguments of every earlier call.
type JSONText json.RawMessage

// parallelMin is the size (sizeHint) from which appendParallel writes an array's elements on
// more than one core: below it the goroutines cost more than the halves save.
var parallelMin = 1 << 20

// appendParallel writes es after b as the elements of a JSON array (b ends with its '['),
// separated by commas, on up to GOMAXPROCS cores, and returns the buffer and each element's
// start and end offsets in it. Each core writes a run of elements of about the same size into
// its own region of b's spare capacity (a run that outgrows its region is written elsewhere
// by append); the runs are then moved down behind each other, so the bytes are those of one
// loop writing them in order. sum is hintSums(es) or nil. ok is false (and nothing written) when es is too small or there
// is one core.
func appendParallel(b []byte, es []any, sum []int) (_ []byte, off []int, ok bool) {
	procs := min(runtime.GOMAXPROCS(0), 8)
	if procs < 2 || len(es) < 2*procs {
		return nil, nil, false
	}
	// Prefix sums of the elements' hints (sizeHint's, when it was asked), to cut runs of
	// equal size.
	if len(sum) != len(es)+1 {
		sum = hintSums(es)
	}
	total := sum[len(es)]
	if total < parallelMin {
		return nil, nil, false
	}
	// Room for the hints and an eighth for escapes (AppendJSON sized the body so); the runs'
	// regions share what there is in proportion to their hints.
	if cap(b)-len(b) < total+total/8 {
		b = slices.Grow(b, total+total/8)
	}
	full := b[:cap(b)]
	room := cap(b) - len(b)
	// cut[k] is run k's first element; start[k] the start of its region in full.
	cut := make([]int, procs+1)
	start := make([]int, procs+1)
	cut[procs], start[procs] = len(es), cap(b)
	start[0] = len(b)
	for k := 1; k < procs; k++ {
		cut[k], _ = slices.BinarySearch(sum, total*k/procs)
		cut[k] = max(cut[k], cut[k-1])
		start[k] = len(b) + int(int64(room)*int64(sum[cut[k]])/int64(total))
	}
	off = make([]int, 2*len(es))
	runs := make([][]byte, procs)
	// write appends run k's elements to r (its region; the first run's starts with b's bytes,
	// so its offsets are b's own, the others' are from their region's start).
	write := func(k int, r []byte) {
		for i := cut[k]; i < cut[k+1]; i++ {
			if i > 0 {
				r = append(r, ',')
			}
			s := len(r)
			r = AppendJSON(r, es[i])
			off[2*i], off[2*i+1] = s, len(r)
		}
		runs[k] = r
	}
	var wg sync.WaitGroup
	for k := 1; k < procs; k++ {
		wg.Go(func() { write(k, full[start[k]:start[k]:start[k+1]]) })
	}
	write(0, b[:len(b):start[1]])
	wg.Wait()
	// Each run's offsets are relative to its region's start: shifted to where it lands.
	// together: every run is still in its region (the first one, with b's bytes, at full's
	// start); an empty run has nothing to move.
	n := len(runs[0])
	together := &runs[0][:1][0] == &full[0]
	for k := 1; k < procs; k++ {
		n += len(runs[k])
		if len(runs[k]) > 0 && &runs[k][:1][0] != &full[start[k]] {
			together = false
		}
	}
	var out []byte
	if together {
		out = full[:len(runs[0])]
	} else {
		// A run outgrew its region: all of them are copied into a new buffer.
		out = make([]byte, 0, n+n/8)
		out = append(out, runs[0]...)
	}
	for k := 1; k < procs; k++ {
		shift := len(out)
		if together {
			out = out[:len(out)+len(runs[k])]
			copy(out[shift:], runs[k]) // downwards: the regions are in order
		} else {
			out = append(out, runs[k]...)
		}
		for i := cut[k]; i < cut[k+1]; i++ {
			off[2*i] += shift
			off[2*i+1] += shift
		}
	}
	return out, off, true
}

package llm

import (
	"bytes"
	"encoding/json"
	"math"
	"sync"
)

// BodyMemo lets a session's request bodies be extended instead of rebuilt: it remembers the
// elements of the last body's message array and where each was written in that body. The
// next body copies the bytes of every element equal to the one at the same place last time
// and writes only the others (the turn's new messages, the one whose cache marker moved,
// everything after a compaction or a model switch). Equality is of the values being written
// (strings, numbers, raw JSON, nested objects and arrays), so the body is byte for byte the
// one a full rebuild writes, whatever changed; values are compared without being written, and
// a string still held from the last turn compares by its pointer. A nil *BodyMemo memoises
// nothing. It is safe for concurrent use (each body reads one remembered state and leaves
// its own).
type BodyMemo struct {
	mu    sync.Mutex
	last  *memoState
	stats MemoStats
}

// MemoStats counts the array elements copied from the last body and written anew.
type MemoStats struct{ Reused, Written int }

// memoState is one body's array: its elements and their bytes (slices of that body).
type memoState struct {
	elems []any
	enc   [][]byte
}

// memoArray is a JSON array AppendJSON writes through a BodyMemo.
type memoArray struct {
	m     *BodyMemo
	prev  *memoState
	elems []any
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

// appendMemo writes a's elements, copying those equal to the last body's, and remembers
// this body's. The spans are slices of b as it stands after the array: append never writes
// into a buffer it has outgrown, so they stay valid whatever the caller appends afterwards.
func appendMemo(b []byte, a *memoArray) []byte {
	b = append(b, '[')
	spans := make([]int, 0, 2*len(a.elems))
	reused := 0
	for i, e := range a.elems {
		if i > 0 {
			b = append(b, ',')
		}
		start := len(b)
		if p := a.prev; p != nil && i < len(p.elems) && sameJSON(p.elems[i], e) {
			b = append(b, p.enc[i]...)
			reused++
		} else {
			b = AppendJSON(b, e)
		}
		spans = append(spans, start, len(b))
	}
	enc := make([][]byte, len(a.elems))
	for i := range enc {
		enc[i] = b[spans[2*i]:spans[2*i+1]:spans[2*i+1]]
	}
	a.m.mu.Lock()
	a.m.last = &memoState{elems: a.elems, enc: enc}
	a.m.stats.Reused += reused
	a.m.stats.Written += len(a.elems) - reused
	a.m.mu.Unlock()
	return append(b, ']')
}

// sameJSON reports whether a and b are values AppendJSON writes identically, judged without
// writing them. Types it does not know are never the same (they are written anew).
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case Obj:
		y, ok := b.(Obj)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].K != y[i].K || !sameJSON(x[i].V, y[i].V) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case []Obj:
		y, ok := b.([]Obj)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case []string:
		y, ok := b.([]string)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
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

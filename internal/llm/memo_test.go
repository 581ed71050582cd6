package llm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// memoBody is a body with a message array written through m, the way providers build theirs.
func memoBody(m *BodyMemo, msgs ...string) []byte {
	return AppendJSON(nil, Obj{{K: "model", V: "m"}, {K: "messages", V: MemoArray(m, msgs)}, {K: "stream", V: true}})
}

// The next body is written into the last one's buffer; a request still reading the last body
// then fails instead of sending the new bytes, and Open sends a memo's body with its length.
func TestMemoInPlaceGuardsTheLastBody(t *testing.T) {
	m := new(BodyMemo)
	memoBody(m, "one", strings.Repeat("two ", 2000))
	// The first body written in place gets room to spare; the next ones use it.
	first := memoBody(m, "one", strings.Repeat("two ", 2000), "three")
	want := string(first)
	s := m.guard(first)
	if s == nil {
		t.Fatal("the memo does not know the body it just wrote")
	}
	r := &guardedBody{s: s, body: first}
	head := make([]byte, 10)
	if n, err := r.Read(head); n != 10 || err != nil {
		t.Fatalf("read %d, %v", n, err)
	}
	second := memoBody(m, "one", "2", "three")
	if got := m.Stats().InPlace; got != 2 {
		t.Fatalf("%d bodies written in place, want 2", got)
	}
	if &second[0] != &first[0] {
		t.Fatal("the second body is not in the first one's buffer")
	}
	if string(second) != string(memoBody(nil, "one", "2", "three")) {
		t.Fatalf("in place: %s", second)
	}
	if _, err := r.Read(head); !errors.Is(err, ErrBodySuperseded) {
		t.Fatalf("reading a superseded body: %v, want ErrBodySuperseded", err)
	}
	if _, err := io.Copy(io.Discard, &guardedBody{s: s, body: first}); !errors.Is(err, ErrBodySuperseded) {
		t.Fatalf("writing a superseded body: %v, want ErrBodySuperseded", err)
	}
	if want == string(first) {
		t.Fatal("the first body's bytes did not change: the test proves nothing")
	}

	var got []byte
	var length int64
	var chunked bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
		length, chunked = r.ContentLength, len(r.TransferEncoding) > 0
	}))
	defer srv.Close()
	third := memoBody(m, "one", "three", strings.Repeat("four ", 1<<18))
	o := &Options{Memo: m}
	b := NewBuilder(&Model{}, nil)
	rc, failed := Open(context.Background(), b, o, Request{URL: srv.URL, Body: third})
	if failed != nil {
		t.Fatal(failed.ErrorMessage)
	}
	rc.Close()
	if !bytes.Equal(got, third) || length != int64(len(third)) || chunked {
		t.Fatalf("sent %d bytes (Content-Length %d, chunked %v), want the %d of the body", len(got), length, chunked, len(third))
	}
}

// A body that cannot be written in place (the bytes before the array changed) is copied, and
// the memo then extends the copy.
func TestMemoCopiesWhenThePrefixChanges(t *testing.T) {
	m := new(BodyMemo)
	memoBody(m, "one", "two")
	other := AppendJSON(nil, Obj{{K: "model", V: "n"}, {K: "messages", V: MemoArray(m, []string{"one", "two", "three"})}})
	if s := m.Stats(); s.InPlace != 0 || s.Reused != 2 {
		t.Fatalf("stats %+v, want two copied and none in place", s)
	}
	if string(other) != `{"model":"n","messages":["one","two","three"]}` {
		t.Fatalf("copied: %s", other)
	}
	next := AppendJSON(nil, Obj{{K: "model", V: "n"}, {K: "messages", V: MemoArray(m, []string{"one", "2", "three", "four"})}})
	if string(next) != `{"model":"n","messages":["one","2","three","four"]}` || m.Stats().InPlace != 1 {
		t.Fatalf("in place after a copy: %s (%+v)", next, m.Stats())
	}
}

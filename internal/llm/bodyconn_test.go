package llm

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// writesConn records the writes made to a connection.
type writesConn struct {
	net.Conn
	mu     sync.Mutex
	writes []int
	got    bytes.Buffer
}

func (c *writesConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes = append(c.writes, len(p))
	c.got.Write(p)
	c.mu.Unlock()
	if c.Conn == nil {
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// bodyConn.ReadFrom writes a memo's body from its own bytes in pieces of 1 MiB when the limit
// covers what is left of it, and copies through the connection otherwise (the limit cuts the
// body: exactly that many bytes are written).
func TestBodyConnWritesGuardedBodies(t *testing.T) {
	m := new(BodyMemo)
	body := memoBody(m, "one", strings.Repeat("two ", 900_000))
	s := m.guard(body)
	if s == nil {
		t.Fatal("the memo does not know its body")
	}
	for _, tc := range []struct {
		name   string
		off    int
		limit  int64
		writes int // 0: not checked
	}{
		{"whole", 0, int64(len(body)), (len(body) + 1<<20 - 1) >> 20},
		{"after a read", 4000, int64(len(body) - 4000), (len(body) - 4000 + 1<<20 - 1) >> 20},
		{"limit above", 0, int64(len(body)) + 10, (len(body) + 1<<20 - 1) >> 20},
		{"limit below", 0, int64(len(body)) - 10, 0},
	} {
		c := &writesConn{}
		g := &guardedBody{s: s, body: body, off: tc.off}
		lr := &io.LimitedReader{R: g, N: tc.limit}
		n, err := (&bodyConn{c}).ReadFrom(lr)
		want := body[tc.off:min(len(body), tc.off+int(tc.limit))]
		if err != nil || n != int64(len(want)) || !bytes.Equal(c.got.Bytes(), want) {
			t.Fatalf("%s: wrote %d bytes (%v), want the %d of the body", tc.name, n, err, len(want))
		}
		if lr.N != tc.limit-n {
			t.Fatalf("%s: the limit left is %d, want %d", tc.name, lr.N, tc.limit-n)
		}
		if tc.writes > 0 && len(c.writes) != tc.writes {
			t.Fatalf("%s: %d writes, want %d", tc.name, len(c.writes), tc.writes)
		}
	}
}

// A memo's body goes through net/http to a bodyConn as itself (not wrapped in io.NopCloser),
// so it reaches the socket in pieces of 1 MiB, not 32 KiB, and arrives unchanged.
func TestOpenSendsMemoBodiesWhole(t *testing.T) {
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
	}))
	defer srv.Close()
	var conns []*writesConn
	var mu sync.Mutex
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		wc := &writesConn{Conn: c}
		mu.Lock()
		conns = append(conns, wc)
		mu.Unlock()
		return &bodyConn{wc}, nil
	}}
	defer tr.CloseIdleConnections()
	m := new(BodyMemo)
	body := memoBody(m, "one", strings.Repeat("two ", 1_000_000))
	o := &Options{Memo: m, HTTPClient: &http.Client{Transport: tr}}
	rc, failed := Open(context.Background(), NewBuilder(&Model{}, nil), o, Request{URL: srv.URL, Body: body})
	if failed != nil {
		t.Fatal(failed.ErrorMessage)
	}
	rc.Close()
	if !bytes.Equal(got, body) {
		t.Fatalf("sent %d bytes, want the %d of the body", len(got), len(body))
	}
	mu.Lock()
	defer mu.Unlock()
	writes := 0
	for _, c := range conns {
		writes += len(c.writes)
	}
	// The head and what fits in net/http's 4 KiB buffer, then the body's 1 MiB pieces (the
	// socket may take a piece in several writes).
	if most := 2 + 4*((len(body)+1<<20-1)>>20); writes > most {
		t.Fatalf("%d writes for a body of %d bytes, want at most %d", writes, len(body), most)
	}
}

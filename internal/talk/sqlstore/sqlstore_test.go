package sqlstore

import (
	"bufio"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/talk/storewire"
)

// TestBadRequests: a request outside the protocol (an unknown operation, the wrong number of
// arguments, an empty frame) is answered with an error, and the server goes on answering.
func TestBadRequests(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	go func() {
		var stderr strings.Builder
		done <- Serve([]string{filepath.Join(t.TempDir(), "talk.db")}, inR, outW, &stderr)
	}()
	w, r := bufio.NewWriter(inW), bufio.NewReader(outR)
	answer := func() []string {
		t.Helper()
		f, err := storewire.Read(r)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, b := range f {
			s = append(s, string(b))
		}
		return s
	}
	if a := answer(); len(a) != 1 || a[0] != storewire.StatusOK {
		t.Fatalf("opening: %q", a)
	}
	for req, want := range map[string]string{
		"drop\x00x": `bad request "drop" with 1 arguments`,
		"keys":      `bad request "keys" with 0 arguments`,
		"get\x00ns": `bad request "get" with 1 arguments`,
		"":          "empty request",
	} {
		var f []string
		if req != "" {
			f = strings.Split(req, "\x00")
		}
		if err := storewire.WriteStrings(w, f...); err != nil {
			t.Fatal(err)
		}
		if a := answer(); len(a) != 2 || a[0] != storewire.StatusFail || a[1] != want {
			t.Errorf("%q: %q, want the error %q", req, a, want)
		}
	}
	if err := storewire.WriteStrings(w, storewire.OpPut, "ns", "k", "v"); err != nil {
		t.Fatal(err)
	}
	if a := answer(); len(a) != 1 || a[0] != storewire.StatusOK {
		t.Fatalf("put after the bad requests: %q", a)
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d at the end of stdin", code)
	}
}

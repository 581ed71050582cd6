package jswire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// Strings cross as counted raw bytes: any bytes, an empty string and an absent one survive.
func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	in := []*Message{
		{T: "start", Discover: true, CPUms: 5, Mem: 7, S: []*string{Ptr("a\nb\"\x00\xff"), Ptr(""), nil}},
		{T: "settle", ID: 3, OK: true, S: []*string{nil}},
		{T: "done"},
	}
	for _, m := range in {
		if err := Write(&b, m); err != nil {
			t.Fatal(err)
		}
	}
	r := NewReader(&b)
	for _, want := range in {
		m, err := Read(r, 100)
		if err != nil {
			t.Fatal(err)
		}
		if m.T != want.T || m.ID != want.ID || m.OK != want.OK || m.Discover != want.Discover || m.CPUms != want.CPUms || m.Mem != want.Mem || len(m.S) != len(want.S) {
			t.Fatalf("%+v, want %+v", m, want)
		}
		for i := range want.S {
			if (m.S[i] == nil) != (want.S[i] == nil) || m.Str(i) != want.Str(i) {
				t.Fatalf("string %d: %v, want %v", i, m.S[i], want.S[i])
			}
		}
	}
	if _, err := Read(r, 100); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

// Every read is bounded before anything is allocated for it.
func TestBounds(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{strings.Repeat("x", 10000), "protocol error: a header line longer than 4096 bytes"},
		{`{"t":"out","n":[101]}` + "\n", "protocol error: a string of 101 bytes (at most 100)"},
		{`{"t":"out","n":[-2]}` + "\n", "protocol error: a string of -2 bytes (at most 100)"},
		{`{"t":"out","n":[0,0,0,0,0,0,0,0,0]}` + "\n", "protocol error: 9 strings in one message"},
		{`{"t":"done","n":[60,-1,41]}` + "\n" + strings.Repeat("x", 60), "protocol error: strings of 101 bytes in one message (at most 100)"},
		{`{"t":"out","n":[5]}` + "\nab", "unexpected EOF"},
		{`{"t":"out"`, "unexpected EOF"},
		{"[]\n", "protocol error: json: cannot unmarshal array into Go value of type jswire.Message"},
	} {
		_, err := Read(NewReader(strings.NewReader(c.in)), 100)
		if err == nil || err.Error() != c.want {
			t.Errorf("%.40q: %v, want %s", c.in, err, c.want)
		}
		if strings.HasPrefix(c.want, "protocol") && !errors.Is(err, ErrProtocol) {
			t.Errorf("%.40q: not ErrProtocol", c.in)
		}
	}
}

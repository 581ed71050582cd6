package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestReadEndToEnd(t *testing.T) {
	e := newEnv(t, "")
	e.write("a.txt", "one\ntwo\nthree\n")
	r := e.call("read", `{"path":"a.txt"}`)
	if r.IsError || r.Text() != "one\ntwo\nthree\n" || r.Details != nil {
		t.Fatalf("got %+v", r)
	}
	r = e.call("read", `{"path":"a.txt","offset":"2","limit":1}`)
	if want := "two\n\n[2 more lines in file. Use offset=3 to continue.]"; r.IsError || r.Text() != want {
		t.Fatalf("got %q", r.Text())
	}
	var big strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	e.write("big.txt", big.String())
	r = e.call("read", `{"path":"big.txt"}`)
	if !strings.HasSuffix(r.Text(), "line 2000\n\n[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]") {
		t.Fatalf("got tail %q", r.Text()[len(r.Text())-100:])
	}
}

func TestRunErrors(t *testing.T) {
	e := newEnv(t, "")
	cases := []struct{ name, args, want string }{
		{"nope", `{}`, "Tool nope not found"},
		{"read", `{}`, "Validation failed for tool \"read\":\n  - path: must have required properties path\n\nReceived arguments:\n{}"},
		{"read", `{"path":"a","offset":"x"}`, "Validation failed for tool \"read\":\n  - offset: must be number\n\nReceived arguments:\n{\n  \"path\": \"a\",\n  \"offset\": \"x\"\n}"},
		{"read", `{"path":"missing.txt"}`, "ENOENT: no such file or directory, access '" + e.dir + "/missing.txt'"},
	}
	for _, c := range cases {
		r := e.call(c.name, c.args)
		if !r.IsError || r.Text() != c.want {
			t.Errorf("%s %s:\n got %q\nwant %q", c.name, c.args, r.Text(), c.want)
		}
	}
}

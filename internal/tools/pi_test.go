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

func TestQuickTools(t *testing.T) {
	e := newEnv(t, "")
	e.write("f.txt", "alpha\r\nbeta\r\ngamma\r\n")
	r := e.call("edit", `{"path":"f.txt","oldText":"beta","newText":"BETA"}`)
	t.Logf("edit: %v %q %s", r.IsError, r.Text(), r.Details)
	t.Logf("file: %q", e.read("f.txt"))
	r = e.call("write", `{"path":"sub/dir/n.txt","content":"héllo"}`)
	t.Logf("write: %v %q", r.IsError, r.Text())
	r = e.call("ls", `{}`)
	t.Logf("ls: %v %q", r.IsError, r.Text())
	r = e.call("grep", `{"pattern":"h.llo"}`)
	t.Logf("grep: %v %q %s", r.IsError, r.Text(), r.Details)
	r = e.call("find", `{"pattern":"*.txt"}`)
	t.Logf("find: %v %q", r.IsError, r.Text())
	r = e.call("bash", `{"command":"echo hi; echo err >&2; pwd; env | grep ^PI_ | sort"}`)
	t.Logf("bash: %v %q", r.IsError, r.Text())
	r = e.call("bash", `{"command":"exit 3"}`)
	t.Logf("bash: %v %q", r.IsError, r.Text())
	r = e.call("bash", `{"command":"sleep 5","timeout":0.3}`)
	t.Logf("bash: %v %q", r.IsError, r.Text())
}

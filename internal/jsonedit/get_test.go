package jsonedit

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const getSrc = `{
  // comment
  "a": {"b": [1, /* two */ 2, {"c": "d",},],},
  "dup": 1,
  "dup": 2,
}
`

func TestGet(t *testing.T) {
	tests := []struct {
		path  string
		want  string
		found bool
	}{
		{"a", `{"b":[1,2,{"c":"d"}]}`, true},
		{"a.b[2].c", `"d"`, true},
		{"a.b[1]", `2`, true},
		{"a.b[3]", ``, false},
		{"a.x", ``, false},
		{"x.y.z", ``, false},
		{"dup", `2`, true},
	}
	for _, tt := range tests {
		got, found, err := Get([]byte(getSrc), mustPath(t, tt.path))
		if err != nil {
			t.Errorf("Get(%s): %v", tt.path, err)
			continue
		}
		if found != tt.found || string(got) != tt.want {
			t.Errorf("Get(%s) = %q, %v; want %q, %v", tt.path, got, found, tt.want, tt.found)
		}
	}
	if _, _, err := Get([]byte(getSrc), mustPath(t, "a.b.c")); err == nil || !strings.Contains(err.Error(), "a.b is an array, not an object") {
		t.Errorf("Get through an array by key: %v", err)
	}
	if _, found, err := Get(nil, mustPath(t, "a")); err != nil || found {
		t.Errorf("Get on a missing file: %v %v", found, err)
	}
}

func mustPath(t testing.TB, s string) Path {
	t.Helper()
	p, err := ParsePath(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestErrors(t *testing.T) {
	src := []byte("{\n  \"fs\": {\"mode\": \"ro\"},\n  \"list\": [1]\n}\n")
	tests := []struct {
		name string
		run  func() ([]byte, error)
		want string
		is   error
	}{
		{"through string", func() ([]byte, error) { return Set(src, mustPath(t, "fs.mode.x"), []byte("1")) }, `2:18: fs.mode is a string, not an object`, nil},
		{"unset missing", func() ([]byte, error) { return Unset(src, mustPath(t, "fs.other")) }, `2:9: fs.other: not found`, ErrNotFound},
		{"index range", func() ([]byte, error) { return Unset(src, mustPath(t, "list[1]")) }, `3:11: list[1]: index 1 out of range (list has 1 elements)`, ErrNotFound},
		{"negative", func() ([]byte, error) { return Set(src, Path{Key("list"), Index(-2)}, []byte("1")) }, `3:11: list[-2]: negative index -2`, nil},
		{"bad value", func() ([]byte, error) { return Set(src, mustPath(t, "a"), []byte("tru")) }, `invalid JSON value "tru": invalid character ' ' in literal true (expecting 'e')`, ErrInvalidValue},
		{"two values", func() ([]byte, error) { return Set(src, mustPath(t, "a"), []byte("1 2")) }, `invalid JSON value "1 2": invalid character '2' after top-level value`, ErrInvalidValue},
		{"empty value", func() ([]byte, error) { return Add(src, mustPath(t, "list"), nil) }, `invalid JSON value "": unexpected end of JSON input`, ErrInvalidValue},
		{"syntax", func() ([]byte, error) { return Set([]byte("{\n  \"a\": 1,,\n}"), mustPath(t, "a"), []byte("1")) }, `2:10: syntax error: invalid character ',' at start of value`, ErrSyntax},
		{"unterminated comment", func() ([]byte, error) { return Set([]byte("{} /* x"), mustPath(t, "a"), []byte("1")) }, ``, ErrSyntax},
		{"add to object", func() ([]byte, error) { return Add(src, mustPath(t, "fs"), []byte("1")) }, `2:9: fs is an object, not an array`, nil},
	}
	for _, tt := range tests {
		out, err := tt.run()
		if err == nil {
			t.Errorf("%s: no error, got %q", tt.name, out)
			continue
		}
		if tt.want != "" && err.Error() != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, err, tt.want)
		}
		if tt.is != nil && !errors.Is(err, tt.is) {
			t.Errorf("%s: %v is not %v", tt.name, err, tt.is)
		}
	}
}

func TestDiff(t *testing.T) {
	old := []byte("{\n  \"a\": 1,\n  \"b\": 2,\n  \"c\": 3,\n  \"d\": 4,\n  \"e\": 5\n}\n")
	new, err := Set(old, mustPath(t, "c"), []byte("30"))
	if err != nil {
		t.Fatal(err)
	}
	want := `--- a/settings.json
+++ b/settings.json
@@ -1,7 +1,7 @@
 {
   "a": 1,
   "b": 2,
-  "c": 3,
+  "c": 30,
   "d": 4,
   "e": 5
 }
`
	if diff := cmp.Diff(want, Diff("settings.json", old, new)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := Diff("x", old, old); got != "" {
		t.Errorf("Diff of equal inputs = %q", got)
	}
	got := Diff(".pi/sandbox.json", nil, []byte("{}\n"))
	if !strings.HasPrefix(got, "--- a/.pi/sandbox.json\n+++ b/.pi/sandbox.json\n") || !strings.Contains(got, "+{}\n") {
		t.Errorf("Diff of a new file:\n%s", got)
	}
	got = Diff("f", []byte("{}"), []byte("{\"a\": 1}"))
	if !strings.Contains(got, `\ No newline at end of file`) {
		t.Errorf("missing final newline not marked:\n%s", got)
	}
}

func TestDiffAbsoluteName(t *testing.T) {
	got := Diff("/home/u/.pi/agent/settings.json", []byte("{}\n"), []byte("{\"a\": 1}\n"))
	if !strings.HasPrefix(got, "--- a/home/u/.pi/agent/settings.json\n+++ b/home/u/.pi/agent/settings.json\n") {
		t.Errorf("diff header:\n%s", got)
	}
}

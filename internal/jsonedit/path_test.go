package jsonedit

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		want Path
		err  string
	}{
		{in: "personalExtensions.fileIo", want: Path{Key("personalExtensions"), Key("fileIo")}},
		{in: "fs.mode", want: Path{Key("fs"), Key("mode")}},
		{in: "servers.gopls.args[0]", want: Path{Key("servers"), Key("gopls"), Key("args"), Index(0)}},
		{in: `modelThinkingLevels["openai/gpt-5.1"]`, want: Path{Key("modelThinkingLevels"), Key("openai/gpt-5.1")}},
		{in: `["a.b"].c`, want: Path{Key("a.b"), Key("c")}},
		{in: `a["x\"y"][2][10]`, want: Path{Key("a"), Key(`x"y`), Index(2), Index(10)}},
		{in: `$schema`, want: Path{Key("$schema")}},
		{in: `@scope/pkg.on`, want: Path{Key("@scope/pkg"), Key("on")}},
		{in: `a[""]`, want: Path{Key("a"), Key("")}},
		{in: "", err: `invalid path "" at offset 0: empty path`},
		{in: "a.", err: `invalid path "a." at offset 2: empty key after '.'`},
		{in: "a..b", err: `invalid path "a..b" at offset 2: empty key after '.'`},
		{in: ".a", err: `invalid path ".a" at offset 0: path starts with '.'`},
		{in: "a[-1]", err: `invalid path "a[-1]" at offset 2: negative index -1`},
		{in: "a[x]", err: `invalid path "a[x]" at offset 2: index must be a number or a quoted key, not "x"`},
		{in: "a[1", err: `invalid path "a[1" at offset 1: unclosed '['`},
		{in: "a]", err: `invalid path "a]" at offset 1: unexpected ']'`},
		{in: `a["b`, err: `invalid path "a[\"b" at offset 2: unterminated quoted key`},
		{in: `a["b"`, err: `invalid path "a[\"b\"" at offset 5: expected ']' after quoted key`},
		{in: `a[0]b`, err: `invalid path "a[0]b" at offset 4: expected '.' or '[' before key`},
		{in: `a."b"`, err: `invalid path "a.\"b\"" at offset 2: empty key after '.'`},
		{in: "a[99999999999999999999]", err: `invalid path "a[99999999999999999999]" at offset 2: index 99999999999999999999 is too large`},
	}
	for _, tt := range tests {
		got, err := ParsePath(tt.in)
		if tt.err != "" {
			if err == nil {
				t.Errorf("ParsePath(%q) = %v, want error %q", tt.in, got, tt.err)
				continue
			}
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Errorf("ParsePath(%q): error %T is not a *PathError", tt.in, err)
			}
			if err.Error() != tt.err {
				t.Errorf("ParsePath(%q) error:\n got %s\nwant %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParsePath(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParsePath(%q) (-want +got):\n%s", tt.in, diff)
		}
		back, err := ParsePath(got.String())
		if err != nil || !cmp.Equal(back, got) {
			t.Errorf("round trip of %q via %q: %v, %v", tt.in, got.String(), back, err)
		}
	}
}

func TestPathString(t *testing.T) {
	tests := []struct {
		p    Path
		want string
	}{
		{Path{Key("a"), Key("b"), Index(3)}, "a.b[3]"},
		{Path{Key("m"), Key("openai/gpt-5.1")}, `m["openai/gpt-5.1"]`},
		{Path{Key("a b")}, "a b"},
		{Path{Key(" a")}, `[" a"]`},
		{Path{Index(0), Key("x")}, "[0].x"},
		{Path{Key("<&>")}, "<&>"},
		{Path{Key("x\ny")}, `["x\ny"]`},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.p, got, tt.want)
		}
	}
}

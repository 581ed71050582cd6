package tools

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/pitest"
	"github.com/pigo-agent/pigo/internal/tools/claudecode"
	"github.com/pigo-agent/pigo/internal/tools/lsp"
	"github.com/pigo-agent/pigo/internal/tools/opencode"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

func ip(n int) *int { return &n }

func TestCCFormatRead(t *testing.T) {
	for _, tc := range []struct {
		name          string
		text          string
		offset, limit *int
		want          string
	}{
		{"empty", "", nil, nil, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"},
		{"bom only", "\ufeff", nil, nil, "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"},
		{"phantom line", "a\nb\n", nil, nil, "1: a\n2: b\n3: "},
		{"no final newline", "a\nb", nil, nil, "1: a\n2: b\n3: "},
		{"crlf", "a\r\nb\r\n", nil, nil, "1: a\n2: b\n3: "},
		{"bom stripped", "\ufeffa\n", nil, nil, "1: a\n2: "},
		{"tabs kept", "\tx\n", nil, nil, "1: \tx\n2: "},
		{"offset", "a\nb\nc\n", ip(2), nil, "2: b\n3: c\n4: "},
		{"offset limit", "a\nb\nc\n", ip(2), ip(1), "2: b"},
		{"offset zero numbers from 0", "a\nb\n", ip(0), nil, "0: a\n1: b\n2: "},
		{"negative offset", "a\nb\nc\nd\n", ip(-2), nil, "3: c\n4: d"},
		{"negative offset limit", "a\nb\nc\nd\n", ip(-3), ip(1), "2: b"},
		{"negative past start", "a\nb\n", ip(-9), nil, "1: a\n2: b"},
		{"offset at phantom", "a\n", ip(2), nil, "2: "},
		{"offset past end", "a\n", ip(3), nil, "<system-reminder>Warning: the file exists but is shorter than the provided offset (3). The file has 2 lines.</system-reminder>"},
	} {
		if got := claudecode.FormatRead(tc.text, tc.offset, tc.limit); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCCFileSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 262144: "256.0 KB", 262400: "256.3 KB",
		262401: "256.3 KB", 1536: "1.5 KB", 1587: "1.5 KB", 1588: "1.6 KB", 1 << 20: "1.0 MB", 3 << 30: "3.0 GB",
	} {
		if got := claudecode.FileSize(n); got != want {
			t.Errorf("ccFileSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestIsBinarySample(t *testing.T) {
	if !toolkit.IsBinarySample([]byte("ab\x00c")) {
		t.Error("NUL not binary")
	}
	if toolkit.IsBinarySample([]byte("plain\ttext\r\n\f\v")) {
		t.Error("text is binary")
	}
	if !toolkit.IsBinarySample([]byte("\x01\x02a")) || toolkit.IsBinarySample([]byte("\x01abc")) {
		t.Error("30 % threshold")
	}
	if toolkit.IsBinarySample(nil) {
		t.Error("empty is binary")
	}
	// Non-UTF-8 text is not binary: bytes ≥ 0x80 are not control bytes.
	if toolkit.IsBinarySample([]byte("caf\xe9 cr\xe8me\n")) {
		t.Error("latin-1 is binary")
	}
}

// TestLocaleSortAgainstNode sorts names (case kept, as opencode's read
// lists a directory) with node's localeCompare and with localeSort.
func TestLocaleSortAgainstNode(t *testing.T) {
	pi := pitest.Find(t)
	names := []string{"b", "A", "a", "_x", "1", "10", "2", "B.txt", "b.txt", "a-b", "a_b", "ab", "Ab", "aB", "AB", "é", "É", "e", "E", "z/", "Z", "~t",
		".hidden", "dir/", "Dir/", "DIR", "Makefile", "makefile", "README.md", "readme.md", "go.mod", "Go.mod", "main_test.go", "main.go",
		"ß", "ss", "SS", "æ", "ae", "Æ", "ñ", "Ñ", "n", "日本", "#x", "$y", "@z", "(p)", "[q]", "a b", "a\tb", "x1", "X1", "x01"}
	b, _ := json.Marshal(names)
	out, err := exec.Command(pi.Node, "-e", `const l=JSON.parse(process.argv[1]);l.sort((a,b)=>a.localeCompare(b));console.log(JSON.stringify(l))`, string(b)).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	json.Unmarshal(out, &want)
	got := append([]string{}, names...)
	opencode.LocaleSort(got)
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("order:\n got %q\nwant %q", got, want)
	}
}

func TestLocaleSort(t *testing.T) {
	// The order node prints for
	// a.sort((x, y) => x.localeCompare(y)) in an English locale.
	in := []string{"b", "A", "a", "_x", "1", "10", "2", "B.txt", "b.txt", "a-b", "a_b", "ab", "Ab", "é", "e", "z/", "Z", "~t", ".hidden", "dir/", "Dir/"}
	want := `_x .hidden ~t 1 10 2 a A a_b a-b ab Ab b b.txt B.txt dir/ Dir/ e é Z z/`
	opencode.LocaleSort(in)
	if got := strings.Join(in, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestOCSplitLines(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "a": "a", "a\n": "a", "a\n\n": "a|", "a\r\nb": "a|b", "a\rb\r": "a|b", "a\r\r\nb": "a||b",
	} {
		if got := strings.Join(opencode.SplitLines(in), "|"); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestOCReadFile(t *testing.T) {
	head := "<path>/w/f</path>\n<type>file</type>\n<content>\n"
	for _, tc := range []struct {
		name          string
		text          string
		offset, limit int
		want          string
	}{
		{"whole", "a\nb\n", 0, 2000, head + "1: a\n2: b\n\n(End of file - total 2 lines)\n</content>"},
		{"empty", "", 1, 2000, head + "\n\n(End of file - total 0 lines)\n</content>"},
		{"lines cap", "a\nb\nc\n", 2, 1, head + "2: b\n\n(Showing lines 2-2 of 3. Use offset=3 to continue.)\n</content>"},
		{"negative", "a\nb\nc\n", -1, 2000, head + "3: c\n\n(End of file - total 3 lines)\n</content>"},
		{"cr endings", "a\rb\r", 0, 2000, head + "1: a\n2: b\n\n(End of file - total 2 lines)\n</content>"},
		{"long line", strings.Repeat("x", 2001), 0, 2000, head + "1: " + strings.Repeat("x", 2000) + "... (line truncated to 2000 chars)\n\n(End of file - total 1 lines)\n</content>"},
	} {
		got, err := opencode.ReadFile("/w/f", tc.text, tc.offset, tc.limit)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v\nwant %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := opencode.ReadFile("/w/f", "a\n", 3, 2000); err == nil || err.Error() != "Offset 3 is out of range for this file (1 lines)" {
		t.Errorf("range error: %v", err)
	}
	// 50 KB cap: 60 lines of 1000 bytes give 51 lines (51*1001-1 > 51200).
	big := strings.Repeat(strings.Repeat("y", 1000)+"\n", 60)
	got, _ := opencode.ReadFile("/w/f", big, 0, 2000)
	if !strings.HasSuffix(got, "\n\n(Output capped at 50 KB. Showing lines 1-51. Use offset=52 to continue.)\n</content>") {
		t.Errorf("bytes cap: %q", got[len(got)-120:])
	}
}

func TestOCReadDir(t *testing.T) {
	entries := []string{"a", "b/", "c"}
	if got := opencode.ReadDir("/d", entries, 0, 2000); got != "<path>/d</path>\n<type>directory</type>\n<entries>\na\nb/\nc\n(3 entries)\n</entries>" {
		t.Errorf("got %q", got)
	}
	if got := opencode.ReadDir("/d", entries, 2, 1); got != "<path>/d</path>\n<type>directory</type>\n<entries>\nb/\n(Showing 1 of 3 entries. Use 'offset' parameter to read beyond entry 3)\n</entries>" {
		t.Errorf("got %q", got)
	}
}

// FuzzReadFormats checks the read formatters and the symbol finder on
// arbitrary text: no panic, and line numbers that count up from the start.
func FuzzReadFormats(f *testing.F) {
	f.Add("a\nb\r\nc", 1, 2, "b")
	f.Add("\ufeff", 0, 0, "x")
	f.Add("x\ry\n\n", -2, 1, "y")
	f.Fuzz(func(t *testing.T, text string, offset, limit int, symbol string) {
		if len(text) > 1<<16 {
			return
		}
		o, l := offset, limit
		out := claudecode.FormatRead(text, &o, &l)
		if l >= 1 && !strings.HasPrefix(out, "<system-reminder>") && strings.Count(out, "\n") >= l {
			t.Fatalf("limit %d exceeded: %q", l, out)
		}
		_, _ = opencode.ReadFile("/f", text, offset, max(limit, 0))
		for line := -1; line < 3; line++ {
			_, _ = lsp.SymbolCandidates(text, line, symbol, nil)
			c := offset
			_, _ = lsp.SymbolCandidates(text, line, symbol, &c)
		}
	})
}

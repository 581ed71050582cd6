package tools

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/tools/pi"
	"golang.org/x/image/bmp"
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

func TestFdGlob(t *testing.T) {
	cases := []struct {
		pattern, subject string
		want             bool
	}{
		{"*.go", "a.go", true},
		{"*.go", "a.txt", false},
		{"**/dir/**/*.txt", "/w/dir/a.txt", true},
		{"**/dir/**/*.txt", "/w/dir/x/y/a.txt", true},
		{"**/dir/*.txt", "/w/dir/x/a.txt", false},
		{"*.{go,md}", "x.md", true},
		{"[ab]?.c", "bz.c", true},
		{"[!ab]?.c", "bz.c", false},
		{"**", "/any/thing", true},
		{"a\\*b", "a*b", true},
	}
	for _, c := range cases {
		re, err := pi.CompileFdGlob(c.pattern, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := re.MatchString(c.subject); got != c.want {
			t.Errorf("%q ~ %q = %v, want %v", c.pattern, c.subject, got, c.want)
		}
	}
	if _, err := pi.CompileFdGlob("{a,b", true); err == nil {
		t.Error("unclosed brace accepted")
	}
}

func TestNormalizeFuzzy(t *testing.T) {
	cases := map[string]string{
		"":                               "",
		"a  \nb\t\n":                     "a\nb\n",
		"say \u201chi\u201d \u2014 ok  ": "say \"hi\" - ok",
		"\u2018x\u2019\u00a0y\u3000\n\n": "'x' y\n\n",
		"ﬁ ①":                            "fi 1", // NFKC
		"tail\u2003":                     "tail",
	}
	for in, want := range cases {
		if got := pi.NormalizeFuzzy(in); got != want {
			t.Errorf("normalizeFuzzy(%q) = %q, want %q", in, got, want)
		}
	}
}

// A screenshot larger than pi's 2000×2000 limit is scaled to fit, with pi's dimension note.
func TestReadLargeImage(t *testing.T) {
	e := newEnv(t, "")
	img := image.NewRGBA(image.Rect(0, 0, 3000, 1500))
	for x := 0; x < 3000; x++ {
		img.Set(x, x%1500, color.RGBA{uint8(x), 0, 0, 255})
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	e.write("shot.png", b.String())
	r := e.call("read", `{"path":"shot.png"}`)
	if r.IsError || len(r.Content) != 2 {
		t.Fatalf("%+v", r)
	}
	want := "Read image file [image/png]\n[Image: original 3000x1500, displayed at 2000x1000. Multiply coordinates by 1.50 to map to original image.]"
	if r.Content[0].Text != want {
		t.Fatalf("got %q", r.Content[0].Text)
	}
	data, _ := base64.StdEncoding.DecodeString(r.Content[1].Data)
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != 2000 || cfg.Height != 1000 {
		t.Fatalf("scaled image: %+v %v", cfg, err)
	}
	e.write("fake.bmp", "BM")
	if r := e.call("read", `{"path":"fake.bmp"}`); r.IsError || r.Text() != "BM" {
		t.Fatalf("not a bmp: %q", r.Text())
	}
}

// An edit of a file that is not UTF-8 keeps the bytes it does not touch (pi would turn them
// into U+FFFD); the result text is pi's.
func TestEditKeepsNonUTF8Bytes(t *testing.T) {
	e := newEnv(t, "")
	e.write("l1.txt", "caf\xe9\nkeep \xff\xfe\nchange me\n")
	r := e.call("edit", `{"path":"l1.txt","edits":[{"oldText":"change me","newText":"changed"}]}`)
	if r.IsError || r.Text() != "Successfully replaced 1 block(s) in l1.txt." {
		t.Fatalf("%q", r.Text())
	}
	if got := e.read("l1.txt"); got != "caf\xe9\nkeep \xff\xfe\nchanged\n" {
		t.Fatalf("file: %q", got)
	}
	// The fuzzy path (typographic quotes in the file) keeps them too.
	e.write("l2.txt", "caf\xe9\nsay \u201chi\u201d  \nend\n")
	r = e.call("edit", `{"path":"l2.txt","edits":[{"oldText":"say \"hi\"","newText":"say bye"}]}`)
	if r.IsError || e.read("l2.txt") != "caf\xe9\nsay bye\nend\n" {
		t.Fatalf("fuzzy: %q %q", r.Text(), e.read("l2.txt"))
	}
}

// The model sees pi's schemas byte for byte (TypeBox key order), as pi 0.84.3 sends them.
func TestLLMToolsArePis(t *testing.T) {
	e := newEnv(t, "")
	want := map[string]string{
		"read": `{"type":"object","required":["path"],"properties":{"path":{"type":"string","description":"Path to the file to read (relative or absolute)"},"offset":{"type":"number","description":"Line number to start reading from (1-indexed)"},"limit":{"type":"number","description":"Maximum number of lines to read"}}}`,
		"edit": `{"type":"object","required":["path","edits"],"properties":{"path":{"type":"string","description":"Path to the file to edit (relative or absolute)"},"edits":{"type":"array","items":{"type":"object","required":["oldText","newText"],"properties":{"oldText":{"type":"string","description":"Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."},"newText":{"type":"string","description":"Replacement text for this targeted edit."}}},"description":"One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead."}}}`,
		"ls":   `{"type":"object","properties":{"path":{"type":"string","description":"Directory to list (default: current directory)"},"limit":{"type":"number","description":"Maximum number of entries to return (default: 500)"}}}`,
	}
	n := 0
	for _, tl := range e.runner.LLMTools() {
		if w, ok := want[tl.Name]; ok {
			n++
			if string(tl.Parameters) != w {
				t.Errorf("%s:\n got %s\nwant %s", tl.Name, tl.Parameters, w)
			}
		}
		if tl.Name == "read" && tl.Description != "Read the contents of a file. Supports text files and images (jpg, png, gif, webp, bmp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete." {
			t.Errorf("read description %q", tl.Description)
		}
	}
	if n != len(want) {
		t.Fatalf("found %d of %d tools", n, len(want))
	}
}

// pi's write and edit go through the write guard: outside the workspace (decided on
// realpaths) a headless session refuses and nothing is written.
func TestPiWriteGuard(t *testing.T) {
	od, err := os.MkdirTemp("/var/tmp", "pigo-piguard-")
	if err != nil {
		t.Skip("no /var/tmp")
	}
	t.Cleanup(func() { os.RemoveAll(od) })
	e := newEnv(t, "")
	os.Symlink(od, filepath.Join(e.dir, "escape"))
	target := filepath.Join(e.dir, "escape", "x.txt")
	r := e.call("write", `{"path":"escape/x.txt","content":"pwned"}`)
	if !r.IsError || r.Text() != `Path "`+target+`" is outside workspace. No UI available for approval.` {
		t.Fatalf("write: %q", r.Text())
	}
	if _, err := os.Stat(filepath.Join(od, "x.txt")); err == nil {
		t.Fatal("the refused write happened")
	}
	os.WriteFile(filepath.Join(od, "y.txt"), []byte("keep"), 0o644)
	r = e.call("edit", `{"path":"`+filepath.Join(od, "y.txt")+`","edits":[{"oldText":"keep","newText":"lost"}]}`)
	if !r.IsError || !strings.HasSuffix(r.Text(), "is outside workspace. No UI available for approval.") {
		t.Fatalf("edit: %q", r.Text())
	}
	if b, _ := os.ReadFile(filepath.Join(od, "y.txt")); string(b) != "keep" {
		t.Fatalf("file changed: %q", b)
	}
	// A match error surfaces before the guard.
	r = e.call("edit", `{"path":"`+filepath.Join(od, "y.txt")+`","edits":[{"oldText":"absent","newText":"x"}]}`)
	if !strings.HasPrefix(r.Text(), "Could not find the exact text in") {
		t.Fatalf("edit order: %q", r.Text())
	}
	if r := e.call("write", `{"path":"/tmp/pigo-piguard-ok.txt","content":"ok"}`); r.IsError {
		t.Fatalf("/tmp: %q", r.Text())
	}
	os.Remove("/tmp/pigo-piguard-ok.txt")
}

// TestReadConvertsBMP: pi converts a BMP to PNG and says so; so does pigo (it omitted them).
func TestReadConvertsBMP(t *testing.T) {
	e := newEnv(t, "")
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := bmp.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	e.write("pic.bmp", b.String())
	r := e.call("read", `{"path":"pic.bmp"}`)
	if r.IsError || len(r.Content) != 2 || r.Content[0].Text != "Read image file [image/png]\n[Image converted from image/bmp to image/png.]" {
		t.Fatalf("bmp: %+v", r)
	}
	data, _ := base64.StdEncoding.DecodeString(r.Content[1].Data)
	got, err := png.Decode(bytes.NewReader(data))
	if r.Content[1].MimeType != "image/png" || err != nil || got.Bounds().Dx() != 3 || got.Bounds().Dy() != 2 {
		t.Fatalf("converted image: %s %v", r.Content[1].MimeType, err)
	}
	if cr, _, _, _ := got.At(1, 1).RGBA(); cr>>8 != 200 {
		t.Fatalf("pixel lost: %v", got.At(1, 1))
	}
}

// TestReadFindsNFDName: a file named in decomposed Unicode (macOS stores names in NFD) is
// found from the composed form, as pi finds it.
func TestReadFindsNFDName(t *testing.T) {
	e := newEnv(t, "")
	e.write("cafe\u0301.txt", "decomposed\n") // "café" with a combining acute accent
	r := e.call("read", `{"path":"caf\u00e9.txt"}`)
	if r.IsError || r.Text() != "decomposed\n" {
		t.Fatalf("NFC path of an NFD file: %+v", r)
	}
	e.write("Capture d\u2019e\u0301cran.txt", "both\n")
	if r := e.call("read", `{"path":"Capture d'\u00e9cran.txt"}`); r.IsError || r.Text() != "both\n" {
		t.Fatalf("NFD with a curly apostrophe: %+v", r)
	}
}

package toolrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

func tempDir(t *testing.T) string {
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestReadKey(t *testing.T) {
	d := tempDir(t)
	real := filepath.Join(d, "real")
	os.MkdirAll(filepath.Join(real, "sub"), 0o755)
	os.Symlink(real, filepath.Join(d, "link"))
	cases := map[string]string{
		filepath.Join(d, "link", "sub", "f.txt"):       filepath.Join(real, "sub", "f.txt"),
		filepath.Join(d, "link", "new", "deeper", "x"): filepath.Join(real, "new", "deeper", "x"),
		filepath.Join(d, "real", "..", "real", "a"):    filepath.Join(real, "a"),
		"/nonexistent-root-dir/x/y":                    "/nonexistent-root-dir/x/y",
	}
	for in, want := range cases {
		if got := ReadKey(in); got != want {
			t.Errorf("ReadKey(%s) = %s, want %s", in, got, want)
		}
	}
}

// The key is stable across the file's creation through a symlinked directory (the seed's
// 2026-09-29 bug must stay fixed).
func TestReadKeyStableAcrossCreation(t *testing.T) {
	d := tempDir(t)
	os.MkdirAll(filepath.Join(d, "real"), 0o755)
	os.Symlink(filepath.Join(d, "real"), filepath.Join(d, "link"))
	p := filepath.Join(d, "link", "new.txt")
	before := ReadKey(p)
	os.WriteFile(p, []byte("x"), 0o644)
	if after := ReadKey(p); after != before {
		t.Fatalf("key changed on creation: %s → %s", before, after)
	}
}

func TestStrictAndLenient(t *testing.T) {
	d := tempDir(t)
	p := filepath.Join(d, "f.txt")
	os.WriteFile(p, []byte("one\n"), 0o644)
	s := &Session{Cwd: d}
	r := s.Reads("claude-code")
	cur, err := os.ReadFile(p)
	ok := err == nil
	if err := r.CheckStrict(p, cur, ok); err == nil || err.Error() != "File has not been read yet. Read it first before writing to it." {
		t.Fatalf("unread: %v", err)
	}
	if err := r.CheckLenient(p, cur, ok); err != nil {
		t.Fatalf("lenient unread: %v", err)
	}
	details := r.Record(p, cur, true)
	if err := r.CheckStrict(p, cur, ok); err != nil {
		t.Fatalf("read: %v", err)
	}
	b, _ := json.Marshal(details)
	want := `{"` + p + `":{"digest":"` + Digest([]byte("one\n")) + `","textEditable":true}}`
	if string(b) != want {
		t.Fatalf("details.reads = %s, want %s", b, want)
	}
	os.WriteFile(p, []byte("two\n"), 0o644)
	cur, err = os.ReadFile(p)
	ok = err == nil
	mod := "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
	if err := r.CheckStrict(p, cur, ok); err == nil || err.Error() != mod {
		t.Fatalf("modified: %v", err)
	}
	if err := r.CheckLenient(p, cur, ok); err == nil || err.Error() != mod {
		t.Fatalf("lenient modified: %v", err)
	}
	os.Remove(p)
	if err := r.CheckLenient(p, nil, false); err == nil || err.Error() != mod {
		t.Fatalf("lenient gone: %v", err)
	}
	img := filepath.Join(d, "i.png")
	os.WriteFile(img, []byte("png"), 0o644)
	r.Record(img, []byte("png"), false)
	if err := r.CheckStrict(img, []byte("png"), true); err == nil || err.Error() != "Cannot edit or overwrite a binary file with a text tool: "+img {
		t.Fatalf("binary: %v", err)
	}
	// Another toolset's state is separate.
	if s.Reads("opencode").Len() != 0 {
		t.Fatal("opencode state shares claude-code's reads")
	}
}

func TestReplay(t *testing.T) {
	d := tempDir(t)
	p := filepath.Join(d, "a.go")
	dg := Digest([]byte("x"))
	msg := func(tool, details string) *llm.Message {
		return &llm.Message{Role: llm.RoleToolResult, ToolName: tool, Details: json.RawMessage(details)}
	}
	msgs := []*llm.Message{
		{Role: llm.RoleUser},
		msg("Read", `{"reads":{"`+p+`":{"digest":"`+dg+`","textEditable":true}}}`),
		msg("read", `{"reads":{"`+p+`":{"digest":"`+dg+`","textEditable":false}}}`),
		msg("Read", `{"reads":{"relative/path":{"digest":"`+dg+`","textEditable":true}}}`),
		msg("Read", `{"reads":{"/x/bad":{"digest":"zz","textEditable":true}}}`),
		msg("Read", `{"reads":{"/x/missing":{"digest":"`+dg+`"}}}`),
		msg("Read", `{"reads":"nope"}`),
		msg("bash", `{"reads":{"/x/bash":{"digest":"`+dg+`","textEditable":true}}}`),
		msg("lsp-rename", `{"reads":{"/x/renamed":{"digest":"`+dg+`","textEditable":true}}}`),
	}
	s := &Session{Cwd: d, FileIO: "claude-code"}
	s.Reads("claude-code").Record(filepath.Join(d, "stale"), []byte("y"), true)
	s.Replay(msgs)
	cc := s.Reads("claude-code")
	if cc.Len() != 2 {
		t.Fatalf("claude-code reads: %d, want 2 (a.go, renamed)", cc.Len())
	}
	if snap, ok := cc.Get(p); !ok || snap.Digest != dg || !snap.TextEditable {
		t.Fatalf("a.go: %+v %v", snap, ok)
	}
	if _, ok := cc.Get("/x/renamed"); !ok {
		t.Fatal("lsp-rename not replayed into the file toolset")
	}
	if snap, ok := s.Reads("opencode").Get(p); !ok || snap.TextEditable {
		t.Fatalf("opencode a.go: %+v %v", snap, ok)
	}
	if strings.Contains(p, "stale") {
		t.Fatal()
	}
	if _, ok := cc.Get(filepath.Join(d, "stale")); ok {
		t.Fatal("replay did not clear the state")
	}
}

func TestMutationQueueSerialises(t *testing.T) {
	d := tempDir(t)
	os.MkdirAll(filepath.Join(d, "real"), 0o755)
	os.Symlink(filepath.Join(d, "real"), filepath.Join(d, "link"))
	s := &Session{Cwd: d}
	inside := make(chan int, 2)
	release := make(chan struct{})
	done := make(chan struct{}, 2)
	for i, p := range []string{filepath.Join(d, "real", "f"), filepath.Join(d, "link", "f")} {
		go func() {
			s.WithFile(p, func() error {
				inside <- i
				<-release
				return nil
			})
			done <- struct{}{}
		}()
	}
	<-inside
	select {
	case <-inside:
		t.Fatal("two writers of one file (via a symlinked dir) ran at once")
	default:
	}
	close(release)
	<-done
	<-done
	// Different files run in parallel.
	a, b := make(chan struct{}), make(chan struct{})
	go s.WithFile(filepath.Join(d, "x"), func() error { close(a); <-b; return nil })
	<-a
	s.WithFile(filepath.Join(d, "y"), func() error { return nil })
	close(b)
}

// TestMayHoldReads: the pre-check never skips details encoding/json would read reads from,
// and skips those whose keys say nothing of it (FuzzMayHoldReads checks the first half on any
// input).
func TestMayHoldReads(t *testing.T) {
	for _, d := range []string{`{"reads":{}}`, `{"READS":{}}`, `{"ReAdS":{}}`, `{"r\u0065ads":{}}`, "{\"read\u017f\":{}}",
		`{"x":1,"reads":null}`, ` { "x" : [1,{"y":"}"}] , "Reads" : 1 } `, `{"a":"\"","reads":{}}`, `[1]`, `{"a":`, `{"a\u":1}`} {
		if !mayHoldReads([]byte(d)) {
			t.Errorf("%s skipped", d)
		}
	}
	// Only keys count: a value that says "reads", escapes or non-ASCII text in values (every
	// edit's diff has a \n) are not reasons to decode.
	for _, d := range []string{`{}`, ` { } `, `{"truncation":{"lines":3}}`, `{"read":1,"ads":2}`, `{"rea ds":1}`,
		`{"a":"reads"}`, `{"diff":"-  1 a\n+  1 \"reads\"\u00e9 é\\"}`, `{"x":{"reads":{"/a":{}}}}`, `{"x":["reads",{"reads":1}],"n":-1.5e3,"t":true}`} {
		if mayHoldReads([]byte(d)) {
			t.Errorf("%s not skipped", d)
		}
	}
	// The ones kept are exactly those encoding/json finds the key in, on these inputs.
	for _, d := range []string{`{"READS":{"/a":{}}}`, "{\"read\u017f\":{\"/a\":{}}}", `{"r\u0065ads":{"/a":{}}}`} {
		var v struct {
			Reads map[string]json.RawMessage `json:"reads"`
		}
		if json.Unmarshal([]byte(d), &v) != nil || len(v.Reads) != 1 {
			t.Errorf("encoding/json does not read %s", d)
		}
	}
}

// FuzzMayHoldReads: whatever mayHoldReads skips, encoding/json reads no "reads" from.
func FuzzMayHoldReads(f *testing.F) {
	for _, d := range []string{`{"reads":{"/a":{}}}`, `{"diff":"a\nb","reads":{}}`, `{"x":[{"reads":1}]}`, "{\"read\u017f\":{\"/a\":{}}}",
		`{"r\u0065ads":{"/a":1}}`, ` {"a" : "\\\"" , "READS":{"k":2}} `, `{"a":1}`} {
		f.Add([]byte(d))
	}
	f.Fuzz(func(t *testing.T, d []byte) {
		if mayHoldReads(d) {
			return
		}
		var v struct {
			Reads map[string]json.RawMessage `json:"reads"`
		}
		if json.Unmarshal(d, &v) == nil && v.Reads != nil {
			t.Fatalf("%q skipped, but encoding/json reads %v from it", d, v.Reads)
		}
	})
}

package session

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

func user(text string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(text)}, Timestamp: 1000}
}

func assistant(text string) llm.Message {
	return llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock(text)}, API: "openai-completions", Provider: "p", Model: "m", StopReason: llm.StopStop, Timestamp: 2000}
}

func texts(ms []llm.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Role+":"+m.Text())
	}
	return out
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestDeferredFirstFlush(t *testing.T) {
	dir := t.TempDir()
	s := New(t.TempDir(), dir, Options{})
	s.AppendModelChange("p", "m")
	s.AppendMessage(user("hello"))
	if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
		t.Fatalf("the file exists before the first assistant message (%v)", err)
	}
	s.AppendMessage(assistant("hi"))
	lines := readLines(t, s.Path())
	if len(lines) != 4 {
		t.Fatalf("after the first assistant message: %d lines, want 4 (header + 3)", len(lines))
	}
	s.AppendMessage(user("again"))
	if lines := readLines(t, s.Path()); len(lines) != 5 {
		t.Fatalf("append: %d lines", len(lines))
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$`).MatchString(filepath.Base(s.Path())) {
		t.Errorf("file name %s", filepath.Base(s.Path()))
	}
	var h map[string]any
	json.Unmarshal([]byte(readLines(t, s.Path())[0]), &h)
	if h["version"] != 3.0 || h["type"] != "session" || h["cwd"] == "" {
		t.Errorf("header %v", h)
	}
	if id := h["id"].(string); id[14] != '7' {
		t.Errorf("session id %s is not a UUIDv7", id)
	}
	for _, e := range s.Entries() {
		if !regexp.MustCompile(`^[0-9a-f]{8}$`).MatchString(e.ID) {
			t.Errorf("entry id %q", e.ID)
		}
	}
	s.Close()
}

func TestInMemoryWritesNothing(t *testing.T) {
	s := InMemory(t.TempDir())
	s.AppendMessage(user("a"))
	s.AppendMessage(assistant("b"))
	if s.Path() != "" || len(s.Context().Messages) != 2 {
		t.Fatal("in-memory session")
	}
}

func TestTornLastLine(t *testing.T) {
	dir := t.TempDir()
	s := New(t.TempDir(), dir, Options{})
	s.AppendMessage(user("q"))
	s.AppendMessage(assistant("a"))
	s.Close()
	f, _ := os.OpenFile(s.Path(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"message","id":"deadbeef","parentId":`)
	f.Close()
	s2, err := Open(s.Path(), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s2.Warnings) != 1 || !strings.Contains(s2.Warnings[0], "torn last line") || !strings.Contains(s2.Warnings[0], ":4:") {
		t.Fatalf("warnings %q", s2.Warnings)
	}
	if got := texts(s2.Context().Messages); strings.Join(got, "|") != "user:q|assistant:a" {
		t.Fatalf("context %v", got)
	}
	s2.AppendMessage(user("after the crash"))
	s2.Close()
	lines := readLines(t, s.Path())
	if len(lines) != 5 || !strings.HasPrefix(lines[3], `{"type":"message","id":"deadbeef"`) {
		t.Fatalf("the torn line must stay its own line: %q", lines)
	}
	s3, err := Open(s.Path(), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(s3.Context().Messages); strings.Join(got, "|") != "user:q|assistant:a|user:after the crash" {
		t.Fatalf("after reopen %v", got)
	}
}

func TestNotASession(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(p, []byte(`{"type":"message"}`+"\n"), 0o644)
	if _, err := Open(p, OpenOptions{}); err == nil || err.Error() != "Session file is not a valid pi session: "+p {
		t.Fatalf("err %v", err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != `{"type":"message"}`+"\n" {
		t.Fatal("a foreign file was changed")
	}
	// An empty file gets a header, as pi does.
	e := filepath.Join(t.TempDir(), "e.jsonl")
	os.WriteFile(e, nil, 0o644)
	s, err := Open(e, OpenOptions{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if l := readLines(t, e); len(l) != 1 || !strings.Contains(l[0], `"cwd":"/w"`) {
		t.Fatalf("empty file: %q", l)
	}
	s.AppendMessage(user("x"))
	if l := readLines(t, e); len(l) != 2 {
		t.Fatalf("append to a reset file: %q", l)
	}
}

func TestMigrateV1(t *testing.T) {
	p := filepath.Join(t.TempDir(), "old.jsonl")
	v1 := `{"type":"session","id":"abc","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"old question","timestamp":1}}
{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"old answer"}],"timestamp":2}}
{"type":"message","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"hookMessage","customType":"x","content":"hook text","display":true,"timestamp":3}}
{"type":"compaction","timestamp":"2025-01-01T00:00:04.000Z","summary":"S","firstKeptEntryIndex":2,"tokensBefore":10}
{"type":"message","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"user","content":"new","timestamp":5}}
`
	os.WriteFile(p, []byte(v1), 0o644)
	// Listing and forking read an old file without rewriting it.
	if in, err := ReadInfo(p); err != nil || in.Messages != 4 {
		t.Fatalf("ReadInfo of a v1 file: %v %+v", err, in)
	}
	f, err := Fork(p, "/w", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != v1 {
		t.Fatal("listing or forking rewrote the file")
	}
	if fl := readLines(t, f.Path()); !regexp.MustCompile(`"id":"[0-9a-f]{8}","parentId":null\}$`).MatchString(fl[1]) {
		t.Errorf("the fork of a v1 file has migrated entries: %s", fl[1])
	}
	f.Close()
	s, err := Open(p, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, p)
	if !strings.HasPrefix(lines[0], `{"type":"session","id":"abc","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w","version":3}`) {
		t.Errorf("header %s", lines[0])
	}
	es := s.Entries()
	if es[0].ParentID != "" || es[1].ParentID != es[0].ID || es[3].FirstKeptEntryID != es[1].ID {
		t.Errorf("tree %+v", es)
	}
	if !strings.Contains(lines[3], `"role":"custom"`) || strings.Contains(lines[4], "firstKeptEntryIndex") {
		t.Errorf("migrated lines %q", lines)
	}
	if !regexp.MustCompile(`^\{"type":"message","timestamp":"[^"]+","message":\{.*\},"id":"[0-9a-f]{8}","parentId":null\}$`).MatchString(lines[1]) {
		t.Errorf("new keys go last as in JavaScript: %s", lines[1])
	}
	got := texts(s.Context().Messages)
	want := []string{"user:" + CompactionSummaryPrefix + "S" + CompactionSummarySuffix, "user:old answer", "user:hook text", "user:new"}
	got[1] = strings.Replace(got[1], "assistant:", "user:", 1)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("context\n got %q\nwant %q", got, want)
	}
}

func TestContextAppMessages(t *testing.T) {
	s := InMemory("/w")
	s.AppendMessage(user("q"))
	one := 1
	s.AppendBashExecution(BashExecution{Command: "false", Output: "", ExitCode: &one})
	s.AppendBashExecution(BashExecution{Command: "yes", Output: "y", Cancelled: true, Truncated: true, FullOutputPath: "/tmp/o"})
	s.AppendBashExecution(BashExecution{Command: "secret", Output: "s", ExcludeFromContext: true})
	s.AppendCustomMessage("ext", "custom text", true, nil)
	s.AppendCustom("state", map[string]int{"n": 1})
	s.AppendMessage(assistant("a"))
	got := texts(s.Context().Messages)
	want := []string{
		"user:q",
		"user:Ran `false`\n(no output)\n\nCommand exited with code 1",
		"user:Ran `yes`\n```\ny\n```\n\n(command cancelled)\n\n[Output truncated. Full output: /tmp/o]",
		"user:custom text",
		"assistant:a",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("context\n got %q\nwant %q", got, want)
	}
}

func TestCompactionAndBranches(t *testing.T) {
	s := InMemory("/w")
	s.AppendThinkingLevelChange("high")
	s.AppendMessage(user("1"))
	a1, _ := s.AppendMessage(assistant("1a"))
	u2, _ := s.AppendMessage(user("2"))
	s.AppendMessage(assistant("2a"))
	s.AppendCompaction(Compaction{Summary: "sum", FirstKeptEntryID: u2, TokensBefore: 100, Details: map[string][]string{"readFiles": {}, "modifiedFiles": {}}})
	s.AppendMessage(user("3"))
	c := s.Context()
	got := texts(c.Messages)
	want := []string{"user:" + CompactionSummaryPrefix + "sum" + CompactionSummarySuffix, "user:2", "assistant:2a", "user:3"}
	if strings.Join(got, "|") != strings.Join(want, "|") || c.ThinkingLevel != "high" || c.Model.ModelID != "m" {
		t.Fatalf("compacted context %q %+v", got, c)
	}
	// Branch back to a1 with a summary of what was left.
	oldLeaf := s.Leaf()
	bs, err := s.BranchWithSummary(a1, BranchSummary{Summary: "went elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	if e := s.Entry(bs); e.FromID != oldLeaf || e.ParentID != a1 {
		t.Errorf("branch summary fromId %s parent %s", e.FromID, e.ParentID)
	}
	if b, _ := s.Entry(bs).MarshalJSON(); !regexp.MustCompile(`^\{"type":"branch_summary","id":"[0-9a-f]{8}","parentId":"` + a1 + `","timestamp":"[^"]+","fromId":"` + oldLeaf + `","summary":"went elsewhere"\}$`).Match(b) {
		t.Errorf("branch summary line %s", b)
	}
	s.AppendMessage(user("other"))
	got = texts(s.Context().Messages)
	want = []string{"user:1", "assistant:1a", "user:" + BranchSummaryPrefix + "went elsewhere" + BranchSummarySuffix, "user:other"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("branch context %q", got)
	}
	if kids := s.Children(a1); len(kids) != 2 {
		t.Errorf("a1 has %d children, want 2", len(kids))
	}
	if err := s.SetLeaf("nope"); err == nil {
		t.Error("SetLeaf of an unknown id")
	}
	s.ResetLeaf()
	if len(s.Context().Messages) != 0 {
		t.Error("reset leaf: empty context")
	}
}

func TestBranchedSession(t *testing.T) {
	dir := t.TempDir()
	s := New(t.TempDir(), dir, Options{})
	u1, _ := s.AppendMessage(user("1"))
	s.AppendLabel(u1, "start")
	a1, _ := s.AppendMessage(assistant("1a"))
	s.AppendMessage(user("2"))
	s.AppendMessage(assistant("2a"))
	old := s.Path()
	nf, err := s.Branched(a1)
	if err != nil {
		t.Fatal(err)
	}
	if nf == old || s.Header().ParentSession != old {
		t.Fatalf("new file %s parent %s", nf, s.Header().ParentSession)
	}
	lines := readLines(t, nf)
	if len(lines) != 4 {
		t.Fatalf("branched file %q", lines)
	}
	var e2 Entry
	json.Unmarshal([]byte(lines[2]), &e2)
	if e2.ParentID != u1 {
		t.Errorf("the path is re-chained around the label: parent %s", e2.ParentID)
	}
	if !strings.Contains(lines[3], `"targetId":"`+u1+`","label":"start"`) || s.Label(u1) != "start" {
		t.Errorf("label %s", lines[3])
	}
	s.Close()
}

func TestListResolveRecentFork(t *testing.T) {
	agent, cwd, other := t.TempDir(), t.TempDir(), t.TempDir()
	l := Locate(agent, cwd, "", "")
	if want := filepath.Join(agent, "sessions", "--"+strings.ReplaceAll(strings.TrimPrefix(cwd, "/"), "/", "-")+"--"); l.Dir != want || l.Explicit {
		t.Fatalf("default dir %s, want %s", l.Dir, want)
	}
	mk := func(l Location, cwd, q string, at time.Time) *Session {
		s := New(cwd, l.Dir, Options{})
		s.now = func() time.Time { return at }
		s.AppendMessage(user(q))
		m := assistant("a")
		m.Timestamp = at.UnixMilli()
		s.AppendMessage(m)
		s.Close()
		os.Chtimes(s.Path(), at, at)
		return s
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s1 := mk(l, cwd, "first", t0)
	s2 := mk(l, cwd, "second", t0.Add(time.Hour))
	s2.AppendSessionInfo("named")
	lo := Locate(agent, other, "", "")
	s3 := mk(lo, other, "elsewhere", t0.Add(2*time.Hour))
	infos, _ := List(l, false)
	if len(infos) != 2 || infos[0].ID != s2.ID() || infos[0].Name != "named" || infos[1].FirstMessage != "first" || infos[1].Messages != 2 {
		t.Fatalf("list %+v", infos)
	}
	all, _ := List(l, true)
	if len(all) != 3 || all[0].ID != s3.ID() {
		t.Fatalf("list --all %d", len(all))
	}
	if r := Recent(l); r != s2.Path() {
		t.Errorf("recent %s, want %s", r, s2.Path())
	}
	if p, global, err := Resolve(l, s1.ID()[:30]); err != nil || p != s1.Path() || global {
		t.Errorf("resolve prefix: %s %v %v", p, global, err)
	}
	if p, global, err := Resolve(l, s3.ID()); err != nil || p != s3.Path() || !global {
		t.Errorf("resolve other cwd: %s %v %v", p, global, err)
	}
	if _, _, err := Resolve(l, "0"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if _, _, err := Resolve(l, "zzz"); err == nil || err.Error() != "No session found matching 'zzz'" {
		t.Errorf("unknown: %v", err)
	}
	// An explicit directory holds every cwd's files directly and filters by header cwd.
	ex := t.TempDir()
	le := Locate(agent, cwd, ex, "")
	mk(le, cwd, "mine", t0)
	mk(Locate(agent, other, ex, ""), other, "theirs", t0.Add(time.Minute))
	if in, _ := List(le, false); len(in) != 1 || in[0].FirstMessage != "mine" {
		t.Errorf("explicit dir list %+v", in)
	}
	if r := Recent(le); !strings.HasPrefix(r, ex+"/") {
		t.Errorf("recent in explicit dir %s", r)
	}
	if in, _ := List(le, true); len(in) != 2 {
		t.Errorf("explicit dir --all %d", len(in))
	}
	// Fork copies every entry into a new file with parentSession.
	f, err := Fork(s1.Path(), other, lo.Dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, f.Path())
	orig := readLines(t, s1.Path())
	if len(lines) != len(orig) || !strings.Contains(lines[0], `"parentSession":"`+s1.Path()+`"`) || !strings.Contains(lines[0], `"cwd":"`+other+`"`) || lines[1] != orig[1] {
		t.Errorf("fork %q", lines)
	}
	f.AppendMessage(user("continued"))
	f.Close()
	if n := len(readLines(t, f.Path())); n != len(orig)+1 {
		t.Errorf("fork append: %d lines", n)
	}
}

func TestLineSeparatorsAsJavaScript(t *testing.T) {
	b, _ := marshal("a\u2028b<&>\\u2028")
	if string(b) != "\"a\u2028b<&>\\\\u2028\"" {
		t.Errorf("got %s", b)
	}
}

func TestSessionName(t *testing.T) {
	s := InMemory("/w")
	s.AppendSessionInfo("a\r\nb ")
	if s.Name() != "a b" {
		t.Errorf("%q", s.Name())
	}
	s.AppendSessionInfo("")
	if s.Name() != "" {
		t.Errorf("cleared: %q", s.Name())
	}
}

func Example() {
	s := InMemory("/work")
	s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("hi")}})
	s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("hello")}, StopReason: llm.StopStop})
	for _, m := range s.Context().Messages {
		fmt.Println(m.Role, m.Text())
	}
	// Output:
	// user hi
	// assistant hello
}

func TestParentCycle(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.jsonl")
	os.WriteFile(p, []byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}
{"type":"message","id":"a","parentId":"b","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"x","timestamp":1}}
{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"y","timestamp":1}}
`), 0o644)
	s, err := Open(p, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Branch("")); n > 3 {
		t.Errorf("a parent cycle gives a branch of %d entries", n)
	}
	s.Context()
}

// TestNameKept: the name kept as entries are added is the last session_info entry's, as a
// walk back over the entries finds it, for sessions appended to in random order (names set,
// cleared, none at all) and the same sessions read back from their files.
func TestNameKept(t *testing.T) {
	walk := func(s *Session) string {
		es := s.Entries()
		for i := len(es) - 1; i >= 0; i-- {
			if es[i].Type == TypeSessionInfo {
				return trimSpace(es[i].Name)
			}
		}
		return ""
	}
	r := rand.New(rand.NewSource(5))
	dir := t.TempDir()
	for round := range 200 {
		s := New("/w", dir, Options{})
		for range r.Intn(30) {
			switch r.Intn(4) {
			case 0:
				s.AppendSessionInfo([]string{"", "a", " b c ", "d\ne"}[r.Intn(4)])
			case 1:
				s.AppendModelChange("p", "m")
			default:
				s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("q")}, Timestamp: 1})
				s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("a")}, StopReason: llm.StopStop, Timestamp: 1})
			}
			if got, want := s.Name(), walk(s); got != want {
				t.Fatalf("round %d: Name %q, the entries' %q", round, got, want)
			}
		}
		if s.Path() == "" {
			continue
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		back, err := Open(s.Path(), OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := back.Name(), walk(back); got != want {
			t.Fatalf("round %d, read back: Name %q, the entries' %q", round, got, want)
		}
		if len(back.Entries()) == len(s.Entries()) && back.Name() != s.Name() {
			t.Fatalf("round %d, read back: Name %q, written %q", round, back.Name(), s.Name())
		}
	}
}

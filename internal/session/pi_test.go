package session

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// chatServer is a loopback OpenAI-compatible server streaming one text reply per request;
// it records the request bodies.
type chatServer struct {
	URL    string
	mu     sync.Mutex
	bodies []map[string]any
	reply  string
	// toolFirst makes the first reply a call of the ls tool (then text replies).
	toolFirst bool
}

func newChatServer(t *testing.T, reply string) *chatServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cs := &chatServer{URL: "http://" + ln.Addr().String() + "/v1", reply: reply}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		cs.mu.Lock()
		cs.bodies = append(cs.bodies, body)
		n := len(cs.bodies)
		cs.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(v string) { fmt.Fprintf(w, "data: %s\n\n", v) }
		if cs.toolFirst && n == 1 {
			chunk(`{"id":"resp-0","choices":[{"index":0,"delta":{"role":"assistant","content":"Listing.","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ls","arguments":"{}"}}]},"finish_reason":null}]}`)
			chunk(`{"id":"resp-0","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`)
			chunk(`[DONE]`)
			return
		}
		text, _ := json.Marshal(cs.reply)
		chunk(`{"id":"resp-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":` + string(text) + `},"finish_reason":null}]}`)
		chunk(`{"id":"resp-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`)
		chunk(`[DONE]`)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return cs
}

// piEnv is an isolated agent dir (models.json pointing at the server) and HOME for pi.
func piEnv(t *testing.T, cs *chatServer) (agentDir string, env []string) {
	t.Helper()
	home := t.TempDir()
	agentDir = filepath.Join(home, ".pi", "agent")
	os.MkdirAll(agentDir, 0o755)
	models := `{"providers":{"local":{"baseUrl":"` + cs.URL + `","api":"openai-completions","apiKey":"k","models":[{"id":"m"}]}}}`
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	env = append(os.Environ(), "HOME="+home, "PI_CODING_AGENT_DIR="+agentDir, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "NO_COLOR=1")
	return agentDir, env
}

func runPi(t *testing.T, pi pitest.Pi, env []string, cwd string, args ...string) string {
	t.Helper()
	cmd := pi.Command(append([]string{"--provider", "local", "--model", "m"}, args...)...)
	cmd.Env = env
	cmd.Dir = cwd
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pi %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestPiWritesPigoReads: the real pi writes a session; pigo loads it, builds its context and
// lists it, and appending keeps every byte pi wrote.
func TestPiWritesPigoReads(t *testing.T) {
	pi := pitest.Find(t)
	t.Parallel()
	cs := newChatServer(t, "Hello from the model.")
	_, env := piEnv(t, cs)
	dir, cwd := t.TempDir(), t.TempDir()
	runPi(t, pi, env, cwd, "-p", "hi", "--session-dir", dir)
	files := jsonlFiles(dir)
	if len(files) != 1 {
		t.Fatalf("pi wrote %d session files, want 1", len(files))
	}
	before, _ := os.ReadFile(files[0])
	s, err := Open(files[0], OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Fatalf("warnings: %v", s.Warnings)
	}
	if base := filepath.Base(files[0]); base != FileName(s.Header().Timestamp, s.ID()) {
		t.Errorf("pi's file name %s, pigo would name it %s", base, FileName(s.Header().Timestamp, s.ID()))
	}
	var types []string
	for _, e := range s.Entries() {
		types = append(types, e.Type)
	}
	if got := strings.Join(types, ","); got != "model_change,thinking_level_change,message,message" {
		t.Errorf("entry types %s", got)
	}
	c := s.Context()
	if len(c.Messages) != 2 || c.Messages[0].Text() != "hi" || c.Messages[1].Text() != "Hello from the model." {
		t.Fatalf("context %+v", c.Messages)
	}
	if c.Model == nil || *c.Model != (ModelRef{"local", "m"}) || c.ThinkingLevel != "off" {
		t.Errorf("context model %+v level %q", c.Model, c.ThinkingLevel)
	}
	// Re-encoding every entry pigo decoded gives pi's bytes. (Message entries are left as
	// read: a message's encoding is llm.Message's, whose field order differs from pi's.)
	var re strings.Builder
	h := s.Header()
	h.raw = nil
	hb, _ := h.MarshalJSON()
	re.Write(hb)
	re.WriteByte('\n')
	for _, e := range s.Entries() {
		c := *e
		if c.Type != TypeMessage {
			c.setRaw(nil)
		}
		b, err := c.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		re.Write(b)
		re.WriteByte('\n')
	}
	if re.String() != string(before) {
		t.Errorf("pigo's encoding differs from pi's:\npi:   %s\npigo: %s", before, re.String())
	}
	if _, err := s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("more")}, Timestamp: 1}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	after, _ := os.ReadFile(files[0])
	if !strings.HasPrefix(string(after), string(before)) {
		t.Fatal("appending changed what pi wrote")
	}
	l := Locate(t.TempDir(), cwd, dir, "")
	infos, err := List(l, false)
	if err != nil || len(infos) != 1 || infos[0].FirstMessage != "hi" || infos[0].Messages != 3 {
		t.Fatalf("list: %v %+v", err, infos)
	}
}

// TestPigoWritesPiResumes: pigo writes a session; the real pi resumes it, sends its messages
// to the model and appends to it.
func TestPigoWritesPiResumes(t *testing.T) {
	pi := pitest.Find(t)
	t.Parallel()
	cs := newChatServer(t, "Second answer.")
	_, env := piEnv(t, cs)
	dir, cwd := t.TempDir(), t.TempDir()
	s := New(cwd, dir, Options{})
	s.AppendModelChange("local", "m")
	s.AppendThinkingLevelChange("off")
	s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("first question")}, Timestamp: 1764573622390})
	zero := 0
	s.AppendBashExecution(BashExecution{Command: "echo hi", Output: "hi", ExitCode: &zero, Timestamp: 1764573622391})
	s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.TextBlock("first answer")}, API: "openai-completions", Provider: "local", Model: "m",
		Usage: &llm.Usage{Input: 1, Output: 1, TotalTokens: 2}, StopReason: llm.StopStop, Timestamp: 1764573622392})
	s.AppendSessionInfo("my session")
	s.Close()
	before, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	runPi(t, pi, env, cwd, "--session", s.Path(), "-p", "again")
	after, _ := os.ReadFile(s.Path())
	if !strings.HasPrefix(string(after), string(before)) {
		t.Fatalf("pi rewrote pigo's file:\nbefore: %s\nafter:  %s", before, after)
	}
	msgs := cs.bodies[0]["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if got := strings.Join(roles, ","); got != "system,user,user,assistant,user" {
		t.Errorf("pi sent roles %s", got)
	}
	bash, _ := json.Marshal(msgs[2])
	if !strings.Contains(string(bash), "Ran `echo hi`\\n```\\nhi\\n```") {
		t.Errorf("pi's bash message %s", bash)
	}
	s2, err := Open(s.Path(), OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := s2.Context()
	if n := len(c.Messages); n != 5 || c.Messages[4].Text() != "Second answer." {
		t.Fatalf("after pi: %d messages", n)
	}
	if s2.Name() != "my session" {
		t.Errorf("name %q", s2.Name())
	}
}

// sentMessages is a request's messages after the system prompt, reduced to role and text, as
// pi's openai-completions client sends them.
func sentMessages(body map[string]any) []string {
	var out []string
	for _, m := range body["messages"].([]any)[1:] {
		mm := m.(map[string]any)
		text := ""
		switch c := mm["content"].(type) {
		case string:
			text = c
		case []any:
			for _, b := range c {
				if t, ok := b.(map[string]any)["text"].(string); ok {
					text += t
				}
			}
		}
		role := mm["role"].(string)
		if role == "tool" {
			role = "toolResult"
		}
		if calls, ok := mm["tool_calls"].([]any); ok {
			for _, c := range calls {
				text += "|call:" + c.(map[string]any)["function"].(map[string]any)["name"].(string)
			}
		}
		out = append(out, role+":"+text)
	}
	return out
}

func contextMessages(ms []llm.Message) []string {
	var out []string
	for _, m := range ms {
		text := m.Text()
		for _, c := range m.ToolCalls() {
			text += "|call:" + c.Name
		}
		out = append(out, m.Role+":"+text)
	}
	return out
}

// TestContextAsPi: pi's own context of a session (what it sends on resume) equals pigo's
// Context() of the same file: a tool turn written by pi, then compaction, branches with a
// summary, bash executions and custom messages written by pigo.
func TestContextAsPi(t *testing.T) {
	pi := pitest.Find(t)
	t.Parallel()
	cs := newChatServer(t, "Answer.")
	cs.toolFirst = true
	_, env := piEnv(t, cs)
	dir, cwd := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("x"), 0o644)
	runPi(t, pi, env, cwd, "--tools", "ls", "-p", "list files", "--session-dir", dir)
	files := jsonlFiles(dir)
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	s, err := Open(files[0], OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// pi's second request carried its context after the tool turn.
	want := sentMessages(cs.bodies[1])
	got := contextMessages(s.Context().Messages)
	if strings.Join(got[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Fatalf("context of pi's file\n got %q\npi sent %q", got, want)
	}
	// pigo continues the file: a branch with a summary, bash runs, a custom message and a
	// compaction that keeps the last user message.
	es := s.Entries()
	firstUser := ""
	for _, e := range es {
		if e.Type == TypeMessage && e.Message.Role == llm.RoleUser {
			firstUser = e.ID
		}
	}
	bs, _ := s.BranchWithSummary(firstUser, BranchSummary{Summary: "We tried listing twice."})
	two := 2
	s.AppendBashExecution(BashExecution{Command: "false", ExitCode: &two, Timestamp: 1})
	s.AppendBashExecution(BashExecution{Command: "secret", Output: "hidden", ExcludeFromContext: true, Timestamp: 2})
	s.AppendCustomMessage("note", "a note for the model", true, nil)
	s.AppendMessage(assistant("after the branch"))
	s.AppendMessage(user("keep me"))
	s.AppendMessage(assistant("kept answer"))
	s.AppendCompaction(Compaction{Summary: "## Goal\nList files.", FirstKeptEntryID: bs, TokensBefore: 1234})
	s.AppendMessage(user("after the compaction"))
	s.AppendMessage(assistant("noted"))
	s.Close()
	runPi(t, pi, env, cwd, "--tools", "ls", "--session", files[0], "-p", "again")
	last := cs.bodies[len(cs.bodies)-1]
	want = sentMessages(last)
	s2, err := Open(files[0], OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// pigo's view just before pi appended "again": the branch ending at the compaction.
	got = contextMessages(s2.Context().Messages)
	got = got[:len(want)]
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pigo's context differs from pi's\n got %q\npi sent %q", got, want)
	}
	if len(want) != 10 {
		t.Errorf("pi sent %d messages, want 10 (summary, branch summary, bash, custom, 5 kept or later, again): %q", len(want), want)
	}
	if !strings.HasPrefix(want[0], "user:"+CompactionSummaryPrefix+"## Goal") {
		t.Errorf("pi's first message is not the compaction summary: %q", want[0])
	}
}

// TestEntryEncodingAsPi has pi's own SessionManager write one entry of every type; pigo
// decodes each line and encodes it again from its fields, and must give pi's bytes (message
// entries too: "<&>" raw, as JSON.stringify writes them, where encoding/json wrote \u003c).
func TestEntryEncodingAsPi(t *testing.T) {
	pi := pitest.Find(t)
	t.Parallel()
	dir := t.TempDir()
	sm := filepath.Join(filepath.Dir(pi.CLI), "core", "session-manager.js")
	script := `
import { SessionManager } from "file://` + sm + `";
const s = SessionManager.create(process.argv[2], process.argv[2]);
const u = s.appendMessage({ role: "user", content: [{ type: "text", text: "q <&> \u2028" }], timestamp: 1 });
s.appendMessage({ role: "assistant", content: [{ type: "text", text: "a" }], api: "x", provider: "p", model: "m", stopReason: "stop", timestamp: 2 });
s.appendModelChange("p", "m2");
s.appendThinkingLevelChange("high");
s.appendCompaction("sum", u, 1234, { readFiles: ["a"], modifiedFiles: [] }, undefined, { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
s.appendCompaction("hooked", u, 5, undefined, true);
s.appendCustomEntry("state", { n: 1 });
s.appendCustomEntry("empty");
s.appendCustomMessageEntry("note", "text", true);
s.appendCustomMessageEntry("note2", [{ type: "text", text: "t" }], false, { k: 1 });
s.appendLabelChange(u, "start");
s.appendLabelChange(u, undefined);
s.appendSessionInfo("name\nhere");
s.branchWithSummary(u, "left", { x: 1 }, true);
s.branchWithSummary(null, "from root");
console.log(s.getSessionFile());
`
	sp := filepath.Join(dir, "w.mjs")
	os.WriteFile(sp, []byte(script), 0o644)
	out, err := exec.Command(pi.Node, sp, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	file := strings.TrimSpace(string(out))
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	seen := map[string]bool{}
	for _, l := range lines[1:] {
		e := new(Entry)
		if err := e.UnmarshalJSON([]byte(l)); err != nil {
			t.Fatal(err)
		}
		seen[e.Type] = true
		c := *e
		c.setRaw(nil)
		b, err := c.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != l {
			t.Errorf("%s:\n pi:   %s\n pigo: %s", e.Type, l, b)
		}
	}
	if len(seen) != 9 {
		t.Errorf("entry types written: %v", seen)
	}
}

// TestBuildContextAsPi builds the context of tricky session files with pi's own
// buildSessionContext + convertToLlm and with pigo's Context(), and compares role, content
// and timestamp of every message.
func TestBuildContextAsPi(t *testing.T) {
	pi := pitest.Find(t)
	t.Parallel()
	h := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`
	m := func(id, parent, msg string) string {
		p := "null"
		if parent != "" {
			p = `"` + parent + `"`
		}
		return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-01-01T00:00:01.000Z","message":` + msg + `}`
	}
	u := func(text string) string { return `{"role":"user","content":"` + text + `","timestamp":5}` }
	a := func(text string) string {
		return `{"role":"assistant","content":[{"type":"text","text":"` + text + `"},{"type":"toolCall","id":"c","name":"ls","arguments":{}}],"stopReason":"toolUse","timestamp":6}`
	}
	files := map[string][]string{
		"two-compactions": {h,
			m("a1", "", u("one")), m("a2", "a1", a("r1")),
			`{"type":"compaction","id":"c1","parentId":"a2","timestamp":"2026-01-01T00:00:02.000Z","summary":"S1","firstKeptEntryId":"a2","tokensBefore":1}`,
			m("a3", "c1", u("two")),
			`{"type":"compaction","id":"c2","parentId":"a3","timestamp":"2026-01-01T00:00:03.000Z","summary":"S2","firstKeptEntryId":"a3","tokensBefore":2}`,
			m("a4", "c2", u("three"))},
		"kept-id-off-path": {h,
			m("a1", "", u("one")),
			`{"type":"compaction","id":"c1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","summary":"S","firstKeptEntryId":"zzz","tokensBefore":1}`,
			m("a2", "c1", u("after"))},
		"branches-and-app-messages": {h,
			m("a1", "", u("root")), m("b1", "a1", u("abandoned")),
			`{"type":"branch_summary","id":"s1","parentId":"a1","timestamp":"2026-01-01T00:00:04.000Z","fromId":"b1","summary":""}`,
			`{"type":"branch_summary","id":"s2","parentId":"s1","timestamp":"2026-01-01T00:00:04.500Z","fromId":"b1","summary":"went back"}`,
			`{"type":"custom_message","customType":"n","content":null,"display":true,"id":"cm","parentId":"s2","timestamp":"2026-01-01T00:00:05.000Z"}`,
			`{"type":"custom","customType":"st","data":{"x":1},"id":"cu","parentId":"cm","timestamp":"2026-01-01T00:00:05.000Z"}`,
			`{"type":"label","id":"lb","parentId":"cu","timestamp":"2026-01-01T00:00:05.000Z","targetId":"a1","label":"L"}`,
			m("bx", "lb", `{"role":"bashExecution","command":"ls","output":"","exitCode":null,"cancelled":false,"truncated":true,"timestamp":7}`),
			m("by", "bx", `{"role":"bashExecution","command":"x","output":"o","exitCode":1,"cancelled":true,"truncated":true,"fullOutputPath":"/f","timestamp":8}`),
			m("cz", "by", `{"role":"custom","customType":"k","content":[{"type":"text","text":"ct"}],"display":false,"timestamp":9}`),
			m("nz", "cz", `{"role":"toolResult","toolCallId":"c","toolName":"ls","content":null,"isError":false,"timestamp":10}`),
			`{"type":"session_info","id":"si","parentId":"nz","timestamp":"2026-01-01T00:00:06.000Z","name":"n"}`},
		"torn-tail": {h, m("a1", "", u("kept")), `{"type":"message","id":"a2","parentId":"a1","times`},
		// Version 1 (no ids): pi and pigo each migrate their own copy.
		"v1": {`{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}`,
			`{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"q","timestamp":1}}`,
			`{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"hookMessage","customType":"h","content":"hook","display":true,"timestamp":2}}`,
			`{"type":"message","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"a"}],"timestamp":3}}`,
			`{"type":"compaction","timestamp":"2025-01-01T00:00:04.000Z","summary":"old summary","firstKeptEntryIndex":3,"tokensBefore":9}`,
			`{"type":"message","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"user","content":"new","timestamp":5}}`},
	}
	dir := t.TempDir()
	sm := filepath.Join(filepath.Dir(pi.CLI), "core", "session-manager.js")
	msgs := filepath.Join(filepath.Dir(pi.CLI), "core", "messages.js")
	script := `
import { SessionManager } from "file://` + sm + `";
import { convertToLlm } from "file://` + msgs + `";
const out = {};
for (const f of process.argv.slice(2)) {
	const s = SessionManager.open(f);
	out[f] = convertToLlm(s.buildSessionContext().messages).map(m => ({ role: m.role, content: m.content, timestamp: m.timestamp }));
}
console.log(JSON.stringify(out));
`
	sp := filepath.Join(dir, "c.mjs")
	os.WriteFile(sp, []byte(script), 0o644)
	norm := func(v any) string {
		b, _ := json.Marshal(v)
		var x any
		json.Unmarshal(b, &x)
		b, _ = json.Marshal(x)
		return string(b)
	}
	// One node process reads every file (pi and pigo each migrate their own copy of v1).
	paths := map[string][2]string{}
	var piFiles []string
	for name, lines := range files {
		p := filepath.Join(dir, name+".jsonl")
		content := strings.Join(lines, "\n")
		if name != "torn-tail" {
			content += "\n"
		}
		os.WriteFile(p, []byte(content), 0o644)
		piFile := filepath.Join(dir, name+"-pi.jsonl")
		os.WriteFile(piFile, []byte(content), 0o644)
		paths[name] = [2]string{p, piFile}
		piFiles = append(piFiles, piFile)
	}
	out, err := exec.Command(pi.Node, append([]string{sp}, piFiles...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var all map[string]any
	if err := json.Unmarshal(out, &all); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for name, pp := range paths {
		p, want := pp[0], all[pp[1]]
		s, err := Open(p, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Through llm.Message's own encoding (a string content stays a string).
		var got []map[string]any
		for _, m := range s.Context().Messages {
			b, _ := json.Marshal(m)
			var x map[string]any
			json.Unmarshal(b, &x)
			got = append(got, map[string]any{"role": x["role"], "content": x["content"], "timestamp": x["timestamp"]})
		}
		if g, w := norm(got), norm(want); g != w {
			t.Errorf("%s:\n pi:   %s\n pigo: %s", name, w, g)
		}
	}
}

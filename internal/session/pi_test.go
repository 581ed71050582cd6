package session

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
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
		cs.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(v string) { fmt.Fprintf(w, "data: %s\n\n", v) }
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
	// Re-encoding every entry pigo decoded gives pi's bytes. (Messages keep the bytes they
	// were read with: the message encoding is llm.Message's, whose field order differs.)
	var re strings.Builder
	h := s.Header()
	h.raw = nil
	hb, _ := h.MarshalJSON()
	re.Write(hb)
	re.WriteByte('\n')
	for _, e := range s.Entries() {
		c := *e
		c.raw = nil
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

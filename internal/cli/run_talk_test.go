package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/talk"
)

type followQueue chan string

func (q followQueue) Steer(t string)    { q <- t }
func (q followQueue) FollowUp(t string) { q <- t }

// A pigo -p session joins the peer's group with /talk-group-join-last, its model sends the
// peer a message through talk-send, and the peer (its own handle on the same SQLite file)
// gets it in its loop's queue; every request carries Thread-Id: <session id>.
func TestRunTalkSendAndThreadID(t *testing.T) {
	home := t.TempDir()
	work := t.TempDir()
	agentDir := filepath.Join(home, ".pi", "agent")
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "talk-send", Args: `{"to":"peer-b","message":"hi from pigo"}`}}},
		llmtest.Turn{Text: "Sent."})
	models := map[string]any{"providers": map[string]any{"local": map[string]any{
		"baseUrl": srv.BaseURL(llmtest.OpenAICompletions), "api": llmtest.OpenAICompletions, "apiKey": "k", "models": []any{map[string]any{"id": "m"}}}}}
	b, _ := json.Marshal(models)
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := talk.OpenStore(filepath.Join(agentDir, "talk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	peer, err := talk.Start(talk.Options{Store: st, AgentID: "peer-b", Cwd: "/elsewhere", Name: "bob", Poll: 20 * time.Millisecond, InitialDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Stop()
	peer.GroupJoin("crew", "")
	q := make(followQueue, 10)
	peer.Attach(q)

	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH")}
	var out, errb bytes.Buffer
	c := &CLI{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	t.Chdir(work)
	code := c.Main([]string{"-p", "--model", "local/m", "/talk-group-join-last", "send it"})
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	if !strings.HasPrefix(out.String(), "Joined group crew (2 member(s)). You now see only co-members.\n") || !strings.HasSuffix(out.String(), "Sent.\n") {
		t.Fatalf("stdout:\n%s", out.String())
	}
	select {
	case text := <-q:
		if !strings.Contains(text, "\n\nhi from pigo\n\n_id ") {
			t.Fatalf("delivery: %q", text)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery")
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	id := reqs[0].Header.Get("Thread-Id")
	if id == "" || reqs[1].Header.Get("Thread-Id") != id {
		t.Fatalf("Thread-Id %q / %q", id, reqs[1].Header.Get("Thread-Id"))
	}
	if !strings.Contains(string(reqs[1].Body), `Sent to \"bob\"`) || !strings.Contains(string(reqs[1].Body), `]: delivered.`) {
		t.Fatalf("tool result: %s", reqs[1].Body)
	}
	if !strings.Contains(peer.List(""), `"status": "offline"`) {
		t.Fatalf("the pigo session is offline after the run:\n%s", peer.List(""))
	}
}

// session-name: the first prompt of an unnamed session is named by the sessionName model (its
// own provider here), and the name lands in the session file as a session_info entry.
func TestRunSessionName(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	agentDir := filepath.Join(home, ".pi", "agent")
	main, namer := llmtest.New(t), llmtest.New(t)
	main.Push(llmtest.Turn{Text: "Hello."})
	namer.Push(llmtest.Turn{Text: "Greeting  the\nagent"})
	prov := func(s *llmtest.Server, id string) map[string]any {
		return map[string]any{"baseUrl": s.BaseURL(llmtest.OpenAICompletions), "api": llmtest.OpenAICompletions, "apiKey": "k", "models": []any{map[string]any{"id": id}}}
	}
	b, _ := json.Marshal(map[string]any{"providers": map[string]any{"local": prov(main, "m"), "names": prov(namer, "n")}})
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(`{"sessionName": {"provider": "names", "model": "n", "maxLength": 12}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH")}
	var out, errb bytes.Buffer
	c := &CLI{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	t.Chdir(work)
	if code := c.Main([]string{"-p", "--model", "local/m", "say hello"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	if len(namer.Requests()) != 1 || !strings.Contains(string(namer.Requests()[0].Body), "不超过 12 个字符") || !strings.Contains(string(namer.Requests()[0].Body), "say hello") {
		t.Fatalf("namer requests: %d", len(namer.Requests()))
	}
	files, _ := filepath.Glob(filepath.Join(agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if !strings.Contains(string(data), `"type":"session_info"`) || !strings.Contains(string(data), `"name":"Greeting th…"`) {
		t.Fatalf("session file:\n%s", data)
	}
}

// openai-cost: a model of the provider that the agent dir's openai-cost.json registers (the
// extension loaded through settings.json's extensions, as the seed's package does not load it
// by default) reports its own usage.cost, which becomes the message's cost total with the
// breakdown zeroed.
func TestRunOpenAICost(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	agentDir := filepath.Join(home, ".pi", "agent")
	srv := llmtest.New(t)
	body := "data: {\"id\":\"r1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi.\"}}]}\n\n" +
		"data: {\"id\":\"r1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" +
		"data: {\"id\":\"r1\",\"choices\":[],\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":10,\"total_tokens\":1010,\"cost\":{\"total\":0.25}}}\n\n" +
		"data: [DONE]\n\n"
	srv.Push(llmtest.Turn{Raw: &llmtest.Raw{Code: 200, Header: map[string]string{"Content-Type": "text/event-stream"}, Body: body}})
	t.Setenv("OPENAI_COST_API_KEY", "k")
	b, _ := json.Marshal(map[string]any{"baseUrl": srv.BaseURL(llmtest.OpenAICompletions) + "/",
		"models": []any{map[string]any{"id": "c"}}})
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agentDir, "openai-cost.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	settings := `{"extensions": ["../../pi-extensions/src/openai-cost/index.ts"]}`
	if err := os.WriteFile(filepath.Join(agentDir, "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH")}
	var out, errb bytes.Buffer
	c := &CLI{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return env[k] }}
	t.Chdir(work)
	if code := c.Main([]string{"-p", "--mode", "json", "--no-session", "--model", "openai-cost/c", "hi"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	var end string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, `{"type":"message_end"`) && strings.Contains(l, `"role":"assistant"`) {
			end = l
		}
	}
	if !strings.Contains(end, `"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.25}`) {
		t.Fatalf("message_end: %s", end)
	}
}

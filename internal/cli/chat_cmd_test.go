package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// chatRun is a run over a temporary agent directory with a models.json of two custom models
// and a session file.
func chatRun(t *testing.T) *run { return chatRunAt(t, "http://127.0.0.1:1/v1") }

func chatRunAt(t *testing.T, baseURL string) *run {
	t.Helper()
	root := t.TempDir()
	agentDir, proj := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	for _, d := range []string{agentDir, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	models := `{"providers": {"local": {"baseUrl": "` + baseURL + `", "api": "openai-completions", "apiKey": "k",
  "models": [{"id": "small", "contextWindow": 1000}, {"id": "big", "contextWindow": 9000, "reasoning": false}]}}}`
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	approve := true
	cfg, err := config.Load(config.Options{AgentDir: agentDir, ProjectDir: proj, Approve: &approve, Home: root, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	m, err := cfg.ProviderModel("local/small", "")
	if err != nil {
		t.Fatal(err)
	}
	sess := session.New(proj, filepath.Join(root, "sessions"), session.Options{})
	t.Cleanup(func() { sess.Close() })
	return &run{cfg: cfg, model: m, thinking: "off", sess: sess, toolSess: &toolrun.Session{}, settings: agent.DefaultSettings()}
}

// /model lists models.json's models before the catalogue's, marks the current one, and
// switching records pi's model_change entry and changes the run's model.
func TestChatModelSwitch(t *testing.T) {
	r := chatRun(t)
	p, err := modelPicker(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Items) < 3 || p.Items[0].Label != "local/small ✓" || p.Items[1].Arg != "local/big" {
		t.Fatalf("picker items %+v", p.Items[:min(3, len(p.Items))])
	}
	var ag *agent.Agent
	newAgent := func() *agent.Agent { return agent.New(agent.Config{Model: r.model, Store: agent.SessionStore(r.sess)}) }
	res, err := switchModel(&CLI{}, r, "local/big", newAgent, &ag)
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "local/big" || res.ContextWindow != 9000 || r.model.ID != "big" || ag == nil {
		t.Fatalf("result %+v, run model %s", res, r.model.ID)
	}
	es := r.sess.Entries()
	last := es[len(es)-1]
	b, _ := json.Marshal(last)
	if last.Type != "model_change" || !strings.Contains(string(b), `"modelId":"big"`) {
		t.Fatalf("last entry %s", b)
	}
	if _, err := switchModel(&CLI{}, r, "local/nope", newAgent, &ag); err == nil {
		t.Fatal("an unknown model switched")
	}
}

// /compact on a session with nothing to summarise ends with pi's error in compaction_end.
func TestChatCompactTooSmall(t *testing.T) {
	st := &agent.MemStore{}
	ag := agent.New(agent.Config{Model: &llm.Model{ID: "m"}, Store: st})
	var evs []agent.Event
	err := manualCompact(context.Background(), ag, st, agent.DefaultSettings(), func(e agent.Event) { evs = append(evs, e) })
	if err == nil || len(evs) != 2 || evs[0].Type != agent.EventCompactionStart || evs[0].Reason != "manual" {
		t.Fatalf("err %v events %+v", err, evs)
	}
	if got := evs[1].ErrorMessage; got != "Compaction failed: Nothing to compact (session too small)" {
		t.Fatalf("compaction_end error %q", got)
	}
}

// conversation appends user/assistant pairs and returns the user messages' entry ids.
func conversation(t *testing.T, s *session.Session, prompts ...string) []string {
	t.Helper()
	var ids []string
	for _, p := range prompts {
		id, err := s.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{{Type: llm.TypeText, Text: p}}, Timestamp: 1})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if _, err := s.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.TypeText, Text: "re " + p}},
			Provider: "local", Model: "small", StopReason: llm.StopStop, Timestamp: 2}); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// /fork offers the user messages (the newest selected) and continues in a new file holding the
// path before the chosen one, whose parentSession is the old file; its text goes back to the
// editor. Forking from the first message starts an empty session.
func TestChatFork(t *testing.T) {
	r := chatRun(t)
	ids := conversation(t, r.sess, "first\nmore", "second")
	p := forkPicker(r.sess)
	if len(p.Items) != 2 || p.Items[0].Label != "first" || p.Items[1].Arg != ids[1] || p.Current != 1 {
		t.Fatalf("picker %+v", p)
	}
	old := r.sess.Path()
	text, err := forkSession(r, ids[1])
	if err != nil || text != "second" {
		t.Fatalf("fork: %q %v", text, err)
	}
	if r.sess.Path() == old || r.sess.Header().ParentSession != old {
		t.Fatalf("new file %s parent %q (old %s)", r.sess.Path(), r.sess.Header().ParentSession, old)
	}
	if n := len(r.sess.Entries()); n != 2 {
		t.Fatalf("the fork has %d entries, want the first exchange", n)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("the old file: %v", err)
	}
	first := r.sess.Entries()[0].ID
	if text, err = forkSession(r, first); err != nil || text != "first\nmore" || len(r.sess.Entries()) != 0 {
		t.Fatalf("fork from the first message: %q %v, %d entries", text, err, len(r.sess.Entries()))
	}
	if _, err := forkSession(r, "nope"); err == nil || err.Error() != "Invalid entry ID for forking" {
		t.Fatalf("bad id: %v", err)
	}
	if p := forkPicker(r.sess); len(p.Items) != 0 || p.Empty != "No messages to fork from" {
		t.Fatalf("empty picker %+v", p)
	}
}

// /resume lists this cwd's sessions newest first and continues the chosen file.
func TestChatResume(t *testing.T) {
	r := chatRun(t)
	conversation(t, r.sess, "current work")
	other := session.New(r.cfg.ProjectDir, r.sess.Dir(), session.Options{})
	conversation(t, other, "older\nwork", "again")
	if _, err := other.AppendModelChange("local", "big"); err != nil {
		t.Fatal(err)
	}
	otherPath := other.Path()
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	l := session.Location{Dir: r.sess.Dir(), Cwd: r.cfg.ProjectDir}
	p, err := resumePicker(l)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, it := range p.Items {
		labels = append(labels, it.Label)
	}
	if p.Title != "Resume Session (Current Folder)" || len(p.Items) != 2 || !strings.Contains(strings.Join(labels, "|"), "older · 4 messages") {
		t.Fatalf("picker %+v", p)
	}
	if err := resumeSession(r, l, otherPath); err != nil {
		t.Fatal(err)
	}
	if r.sess.Path() != otherPath || len(r.sess.Entries()) != 5 {
		t.Fatalf("resumed %s with %d entries", r.sess.Path(), len(r.sess.Entries()))
	}
	if note := restoreModel(&CLI{}, r); note != "" || r.model.ID != "big" || r.thinking != "off" {
		t.Fatalf("restored model %s thinking %s note %q", r.model.ID, r.thinking, note)
	}
	empty, err := resumePicker(session.Location{Dir: t.TempDir(), Cwd: r.cfg.ProjectDir})
	if err != nil || len(empty.Items) != 0 || empty.Empty != "No sessions found" {
		t.Fatalf("empty %+v %v", empty, err)
	}
}

// /tree shows the file's entries with branches indented and the leaf selected; choosing a
// user message moves the leaf to before it (its text for the editor), another entry moves
// the leaf onto it.
func TestChatTree(t *testing.T) {
	r := chatRun(t)
	ids := conversation(t, r.sess, "one", "two")
	if _, err := navigateTree(r.sess, ids[1]); err != nil { // back to before "two"
		t.Fatal(err)
	}
	conversation(t, r.sess, "three")
	p := treePicker(r.sess)
	var lines []string
	for _, it := range p.Items {
		lines = append(lines, it.Label)
	}
	want := "user: one|assistant: re one|  user: two|  assistant: re two|  user: three|  assistant: re three"
	if got := strings.Join(lines, "|"); got != want || p.Current != 5 {
		t.Fatalf("tree %q current %d\nwant %q", got, p.Current, want)
	}
	text, err := navigateTree(r.sess, p.Items[3].Arg) // "re two"
	if err != nil || text != "" || r.sess.Leaf() != p.Items[3].Arg {
		t.Fatalf("to an assistant entry: %q %v leaf %s", text, err, r.sess.Leaf())
	}
	if text, err = navigateTree(r.sess, ids[0]); err != nil || text != "one" || r.sess.Leaf() != "" {
		t.Fatalf("to the first prompt: %q %v leaf %q", text, err, r.sess.Leaf())
	}
	if _, err := navigateTree(r.sess, "nope"); err == nil || err.Error() != "Entry nope not found" {
		t.Fatalf("bad id: %v", err)
	}
	if p := treePicker(chatRun(t).sess); len(p.Items) != 0 || p.Empty != "No entries in session" {
		t.Fatalf("empty tree %+v", p)
	}
}

// /reload loads the configuration again: a context file written after the start is in the
// new system prompt, and pi's status is returned.
func TestChatReload(t *testing.T) {
	r := chatRun(t)
	root := filepath.Dir(r.cfg.ProjectDir)
	a, err := parse([]string{"--agent-dir", filepath.Join(root, "agent"), "-C", r.cfg.ProjectDir, "--approve"},
		append(append([]flag{}, globalFlags...), runFlags...))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": root}
	var stderr strings.Builder
	c := &CLI{Getenv: func(k string) string { return env[k] }, Stderr: &stderr}
	if strings.Contains(r.system, "reload-marker") {
		t.Fatal("marker before the file exists")
	}
	if err := os.WriteFile(filepath.Join(r.cfg.ProjectDir, "AGENTS.md"), []byte("reload-marker: be brief\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := c.reloadRun(r, a)
	if err != nil {
		t.Fatal(err)
	}
	if text != "Reloaded keybindings, extensions, skills, prompts, themes, and context files" {
		t.Fatalf("status %q", text)
	}
	if !strings.Contains(r.system, "reload-marker: be brief") {
		t.Fatalf("the system prompt has no new context file:\n%s", r.system)
	}
	if c.Stderr != &stderr || stderr.Len() != 0 {
		t.Fatalf("stderr not restored or written: %q", stderr.String())
	}
}

// /compact summarises the branch through the model (a loopback server), records the
// compaction in the session file and reports it in compaction_end with reason manual; a
// second /compact right after is pi's "Already compacted".
func TestChatCompact(t *testing.T) {
	srv := llmtest.New(t)
	r := chatRunAt(t, srv.BaseURL(llmtest.OpenAICompletions))
	conversation(t, r.sess, strings.Repeat("long prompt ", 200), strings.Repeat("more words ", 200), "last")
	p, err := providerFor(r.model.API)
	if err != nil {
		t.Fatal(err)
	}
	r.settings.Compaction.KeepRecentTokens = 10
	st := agent.SessionStore(r.sess)
	ag := agent.New(agent.Config{Provider: p, Model: r.model, Settings: r.settings, Store: st})
	srv.Push(llmtest.Turn{Text: "## Goal\nsummary of the work"}, llmtest.Turn{Text: "prefix summary"})
	var evs []agent.Event
	emit := func(e agent.Event) { evs = append(evs, e) }
	if err := manualCompact(context.Background(), ag, st, r.settings, emit); err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[1].Type != agent.EventCompactionEnd || evs[1].Reason != "manual" || evs[1].Compaction == nil {
		t.Fatalf("events %+v", evs)
	}
	if !strings.HasPrefix(evs[1].Compaction.Summary, "## Goal\nsummary of the work") || evs[1].Compaction.TokensBefore == 0 {
		t.Fatalf("compaction %+v", evs[1].Compaction)
	}
	es := r.sess.Entries()
	if last := es[len(es)-1]; last.Type != session.TypeCompaction {
		t.Fatalf("last entry %s", last.Type)
	}
	evs = nil
	if err := manualCompact(context.Background(), ag, st, r.settings, emit); err == nil || evs[1].ErrorMessage != "Compaction failed: Already compacted" {
		t.Fatalf("second compact: %v %+v", err, evs)
	}
}

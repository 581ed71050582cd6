package app

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/tools/vision"
)

// harness is an agent dir and a project in a temp dir, with a models.json whose "local"
// provider is a loopback model server. The tests read the configuration through package
// config (a test-only import: the package itself links no CUE).
type harness struct {
	t                 *testing.T
	root, agent, proj string
	srv               *llmtest.Server
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	root, _ := filepath.EvalSymlinks(t.TempDir())
	h := &harness{t: t, root: root, agent: filepath.Join(root, "agent"), proj: filepath.Join(root, "proj"), srv: llmtest.New(t)}
	h.write(filepath.Join(h.agent, "models.json"), `{"providers": {"local": {"baseUrl": "`+h.srv.BaseURL(llmtest.OpenAICompletions)+`",
  "api": "openai-completions", "apiKey": "k",
  "models": [{"id": "small", "contextWindow": 1000}, {"id": "big", "contextWindow": 9000, "reasoning": false},
    {"id": "eyes", "input": ["text", "image"]}]}}}`)
	h.write(filepath.Join(h.agent, "settings.json"), `{"retry": {"enabled": false}}`)
	if err := os.MkdirAll(h.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *harness) write(p, s string) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// testConfig is app.Config over package config, as the command line's.
type testConfig struct {
	h     *harness
	tools []string
	cfg   *config.Config
	saved [][]string
	mu    sync.Mutex
}

func (c *testConfig) load(model string) (*Setup, error) {
	yes := true
	cfg, err := config.Load(config.Options{AgentDir: c.h.agent, ProjectDir: c.h.proj, Approve: &yes, Home: c.h.root,
		Getenv: func(string) string { return "" }})
	if err != nil {
		return nil, err
	}
	res, err := cfg.Resolve(config.ResolveOptions{Model: model, Tools: c.tools, Headless: true})
	if err != nil {
		return nil, err
	}
	c.cfg = cfg
	st := &Setup{Cwd: c.h.proj, AgentDir: c.h.agent, Registry: res.Tools, Commands: res.Commands, Policy: sandbox.DefaultPolicy(),
		Environ: sandbox.HostEnviron(), SystemPrompt: "You are a test."}
	if res.Model != nil {
		m := res.Model.Model
		st.Model = &m
	}
	if pol, _, err := cfg.SandboxPolicy(); err == nil {
		st.Policy = pol
	}
	eff, err := cfg.Effective(config.Settings)
	if err != nil {
		return nil, err
	}
	st.Settings = eff.JSON()
	v, err := cfg.VisionModel()
	st.Vision = vision.Vision{Configured: v.Configured, Provider: v.Provider, ModelID: v.ID, Model: v.Model, Proxy: v.Proxy, Err: err}
	st.Agents = cfg.Roster()
	return st, nil
}

func (c *testConfig) Load(model string) (*Setup, error) { return c.load(model) }

func (c *testConfig) Model(ref, apiKey string) (*llm.Model, error) {
	mi, err := c.cfg.SessionModel(ref)
	if err != nil {
		return nil, err
	}
	if mi == nil || mi.Source == "defaults" {
		return nil, ErrUnknownModel
	}
	return c.cfg.ProviderModel(ref, apiKey)
}

func (c *testConfig) Sandbox() (sandbox.Policy, error) {
	p, _, err := c.cfg.SandboxPolicy()
	return p, err
}

func (c *testConfig) LSP() (*lsp.Config, error) {
	lc, _, err := c.cfg.LSPConfig()
	return lc, err
}

func (c *testConfig) Models() []string { return []string{"local/small", "local/big"} }

func (c *testConfig) SaveAllow(patterns []string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.saved = append(c.saved, patterns)
	return filepath.Join(c.h.proj, ".pi", "sandbox.json"), nil
}

// events records a session's events and notices.
type events struct {
	mu      sync.Mutex
	list    []agent.Event
	notices []Notice
}

func (e *events) Event(ev agent.Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	e.mu.Unlock()
}

func (e *events) Notice(n Notice) {
	e.mu.Lock()
	e.notices = append(e.notices, n)
	e.mu.Unlock()
}

func (e *events) all() []agent.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]agent.Event(nil), e.list...)
}

// open opens a session on local/small with the tools named (none by default) in the
// project's session directory; o's front end, approver and session spec are kept.
func (h *harness) open(o Options, toolNames ...string) (*Session, *testConfig) {
	h.t.Helper()
	c := &testConfig{h: h, tools: toolNames}
	if toolNames == nil {
		c.tools = []string{"read"}
	}
	st, err := c.load("local/small")
	if err != nil {
		h.t.Fatal(err)
	}
	o.Config, o.Setup = c, st
	if o.Session.Location.Dir == "" {
		o.Session.Location = session.Locate(h.agent, h.proj, filepath.Join(h.root, "sessions"), "")
	}
	s, err := Open(o)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { s.Close() })
	return s, c
}

// conversation appends user/assistant pairs to the session file and returns the user
// messages' entry ids.
func conversation(t *testing.T, s *Session, prompts ...string) []string {
	t.Helper()
	var ids []string
	for _, p := range prompts {
		id, err := s.file.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Content{{Type: llm.TypeText, Text: p}}, Timestamp: 1})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if _, err := s.file.AppendMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.TypeText, Text: "re " + p}},
			Provider: "local", Model: "small", StopReason: llm.StopStop, Timestamp: 2}); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

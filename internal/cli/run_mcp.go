package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools"
)

// mcpRun is a session run's MCP servers (mcp.json): started in the background when the run is
// prepared; the first prompt waits (bounded) for servers with direct tools, and every model
// call after a server's tools changed (or tool_search loaded tools) gets the re-resolved
// registry.
type mcpRun struct {
	c    *CLI
	r    *run
	mgr  *mcpclient.Manager
	conf *config.MCPConfig

	mu      sync.Mutex
	loaded  []string
	applied uint64 // the manager's generation the tools were last built from
	dirty   bool
	waited  bool
	section string
	ag      *agent.Agent
	runner  *toolrun.Runner
	// auth is the credential store; tokens the stored access token of each server waiting for a
	// sign-in, as it was when the sign-in was needed (pi's tokensAtSignIn).
	auth   *mcpclient.OAuthProvider
	tokens map[string]string
	// reported is closed once the startup problems were printed.
	reported chan struct{}
}

// mcpOptions are the connection options of a session or a command.
func (c *CLI) mcpOptions(cfg *config.Config, pol sandbox.Policy) *mcpclient.Options {
	cwd, _ := filepath.Abs(cfg.ProjectDir)
	o := &mcpclient.Options{
		Cwd: cwd, Home: cfg.Home, ClientName: "pigo", ClientVersion: Version,
		Resolve: resolveMCPValue, Environ: c.hostEnviron(), Log: mcpclient.NewLog(filepath.Join(cfg.AgentDir, "mcp.log")),
		Auth: mcpAuth(cfg), Sandbox: pol,
	}
	return o
}

// resolveMCPValue resolves an env or header value as pi's resolveConfigValueOrThrow does.
func resolveMCPValue(v, what string) (string, error) {
	r, ok, missing := config.ResolveConfigValue(v)
	if ok {
		return r, nil
	}
	switch {
	case strings.HasPrefix(v, "!"):
		return "", fmt.Errorf("Failed to resolve %s from shell command: %s", what, v[1:])
	case len(missing) == 1:
		return "", fmt.Errorf("Failed to resolve %s from environment variable: %s", what, missing[0])
	case len(missing) > 1:
		return "", fmt.Errorf("Failed to resolve %s from environment variables: %s", what, strings.Join(missing, ", "))
	}
	return "", fmt.Errorf("Failed to resolve %s", what)
}

// startMCP starts the run's servers in the background (nothing without servers or with
// --no-mcp). An untrusted project's servers are not among them: its file is never read.
func (c *CLI) startMCP(a *args, r *run) *mcpRun {
	if a.has("--no-mcp") {
		return nil
	}
	conf := r.cfg.MCP()
	var notes diag.List
	for _, d := range conf.Diags {
		if d.Code == "sandbox-widened" {
			notes = append(notes, d)
		}
	}
	c.notice(notes)
	if len(conf.Servers) == 0 {
		return nil
	}
	m := &mcpRun{c: c, r: r, conf: conf, reported: make(chan struct{})}
	m.loaded = loadedFromBranch(r.sess)
	opts := c.mcpOptions(r.cfg, r.policy)
	m.auth, m.tokens = mcpAuth(r.cfg), map[string]string{}
	opts.Auth = m.auth
	m.mgr = mcpclient.NewManager(conf.Servers, opts, r.cfg.MCPCache(), m.markDirty)
	// PIGO_MCP_STARTUP_WAIT replaces pi's 10 s for a slow machine (the test suite uses it).
	if d, err := time.ParseDuration(c.getenv("PIGO_MCP_STARTUP_WAIT")); err == nil && d > 0 {
		m.mgr.StartupWait = d
	}
	m.mgr.Start()
	go m.report()
	r.closers = append(r.closers, m.close)
	return m
}

func (m *mcpRun) markDirty() {
	m.mu.Lock()
	m.dirty = true
	m.mu.Unlock()
}

// report prints pi's startup report once every server's first attempt settled.
func (m *mcpRun) report() {
	defer close(m.reported)
	m.mgr.Wait(context.Background(), nil)
	lines := m.mgr.Problems()
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(m.c.Stderr, "pigo: MCP servers need attention:\n  %s\nRun `pigo mcp list` for details.\n", strings.Join(lines, "\n  "))
}

func (m *mcpRun) close() {
	m.mgr.Close()
	<-m.reported
}

// loadedFromBranch replays the tools tool_search loaded on the session's branch (its results'
// details.loaded), so they stay declared after resume and fork.
func loadedFromBranch(s *session.Session) []string {
	var out []string
	for _, e := range s.Branch("") {
		if e.Type != session.TypeMessage || e.Message == nil || e.Message.LLM == nil {
			continue
		}
		msg := e.Message.LLM
		if msg.Role != llm.RoleToolResult || msg.ToolName != mcp.ToolSearchName || msg.IsError != nil && *msg.IsError {
			continue
		}
		var d struct {
			Loaded []string `json:"loaded"`
		}
		if json.Unmarshal(msg.Details, &d) == nil {
			out = append(out, d.Loaded...)
		}
	}
	return out
}

// impls are the session's implementations: the shared ones plus its MCP tools.
func (m *mcpRun) impls(res *config.Resolution) *toolrun.Impls {
	bind := map[string]mcpclient.Binding{}
	for name, b := range res.MCP {
		bind[name] = mcpclient.Binding{Server: b.Server, Tool: b.Tool}
	}
	return tools.All().With(m.mgr.Impls(bind, m.load))
}

// load records tools tool_search loaded: declared from the next model call on.
func (m *mcpRun) load(names []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range names {
		if !containsString(m.loaded, n) {
			m.loaded = append(m.loaded, n)
		}
	}
	m.dirty = true
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hook is the agent's BeforeModelCall for a run (nil without MCP servers).
func (r *run) mcpHook() func(context.Context) {
	if r.mcp == nil {
		return nil
	}
	return r.mcp.beforeModelCall
}

// attachMCP gives the run's MCP servers the agent whose tools they keep current.
func (r *run) attachMCP(ag *agent.Agent) {
	if r.mcp == nil {
		return
	}
	r.mcp.mu.Lock()
	r.mcp.ag = ag
	r.mcp.dirty = true
	r.mcp.section = ""
	r.mcp.mu.Unlock()
}

// beforeModelCall runs before every model request: the first one waits for servers with
// direct tools (at most mcpclient.StartupWait), and the registry is rebuilt from the
// connected servers whenever their tools changed.
func (m *mcpRun) beforeModelCall(ctx context.Context) {
	m.mu.Lock()
	waited := m.waited
	m.waited = true
	m.mu.Unlock()
	if !waited {
		if pending := m.mgr.WaitDirect(ctx); len(pending) > 0 {
			fmt.Fprintln(m.c.Stderr, "pigo: MCP servers are still connecting; their tools become available once connected.")
		}
		m.markDirty()
	}
	m.reconnectSignedIn(ctx)
	m.refresh(ctx)
}

// reconnectSignedIn reconnects servers waiting for a sign-in whose stored credentials changed
// since (`pigo mcp login` run in another process, for example by the agent through bash).
func (m *mcpRun) reconnectSignedIn(ctx context.Context) {
	for _, c := range m.mgr.Conns() {
		if st, _ := c.State(); st != mcpclient.StateNeedsAuth || !c.Server.UsesOAuth() {
			delete(m.tokens, c.Server.Name)
			continue
		}
		now := m.auth.Store.AccessToken(c.Server.Name, c.Server.URL)
		before, seen := m.tokens[c.Server.Name]
		if !seen {
			m.tokens[c.Server.Name] = now
			continue
		}
		if now != before {
			delete(m.tokens, c.Server.Name)
			_ = c.Reconnect(ctx)
		}
	}
}

// refresh rebuilds the tools when a server's tools changed or tool_search loaded some; it runs
// before every model call.
func (m *mcpRun) refresh(context.Context) {
	m.mu.Lock()
	gen := m.mgr.Generation()
	if !m.dirty && gen == m.applied {
		m.mu.Unlock()
		return
	}
	m.dirty, m.applied = false, gen
	loaded := append([]string(nil), m.loaded...)
	ag := m.ag
	m.mu.Unlock()
	if ag == nil {
		return
	}
	o := m.r.res.Options
	o.MCPTools = m.mgr.ToolList
	o.MCPLoaded = loaded
	res, err := m.r.cfg.Resolve(o)
	if err != nil {
		fmt.Fprintf(m.c.Stderr, "pigo: MCP: %v\n", err)
		return
	}
	runner := toolrun.New(res.Tools, m.impls(res), m.r.toolSess)
	m.mu.Lock()
	m.runner = runner
	m.mu.Unlock()
	list := agentTools(runner, m)
	if m.r.wrapTools != nil {
		list = m.r.wrapTools(list)
	}
	ag.SetTools(list)
	section := mcp.ServersSection(m.summaries())
	if section != m.section {
		m.section = section
		sys := m.r.system
		if section != "" {
			sys += "\n\n<mcp_servers>\n" + section + "\n</mcp_servers>"
		}
		ag.SetSystemPrompt(sys)
	}
	m.r.res = res
}

// summaries are the servers as the mcp_servers section lists them.
func (m *mcpRun) summaries() []mcp.ServerSummary {
	var out []mcp.ServerSummary
	for _, c := range m.mgr.Conns() {
		out = append(out, mcp.ServerSummary{Server: c.Server, Instructions: c.Instructions()})
	}
	return out
}

// agentTools turns a runner's active tools into the loop's tools, each through the one
// execution path. With MCP servers, a call runs on the session's current runner (m.current),
// after waiting for the servers it may reach (m.reach).
func agentTools(runner *toolrun.Runner, m *mcpRun) []agent.Tool {
	current := func() *toolrun.Runner { return runner }
	if m != nil {
		current = m.current
	}
	var out []agent.Tool
	for _, lt := range runner.LLMTools() {
		t := agent.Tool{Tool: lt}
		name := lt.Name
		if d, ok := runner.Lookup(name); ok {
			t.Sequential = d.Sequential()
		}
		t.Prepare = func(args json.RawMessage) (json.RawMessage, error) {
			return current().PrepareCall(toolrun.Call{Name: name, Arguments: args})
		}
		t.Execute = func(ctx context.Context, id string, args json.RawMessage, update func(agent.Result)) (agent.Result, error) {
			if m != nil {
				m.reach(ctx, name, args)
			}
			call := toolrun.Call{ID: id, Name: name, Arguments: args}
			r := current().ExecutePrepared(ctx, call, args, func(p toolrun.Result) { update(agentResult(p)) })
			return agentResult(r), nil
		}
		out = append(out, t)
	}
	return out
}

// current is the runner of the latest registry.
func (m *mcpRun) current() *toolrun.Runner {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.runner
}

// reach waits, before a tool that reaches other tools runs, for the servers it may reach, and
// brings the registry up to date (pi's tool_call wait): tool_search and the resource tools
// reach every server; a codemode script the servers it names (mcp__<server>), or every server
// when it enumerates ALL_TOOLS.
func (m *mcpRun) reach(ctx context.Context, name string, args json.RawMessage) {
	var servers []string
	switch {
	case name == mcp.ToolSearchName || mcp.IsResourceTool(name):
		servers = nil
	case name == "codemode":
		var a struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(args, &a)
		if !strings.Contains(a.Code, "ALL_TOOLS") {
			servers = []string{}
			for _, c := range m.mgr.Conns() {
				if strings.Contains(a.Code, mcp.Namespace(c.Server.Name)) {
					servers = append(servers, c.Server.Name)
				}
			}
			if len(servers) == 0 {
				return
			}
		}
	default:
		return
	}
	m.mgr.Wait(ctx, servers)
	m.refresh(ctx)
}

// mcpAuth signs OAuth servers' requests with the agent dir's mcp-auth.json.
func mcpAuth(cfg *config.Config) *mcpclient.OAuthProvider {
	return &mcpclient.OAuthProvider{Store: mcpclient.NewCredentialStore(cfg.AgentDir), Settings: oauthSettings}
}

// oauthSettings are a server's oauth settings with the client secret resolved.
func oauthSettings(s *mcp.Server) (mcpclient.OAuthSettings, error) {
	o := s.OAuth
	if o == nil {
		return mcpclient.OAuthSettings{}, nil
	}
	st := mcpclient.OAuthSettings{ClientID: o.ClientID, CallbackPort: o.CallbackPort, CallbackURL: o.CallbackURL, Scope: o.Scope,
		ClientName: o.ClientName, Registration: o.ClientRegistration, AuthServerMetadataURL: o.AuthServerMetadataURL}
	if o.ClientSecret != "" {
		v, err := resolveMCPValue(o.ClientSecret, fmt.Sprintf("MCP server %q oauth.clientSecret", s.Name))
		if err != nil {
			return st, err
		}
		st.ClientSecret = v
	}
	return st, nil
}

package app

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// MCPSetup is a session's MCP servers as mcp.json declares them (Setup.MCP; nil without
// servers, with --no-mcp, or for an untrusted project's file, which is never read). The
// servers start in the background when the session opens; their tools join the registry as
// they connect (D25).
type MCPSetup struct {
	// Servers are mcp.json's valid entries, disabled ones included (/mcp enables them).
	Servers []*mcp.Server
	// Options connect them: the sandbox policy, the environment, mcp.log, the credentials.
	Options *mcpclient.Options
	// Auth is the OAuth credential store and sign-in (/mcp login|logout); nil: none.
	Auth *mcpclient.OAuthProvider
	// Cache is the schema cache every connection refreshes.
	Cache mcp.Cache
	// StartupWait bounds the first prompt's wait for servers with direct tools (0: pi's).
	StartupWait time.Duration
	// Bindings maps the registry's MCP names of Setup.Registry (the resource tools and
	// tool_search; no server tool before its server connected) to their server tools.
	Bindings map[string]mcpclient.Binding
	// Resolve resolves the registry again with the connected servers' tools (tools) and the
	// tools tool_search loaded, returning the registry and its bindings.
	Resolve func(tools func(*mcp.Server) *mcp.ToolList, loaded []string) (*engine.Result, map[string]mcpclient.Binding, error)
	// Save writes a change of a server's entry (/mcp enable|disable|exposure) to the file that
	// defines it (a project override with Project), keeping its comments; it returns the file.
	Save func(s *mcp.Server, ch MCPChange) (file string, err error)
	// GlobalFile is the user's mcp.json; Problems are mcp.json's problems, one line each.
	GlobalFile string
	// ProjectFile is the trusted project's mcp.json ("" for an untrusted project): /mcp offers
	// to enable or disable a global server in this project alone.
	ProjectFile string
	Problems    []string
	// OpenURL opens a sign-in page in the browser (nil: the URL is only shown).
	OpenURL func(string)
}

// MCPChange is one change /mcp saves to a server's entry.
type MCPChange struct {
	// Enabled, when set, is the new enabled value; Exposure, when set, the new exposure.
	Enabled  *bool
	Exposure string
	// Project writes a project override (.pi/mcp.json) even for a user entry.
	Project bool
}

// mcpState is a running session's MCP servers: the manager, the runner of the latest
// registry, the tools tool_search loaded and the mcp_servers section.
type mcpState struct {
	s     *Session
	setup *MCPSetup
	mgr   *mcpclient.Manager
	// base are the session's implementations without the servers' tools.
	base *toolrun.Impls

	mu      sync.Mutex
	runner  *toolrun.Runner
	loaded  []string
	applied uint64 // the manager's generation the runner was built from
	dirty   bool
	waited  bool
	closed  bool
	section string
	// tokens is the stored access token of each server waiting for a sign-in, as it was when
	// the sign-in was needed (pi's tokensAtSignIn).
	tokens map[string]string
	// messages are the /mcp manager's last outcome per server (pi's server.message).
	messages map[string]string
	// reported is closed once the start-up problems were reported.
	reported chan struct{}
}

// startMCP starts the session's servers in the background and returns the implementations
// the first runner binds (impls with the MCP tools in front); nil state without servers.
func (s *Session) startMCP(impls *toolrun.Impls) *toolrun.Impls {
	st := s.setup.MCP
	if st == nil || len(st.Servers) == 0 {
		return impls
	}
	m := &mcpState{s: s, setup: st, base: impls, tokens: map[string]string{}, reported: make(chan struct{})}
	m.loaded = loadedFromBranch(s.file)
	m.mgr = mcpclient.NewManager(st.Servers, st.Options, st.Cache, m.markDirty)
	if st.StartupWait > 0 {
		m.mgr.StartupWait = st.StartupWait
	}
	s.mcp = m
	m.mgr.Start()
	go m.report()
	return impls.With(m.mgr.Impls(st.Bindings, m.load))
}

// setRunner sets the first runner, under the lock: the servers' goroutines (their report,
// what a front end does on it) read it through current.
func (m *mcpState) setRunner(runner *toolrun.Runner) {
	m.mu.Lock()
	m.runner = runner
	m.mu.Unlock()
}

func (m *mcpState) markDirty() {
	m.mu.Lock()
	m.dirty = true
	m.mu.Unlock()
}

// reportSettled is called by report between the servers' settling and its look at closed
// (tests: a report that loses the race to the session's close).
var reportSettled func()

// report tells the front end pi's start-up report once every server's first attempt settled
// (not when only the session's close ended the attempts).
func (m *mcpState) report() {
	defer close(m.reported)
	m.mgr.Wait(context.Background(), nil)
	if reportSettled != nil {
		reportSettled()
	}
	lines := m.mgr.Problems()
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if len(lines) == 0 || closed {
		return
	}
	m.s.fe.Notice(Notice{Text: "MCP servers need attention:\n  " + strings.Join(lines, "\n  ") + "\nRun /mcp to fix.",
		Error: true})
}

// close stops every server (stdin, SIGTERM, SIGKILL) and waits for the report.
func (m *mcpState) close() {
	// A report due before the close (every server's first attempt settled) is given even when
	// its goroutine has not run yet: pigo tool run closes as soon as the call returns, and
	// the broken server's report was lost when the close came first. One that would come only
	// because the close ends the attempts is not given.
	settled := m.mgr.Settled()
	m.mu.Lock()
	m.closed = !settled
	m.mu.Unlock()
	if settled {
		<-m.reported // given while the servers still stand, as they settled
	}
	m.mgr.Close()
	<-m.reported
}

// loadedFromBranch replays the tools tool_search loaded on the session's branch (its results'
// details.loaded), so they stay declared after resume and fork.
func loadedFromBranch(f *session.Session) []string {
	var out []string
	for _, e := range f.Branch("") {
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

// branchChanged is called when the agent is rebuilt on another branch or session file: the
// tools tool_search loaded are the new branch's.
func (m *mcpState) branchChanged(f *session.Session) {
	loaded := loadedFromBranch(f)
	m.mu.Lock()
	m.loaded, m.dirty = loaded, true
	m.mu.Unlock()
}

// load records tools tool_search loaded: declared from the next model call on.
func (m *mcpState) load(names []string) {
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

// current is the runner of the latest registry.
func (m *mcpState) current() *toolrun.Runner {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.runner
}

// beforeModelCall runs before every model request: the first one waits for servers with
// direct tools (at most the startup wait), servers waiting for a sign-in that happened
// elsewhere reconnect, and the registry is rebuilt when the servers' tools changed; the
// agent's system prompt gets the current mcp_servers section.
func (m *mcpState) beforeModelCall(ctx context.Context, ag *agent.Agent, system string) {
	m.mu.Lock()
	waited := m.waited
	m.waited = true
	m.mu.Unlock()
	if !waited {
		if pending := m.mgr.WaitDirect(ctx); len(pending) > 0 {
			m.s.fe.Notice(Notice{Text: "MCP servers are still connecting; their tools become available once connected."})
		}
		m.markDirty()
	}
	m.reconnectSignedIn(ctx)
	m.refresh()
	if ag != nil {
		ag.SetSystemPrompt(m.systemPrompt(system))
	}
}

// systemPrompt is system with the mcp_servers section (servers with codemode or deferred
// tools) appended.
func (m *mcpState) systemPrompt(system string) string {
	m.mu.Lock()
	section := m.section
	m.mu.Unlock()
	if section == "" {
		return system
	}
	return system + "\n\n<mcp_servers>\n" + section + "\n</mcp_servers>"
}

// reconnectSignedIn reconnects servers waiting for a sign-in whose stored credentials changed
// since (`pigo mcp login` run in another process, for example by the agent through bash).
func (m *mcpState) reconnectSignedIn(ctx context.Context) {
	if m.setup.Auth == nil {
		return
	}
	var again []*mcpclient.Conn
	m.mu.Lock()
	for _, c := range m.mgr.Conns() {
		if st, _ := c.State(); st != mcpclient.StateNeedsAuth || !c.Server.UsesOAuth() {
			delete(m.tokens, c.Server.Name)
			continue
		}
		now := m.setup.Auth.Store.AccessToken(c.Server.Name, c.Server.URL)
		before, seen := m.tokens[c.Server.Name]
		if !seen {
			m.tokens[c.Server.Name] = now
			continue
		}
		if now != before {
			delete(m.tokens, c.Server.Name)
			again = append(again, c)
		}
	}
	m.mu.Unlock()
	for _, c := range again {
		_ = c.Reconnect(ctx) // its state says how it went
	}
}

// refresh rebuilds the registry and the runner when a server's tools changed or tool_search
// loaded some.
func (m *mcpState) refresh() {
	m.mu.Lock()
	gen := m.mgr.Generation()
	if !m.dirty && gen == m.applied {
		m.mu.Unlock()
		return
	}
	m.dirty, m.applied = false, gen
	loaded := append([]string(nil), m.loaded...)
	m.mu.Unlock()
	reg, bind, err := m.setup.Resolve(m.mgr.ToolList, loaded)
	if err != nil {
		m.s.fe.Notice(Notice{Text: "MCP: " + err.Error(), Error: true})
		return
	}
	runner := toolrun.New(reg, m.base.With(m.mgr.Impls(bind, m.load)), m.s.tools)
	section := mcp.ServersSection(m.summaries())
	m.mu.Lock()
	m.runner, m.section = runner, section
	m.mu.Unlock()
}

// summaries are the servers as the mcp_servers section lists them.
func (m *mcpState) summaries() []mcp.ServerSummary {
	var out []mcp.ServerSummary
	for _, c := range m.mgr.Conns() {
		out = append(out, mcp.ServerSummary{Server: c.Server, Instructions: c.Instructions()})
	}
	return out
}

// reach waits, before a tool that reaches other tools runs, for the servers it may reach, and
// brings the registry up to date (pi's tool_call wait): tool_search and the resource tools
// reach every server; a codemode script the servers it names (mcp__<server>), or every server
// when it enumerates ALL_TOOLS or searches with searchTools.
func (m *mcpState) reach(ctx context.Context, name string, args json.RawMessage) {
	var servers []string
	switch {
	case name == mcp.ToolSearchName || mcp.IsResourceTool(name):
		servers = nil
	case name == "codemode":
		var a struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(args, &a)
		if !strings.Contains(a.Code, "ALL_TOOLS") && !strings.Contains(a.Code, "searchTools") {
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
	m.refresh()
}

// mcpTools is the loop's tools in a session with MCP servers: the runner of the latest
// registry (servers that connected or changed their tools, tools tool_search loaded), read
// at each model call and each tool call.
type mcpTools struct{ m *mcpState }

func (t mcpTools) LLMTools() []llm.Tool { return t.m.current().LLMTools() }

func (t mcpTools) Callable(name string) *toolrun.Tool { return t.m.current().Callable(name) }

func (t mcpTools) PrepareTool(tool *toolrun.Tool, call toolrun.Call) (json.RawMessage, error) {
	return t.m.current().PrepareTool(tool, call)
}

// ExecuteTool waits for the servers the call may reach, then runs it on the current runner
// (a codemode script's nested calls see the tools of servers that connected meanwhile).
func (t mcpTools) ExecuteTool(ctx context.Context, tool *toolrun.Tool, call toolrun.Call, args json.RawMessage, progress func(toolrun.Result)) toolrun.Result {
	t.m.reach(ctx, tool.Name, args)
	r := t.m.current()
	if now := r.Callable(tool.Name); now != nil {
		tool = now
	}
	return r.ExecuteTool(ctx, tool, call, args, progress)
}

var _ agent.Tools = mcpTools{}

// agentTools is what the loop calls tools through: the runner, or with MCP servers the
// runner of the latest registry.
func (s *Session) agentTools() agent.Tools {
	if s.mcp != nil {
		return mcpTools{s.mcp}
	}
	return s.runner
}

// agentHooks are the agent's hooks: with MCP servers, the wait and refresh before each model
// request (ag is set once the agent exists).
func (s *Session) agentHooks(ag **agent.Agent, system string) agent.Hooks {
	if s.mcp == nil {
		return agent.Hooks{}
	}
	m := s.mcp
	return agent.Hooks{BeforeModelCall: func(ctx context.Context) { m.beforeModelCall(ctx, *ag, system) }}
}

// toolRunner is the runner `pigo tool run` calls: with MCP servers, every server is waited
// for first (bounded by each server's own timeout), so their tools can be run.
func (s *Session) toolRunner(ctx context.Context) *toolrun.Runner {
	if s.mcp == nil {
		return s.runner
	}
	s.mcp.mgr.Wait(ctx, nil)
	s.mcp.refresh()
	return s.mcp.current()
}

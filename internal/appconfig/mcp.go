package appconfig

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/auth"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// MCPOptions are the MCP connection options of a session or a command.
func (r Run) MCPOptions(cfg *config.Config, pol sandbox.Policy) *mcpclient.Options {
	cwd, _ := filepath.Abs(cfg.ProjectDir)
	return &mcpclient.Options{
		Cwd: cwd, Home: cfg.Home, ClientName: "pigo", ClientVersion: r.Version,
		Resolve: config.ResolveMCPValue, Environ: r.Environ(), Log: mcpclient.NewLog(filepath.Join(cfg.AgentDir, "mcp.log")),
		Auth: MCPAuth(cfg), Sandbox: pol, ProviderToken: mcpProviderToken(cfg),
	}
}

// mcpProviderToken reads the token of a /login provider for the HTTP servers whose entry says
// auth.provider, as pi 1.6 does before every request: the provider's credential as its model
// requests resolve it (auth.json, models.json's apiKey, the environment; --api-key is not
// one), an OAuth access token refreshed under auth.json's lock when it expires. A provider
// without a credential, or whose refresh fails, gives "": the request goes without
// Authorization and the server's 401 asks for /login PROVIDER. Only a broken auth.json or
// models.json is an error (its text names the file, never a secret).
func mcpProviderToken(cfg *config.Config) func(ctx context.Context, provider string) (string, error) {
	return func(ctx context.Context, provider string) (string, error) {
		res, err := cfg.Credential(provider, "")
		if err != nil {
			return "", err
		}
		switch res.Type {
		case auth.TypeAPIKey:
			return res.APIKey, nil
		case auth.TypeOAuth:
			src := &auth.Source{Store: auth.NewStore(cfg.AgentDir), Provider: provider, Flow: auth.FlowFor(provider)}
			ra, err := src.Resolve(ctx, false)
			if err != nil {
				return "", nil
			}
			return ra.APIKey, nil
		}
		return "", nil
	}
}

// MCP is a session's MCP servers as values for app.Session (nil without servers or with
// --no-mcp; an untrusted project's file is never read): the servers, how they connect, the
// bindings of res, and the configuration's part — resolving the registry again as servers
// connect, saving /mcp's changes.
func MCP(cfg *config.Config, res *config.Resolution, pol sandbox.Policy, r Run) *app.MCPSetup {
	if r.NoMCP {
		return nil
	}
	conf := cfg.MCP()
	if len(conf.Servers) == 0 {
		return nil
	}
	opts := r.MCPOptions(cfg, pol)
	auth := MCPAuth(cfg)
	opts.Auth = auth
	st := &app.MCPSetup{Servers: conf.Servers, Options: opts, Auth: auth, Cache: cfg.MCPCache(), Bindings: mcpBindings(res.MCP),
		GlobalFile: conf.GlobalFile, OpenURL: r.OpenURL}
	if cfg.ProjectTrustedQuietly() {
		st.ProjectFile = conf.ProjectFile
	}
	// PIGO_MCP_STARTUP_WAIT replaces pi's 10 s for a slow machine (the test suite uses it).
	if d, err := time.ParseDuration(r.Getenv("PIGO_MCP_STARTUP_WAIT")); err == nil && d > 0 {
		st.StartupWait = d
	}
	for _, d := range conf.Diags {
		if d.Code != "sandbox-widened" {
			st.Problems = append(st.Problems, NoteLine(d))
		}
	}
	base := res.Options
	var mu sync.Mutex // one resolution at a time: parallel tool calls may both refresh
	st.Resolve = func(tools func(*mcp.Server) *mcp.ToolList, loaded []string) (*engine.Result, map[string]mcpclient.Binding, error) {
		mu.Lock()
		defer mu.Unlock()
		o := base
		o.MCPTools, o.MCPLoaded = tools, loaded
		r, err := cfg.Resolve(o)
		if err != nil {
			return nil, nil, err
		}
		return r.Tools, mcpBindings(r.MCP), nil
	}
	st.Save = func(s *mcp.Server, ch app.MCPChange) (string, error) {
		return cfg.SaveMCPChange(s, ch.Enabled, ch.Exposure, ch.Project)
	}
	return st
}

// MCPWidened are the MCP entries that widen the sandbox (D25), said at session start.
func MCPWidened(cfg *config.Config) diag.List {
	var notes diag.List
	for _, d := range cfg.MCP().Diags {
		if d.Code == "sandbox-widened" {
			notes = append(notes, d)
		}
	}
	return notes
}

// mcpBindings are a resolution's MCP names as the client binds them.
func mcpBindings(res map[string]config.MCPBinding) map[string]mcpclient.Binding {
	bind := make(map[string]mcpclient.Binding, len(res))
	for name, b := range res {
		bind[name] = mcpclient.Binding{Server: b.Server, Tool: b.Tool}
	}
	return bind
}

// MCPAuth signs OAuth servers' requests with the agent dir's mcp-auth.json.
func MCPAuth(cfg *config.Config) *mcpclient.OAuthProvider {
	return &mcpclient.OAuthProvider{Store: mcpclient.NewCredentialStore(cfg.AgentDir), Settings: func(s *mcp.Server) (mcpclient.OAuthSettings, error) {
		return mcpclient.SettingsOf(s, config.ResolveMCPValue)
	}}
}

// ReachesMCP reports whether `pigo tool run` of row needs the MCP servers: a server's tool,
// tool_search, a resource tool, or codemode (a script may call servers' tools).
func ReachesMCP(row *engine.ToolResult) bool {
	if row == nil {
		return false
	}
	return strings.HasPrefix(row.Source, "mcp:") || row.Name == mcp.ToolSearchName || mcp.IsResourceTool(row.Name) || row.Name == "codemode"
}

// CacheMCPTools connects every enabled server once and closes it: the connections refresh the
// schema cache (what `pigo tool run` does for a server tool the cache does not list yet).
func (r Run) CacheMCPTools(cfg *config.Config, pol sandbox.Policy) {
	mgr := mcpclient.NewManager(cfg.MCP().Servers, r.MCPOptions(cfg, pol), cfg.MCPCache(), nil)
	mgr.Start()
	mgr.Wait(context.Background(), nil)
	mgr.Close()
}

// NoteLine renders a configuration notice as `file:line:col: severity: message [code] (hint)`.
func NoteLine(d diag.Diagnostic) string {
	s := d.Line()
	if d.Hint != "" && d.Code != "not-applied" && d.Code != "settings-errors" && d.Code != "extension-skipped" {
		s += " (" + d.Hint + ")"
	}
	return s
}

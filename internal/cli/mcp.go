package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/appconfig"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient"
)

var mcpCmd = command{
	name:    "mcp",
	summary: "add, remove and check MCP servers (mcp.json) and sign in to OAuth servers, without a session",
	usage:   "mcp add|remove|list|login|logout [flags]",
	sub: []*command{
		{name: "add", summary: "add or replace a server in mcp.json (stdio: -- COMMAND ARGS...; HTTP: --url URL)",
			usage: "mcp add SERVER [-l] [--env K=V]... [--cwd DIR] [--exposure MODE] [--description TEXT] (-- COMMAND [ARGS...] | --url URL [--header K=V]... [--bearer-token-env-var NAME] [--oauth-* ...])",
			flags: []*flag{&mcpLocalFlag,
				{names: []string{"--url"}, value: true, help: "streamable HTTP server URL (instead of a command)"},
				{names: []string{"--env"}, value: true, help: "environment variable of a stdio server, KEY=VALUE (repeatable)"},
				{names: []string{"--cwd"}, value: true, help: "working directory of a stdio server"},
				{names: []string{"--header"}, value: true, help: "HTTP header, KEY=VALUE (repeatable)"},
				{names: []string{"--bearer-token-env-var"}, value: true, help: `send "Authorization: Bearer ${NAME}"`},
				{names: []string{"--oauth-client-id"}, value: true, help: "pre-registered OAuth client id"},
				{names: []string{"--oauth-client-secret"}, value: true, help: "OAuth client secret (may be ${NAME} or !command)"},
				{names: []string{"--oauth-callback-port"}, value: true, help: "fixed OAuth callback port"},
				{names: []string{"--oauth-client-name"}, value: true, help: "client name sent when registering with the OAuth server"},
				{names: []string{"--oauth-client-registration"}, value: true, help: "auto (default) or dcr (cimd is pi's own and not supported)"},
				{names: []string{"--exposure"}, value: true, help: "codemode (default), deferred, direct, or hidden"},
				{names: []string{"--description"}, value: true, help: "what the server offers, shown in the system prompt"},
			},
			maxPositionals: 2, run: runMCPAdd},
		{name: "remove", summary: "remove a server from mcp.json (stored OAuth credentials are kept)",
			usage: "mcp remove SERVER [-l]", flags: []*flag{&mcpLocalFlag}, run: runMCPRemove},
		{name: "list", summary: "connect to every enabled server and show its state, tools and errors (exit 1 on a failure)",
			usage: "mcp list [--json]", flags: []*flag{{names: []string{"--json"}, help: "print the list as JSON"}}, run: runMCPList},
		{name: "login", summary: "sign in to an OAuth server through the browser",
			usage: "mcp login SERVER [-l] [--timeout SECONDS]",
			flags: []*flag{&mcpLocalFlag, {names: []string{"--timeout"}, value: true, help: "time limit of the whole sign-in in seconds (default 300)"}},
			run:   runMCPLogin},
		{name: "logout", summary: "delete the stored OAuth credentials of a server",
			usage: "mcp logout SERVER [-l]", flags: []*flag{&mcpLocalFlag}, run: runMCPLogout},
	},
}

// &mcpLocalFlag is the mcp commands' --local.
var mcpLocalFlag = flag{names: []string{"--local", "-l"}, help: "use the project's .pi/mcp.json instead of the agent dir's mcp.json"}

// mcpScope is the file add and remove change: the agent dir's, or the project's with -l.
func mcpScope(a *args) config.Scope {
	if a.has("--local") {
		return config.Project
	}
	return config.Global
}

func runMCPAdd(c *CLI, a *args) int {
	usage := "usage: pigo mcp add SERVER [flags] (--url URL | -- COMMAND [ARGS...])"
	words := append(append([]string{}, a.pos...), a.rest...)
	if len(words) == 0 {
		fmt.Fprintln(c.Stderr, "pigo mcp add: "+usage)
		return ExitUsage
	}
	name, command := words[0], words[1:]
	url := a.str("--url")
	if (url == "") == (len(command) == 0) {
		fmt.Fprintln(c.Stderr, "pigo mcp add: give either --url URL or -- COMMAND [ARGS...]\n"+usage)
		return ExitUsage
	}
	flags := mcp.EntryFlags{URL: url, Command: command, Env: a.list("--env"), Headers: a.list("--header"), Has: a.has, Value: a.str}
	entry, err := mcp.Entry(flags)
	if err != nil {
		fmt.Fprintln(c.Stderr, "pigo mcp add: "+err.Error())
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	if err := cfg.AddMCPServer(mcpScope(a), name, entry, flags.NeedsSignInHint(), c.Stdout); err != nil {
		return c.editFailure("mcp add", err)
	}
	return ExitOK
}

func runMCPRemove(c *CLI, a *args) int {
	if len(a.pos) != 1 {
		fmt.Fprintln(c.Stderr, "usage: pigo mcp remove SERVER [-l]")
		return ExitUsage
	}
	name := a.pos[0]
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	if err := cfg.RemoveMCPServer(mcpScope(a), name, c.Stdout); err != nil {
		return c.editFailure("mcp remove", err)
	}
	return ExitOK
}

func runMCPList(c *CLI, a *args) int {
	if len(a.pos) > 0 {
		fmt.Fprintln(c.Stderr, "usage: pigo mcp list [--json]")
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	conf := cfg.MCP()
	pol, _, err := cfg.SandboxPolicy()
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo mcp list: sandbox.json: %v (stdio servers do not start)\n", err)
	}
	opts := c.runConfig(a).MCPOptions(cfg, pol)
	mgr := mcpclient.NewManager(conf.Servers, opts, cfg.MCPCache(), nil)
	mgr.Start()
	mgr.Wait(context.Background(), nil)
	defer mgr.Close()
	var errs []string
	for _, d := range conf.Diags {
		if d.Severity == diag.Error {
			errs = append(errs, appconfig.NoteLine(d))
		}
	}
	note := ""
	if conf.Ignored != "" {
		note = fmt.Sprintf("%s is ignored because the project is not trusted (pigo trust).", conf.Ignored)
	}
	reports, failed := mgr.Reports()
	failed = failed || len(errs) > 0
	if a.has("--json") || a.str("--format") == "json" {
		c.writeJSON(struct {
			Version int                `json:"version"`
			Servers []mcpclient.Report `json:"servers"`
			Errors  []string           `json:"errors"`
			Note    string             `json:"note,omitempty"`
		}{1, reports, append([]string{}, errs...), note})
		if failed {
			return ExitFailed
		}
		return ExitOK
	}
	mcpclient.WriteReports(c.Stdout, reports, errs, note, conf.GlobalFile)
	if failed {
		return ExitFailed
	}
	return ExitOK
}

func runMCPLogin(c *CLI, a *args) int  { return c.mcpLogin(a, false) }
func runMCPLogout(c *CLI, a *args) int { return c.mcpLogin(a, true) }

// mcpLogin is `pigo mcp login` and `pigo mcp logout` (OAuth): pi's checks and texts.
func (c *CLI) mcpLogin(a *args, logout bool) int {
	cmd := "login"
	if logout {
		cmd = "logout"
	}
	if len(a.pos) != 1 {
		fmt.Fprintf(c.Stderr, "usage: pigo mcp %s SERVER [-l]\n", cmd)
		return ExitUsage
	}
	name := a.pos[0]
	timeout := 300.0
	if v := a.str("--timeout"); v != "" {
		t, err := strconv.ParseFloat(v, 64)
		if err != nil || !(t > 0) {
			fmt.Fprintln(c.Stderr, "pigo mcp login: --timeout must be a positive number of seconds.")
			return ExitUsage
		}
		timeout = t
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	s, err := cfg.OAuthServer(name, a.has("--local"), cmd)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo mcp %s: %v\n", cmd, err)
		return ExitFailed
	}
	auth := appconfig.MCPAuth(cfg)
	if logout {
		removed, err := auth.Store.Remove(s.Name, s.URL)
		if err != nil {
			fmt.Fprintf(c.Stderr, "pigo mcp logout: %v\n", err)
			return ExitInternal
		}
		if removed {
			fmt.Fprintf(c.Stdout, "Signed out of MCP server %q.\n", name)
		} else {
			fmt.Fprintf(c.Stdout, "No stored credentials for MCP server %q.\n", name)
		}
		return ExitOK
	}
	pol, _, _ := cfg.SandboxPolicy()
	opts := c.runConfig(a).MCPOptions(cfg, pol)
	opts.Auth = auth
	var in io.Reader
	if c.Terminal && c.Stdin != nil {
		in = c.Stdin
	}
	prompt := mcpclient.TerminalPrompt(name, in, c.Stdout, c.Stderr, c.openURL)
	if err := mcpclient.Login(s, opts, auth, timeout, prompt, c.Stdout); err != nil {
		fmt.Fprintf(c.Stderr, "pigo mcp login: %v\n", err)
		return ExitFailed
	}
	return ExitOK
}

// openURL opens a URL in the user's browser (mcpclient.Browser); tests set CLI.OpenURL.
func (c *CLI) openURL(u string) {
	if c.OpenURL != nil {
		c.OpenURL(u)
		return
	}
	mcpclient.Browser(c.getenv)(u)
}

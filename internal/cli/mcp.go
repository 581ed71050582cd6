package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient"
)

func init() {
	local := flag{names: []string{"--local", "-l"}, help: "use the project's .pi/mcp.json instead of the agent dir's mcp.json"}
	register(&command{
		name:    "mcp",
		summary: "add, remove and check MCP servers (mcp.json) and sign in to OAuth servers, without a session",
		usage:   "mcp add|remove|list|login|logout [flags]",
		sub: []*command{
			{name: "add", summary: "add or replace a server in mcp.json (stdio: -- COMMAND ARGS...; HTTP: --url URL)",
				usage: "mcp add SERVER [-l] [--env K=V]... [--cwd DIR] [--exposure MODE] [--description TEXT] (-- COMMAND [ARGS...] | --url URL [--header K=V]... [--bearer-token-env-var NAME] [--oauth-* ...])",
				flags: []flag{local,
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
				usage: "mcp remove SERVER [-l]", flags: []flag{local}, run: runMCPRemove},
			{name: "list", summary: "connect to every enabled server and show its state, tools and errors (exit 1 on a failure)",
				usage: "mcp list [--json]", flags: []flag{{names: []string{"--json"}, help: "print the list as JSON"}}, run: runMCPList},
			{name: "login", summary: "sign in to an OAuth server through the browser",
				usage: "mcp login SERVER [-l] [--timeout SECONDS]",
				flags: []flag{local, {names: []string{"--timeout"}, value: true, help: "time limit of the whole sign-in in seconds (default 300)"}},
				run:   runMCPLogin},
			{name: "logout", summary: "delete the stored OAuth credentials of a server",
				usage: "mcp logout SERVER [-l]", flags: []flag{local}, run: runMCPLogout},
		},
	})
}

// mcpScope is the file add and remove change: the agent dir's, or the project's with -l.
func mcpScope(a *args) config.Scope {
	if a.has("--local") {
		return config.Project
	}
	return config.Global
}

// pairs parses repeated KEY=VALUE options.
func pairs(option string, list []string) (map[string]string, []string, error) {
	out := map[string]string{}
	var order []string
	for _, p := range list {
		i := strings.Index(p, "=")
		if i <= 0 {
			return nil, nil, fmt.Errorf("--%s expects KEY=VALUE, got %q.", option, p)
		}
		if _, ok := out[p[:i]]; !ok {
			order = append(order, p[:i])
		}
		out[p[:i]] = p[i+1:]
	}
	return out, order, nil
}

// orderedObject renders keys in order as a JSON object.
func orderedObject(m map[string]string, order []string) json.RawMessage {
	b := []byte{'{'}
	for i, k := range order {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, mustMarshal(k)...)
		b = append(b, ':')
		b = append(b, mustMarshal(m[k])...)
	}
	return append(b, '}')
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
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
	httpOnly := []string{"--header", "--bearer-token-env-var", "--oauth-client-id", "--oauth-client-secret",
		"--oauth-callback-port", "--oauth-client-name", "--oauth-client-registration"}
	stdioOnly := []string{"--env", "--cwd"}
	wrong, kind := stdioOnly, "stdio servers"
	if url == "" {
		wrong, kind = httpOnly, "HTTP servers (--url)"
	}
	for _, f := range wrong {
		if a.has(f) {
			fmt.Fprintf(c.Stderr, "pigo mcp add: %s only applies to %s.\n", f, kind)
			return ExitUsage
		}
	}
	// The entry in pi's key order.
	var members [][2]string
	add := func(k string, v []byte) { members = append(members, [2]string{k, string(v)}) }
	if url != "" {
		add("url", mustMarshal(url))
		headers, order, err := pairs("header", a.list("--header"))
		if err != nil {
			fmt.Fprintln(c.Stderr, "pigo mcp add: "+err.Error())
			return ExitUsage
		}
		if v := a.str("--bearer-token-env-var"); v != "" {
			if _, ok := headers["Authorization"]; !ok {
				order = append(order, "Authorization")
			}
			headers["Authorization"] = "Bearer ${" + v + "}"
		}
		if len(order) > 0 {
			add("headers", orderedObject(headers, order))
		}
		var oauth [][2]string
		for _, o := range [][2]string{{"--oauth-client-id", "clientId"}, {"--oauth-client-secret", "clientSecret"},
			{"--oauth-callback-port", "callbackPort"}, {"--oauth-client-name", "clientName"}, {"--oauth-client-registration", "clientRegistration"}} {
			if !a.has(o[0]) {
				continue
			}
			v := a.str(o[0])
			val := mustMarshal(v)
			if o[1] == "callbackPort" {
				n, err := strconv.Atoi(v)
				if err != nil {
					fmt.Fprintf(c.Stderr, "pigo mcp add: --oauth-callback-port must be a port number, got %q\n", v)
					return ExitUsage
				}
				val = mustMarshal(n)
			}
			oauth = append(oauth, [2]string{o[1], string(val)})
		}
		if len(oauth) > 0 {
			b := []byte{'{'}
			for i, kv := range oauth {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(append(append(b, mustMarshal(kv[0])...), ':'), kv[1]...)
			}
			add("oauth", append(b, '}'))
		}
	} else {
		add("command", mustMarshal(command[0]))
		if len(command) > 1 {
			add("args", mustMarshal(command[1:]))
		}
		env, order, err := pairs("env", a.list("--env"))
		if err != nil {
			fmt.Fprintln(c.Stderr, "pigo mcp add: "+err.Error())
			return ExitUsage
		}
		if len(order) > 0 {
			add("env", orderedObject(env, order))
		}
		if a.has("--cwd") {
			add("cwd", mustMarshal(a.str("--cwd")))
		}
	}
	if a.has("--exposure") {
		add("exposure", mustMarshal(a.str("--exposure")))
	}
	if a.has("--description") {
		add("description", mustMarshal(a.str("--description")))
	}
	entry := []byte{'{'}
	for i, kv := range members {
		if i > 0 {
			entry = append(entry, ',')
		}
		entry = append(append(append(entry, mustMarshal(kv[0])...), ':'), kv[1]...)
	}
	entry = append(entry, '}')
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	// pi's validation of the one entry first, with its message.
	if msg := config.ValidateMCPEntry(name, entry); msg != "" {
		fmt.Fprintln(c.Stderr, "pigo mcp add: "+msg)
		return ExitFailed
	}
	scope := mcpScope(a)
	path := cfg.Path(config.MCP, scope)
	replaced := cfg.MCPDefines(scope, name)
	ch, err := cfg.Apply(config.MCP, scope, false, config.EditOp{Op: config.OpSet, Path: "mcpServers." + quotePathKey(name), Value: entry})
	if err != nil {
		return c.editFailure("mcp add", err)
	}
	_ = ch
	verb := "Added"
	if replaced {
		verb = "Replaced"
	}
	fmt.Fprintf(c.Stdout, "%s %s MCP server %q in %s.\n", verb, scopeWord(scope), name, path)
	if scope == config.Project && !cfg.ProjectTrusted() {
		fmt.Fprintf(c.Stdout, "The project is not trusted, so %s is ignored until you trust it (pigo trust).\n", path)
	}
	hint := ""
	if url != "" && !hasAuthorization(a.list("--header")) && a.str("--bearer-token-env-var") == "" {
		hint = ". If it requires sign-in: pigo mcp login " + name
	}
	fmt.Fprintf(c.Stdout, "Check it with: pigo mcp list%s\n", hint)
	return ExitOK
}

func hasAuthorization(headers []string) bool {
	for _, h := range headers {
		k, _, _ := strings.Cut(h, "=")
		if strings.EqualFold(k, "authorization") {
			return true
		}
	}
	return false
}

func scopeWord(s config.Scope) string {
	if s == config.Project {
		return "project"
	}
	return "global"
}

// quotePathKey writes a server name as a config path key (names are [A-Za-z0-9_-]; anything
// else is quoted so the path stays one key).
func quotePathKey(name string) string {
	if mcp.ValidServerName(name) {
		return name
	}
	return "[" + strconv.Quote(name) + "]"
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
	scope := mcpScope(a)
	path := cfg.Path(config.MCP, scope)
	if !cfg.MCPDefines(scope, name) {
		msg := fmt.Sprintf("No %s MCP server named %q in %s.", scopeWord(scope), name, path)
		other := config.Global
		if scope == config.Global {
			other = config.Project
		}
		if cfg.MCPDefines(other, name) {
			hint := "; omit --local"
			if other == config.Project {
				hint = "; use --local"
			}
			msg += fmt.Sprintf(" It is defined in %s%s.", cfg.Path(config.MCP, other), hint)
		}
		fmt.Fprintln(c.Stderr, "pigo mcp remove: "+msg)
		return ExitFailed
	}
	if _, err := cfg.Apply(config.MCP, scope, false, config.EditOp{Op: config.OpUnset, Path: "mcpServers." + quotePathKey(name)}); err != nil {
		return c.editFailure("mcp remove", err)
	}
	fmt.Fprintf(c.Stdout, "Removed %s MCP server %q from %s.\n", scopeWord(scope), name, path)
	return ExitOK
}

// mcpReport is one server in `pigo mcp list --json` (pi's shape).
type mcpReport struct {
	Name         string            `json:"name"`
	Scope        string            `json:"scope"`
	Source       string            `json:"source"`
	Line         int               `json:"line,omitempty"`
	Override     string            `json:"override,omitempty"`
	Enabled      bool              `json:"enabled"`
	Exposure     string            `json:"exposure"`
	Transport    string            `json:"transport"`
	Sandbox      string            `json:"sandbox,omitempty"`
	AuthProvider string            `json:"authProvider,omitempty"`
	State        string            `json:"state"`
	Tools        []string          `json:"tools"`
	ToolExposure map[string]string `json:"toolExposure,omitempty"`
	Resources    bool              `json:"resources,omitempty"`
	Error        string            `json:"error,omitempty"`
}

type mcpListJSON struct {
	Version int         `json:"version"`
	Servers []mcpReport `json:"servers"`
	Errors  []string    `json:"errors"`
	Note    string      `json:"note,omitempty"`
}

// sandboxOf says how a stdio server runs.
func sandboxOf(s *mcp.Server) string {
	if s.Transport != mcp.Stdio {
		return ""
	}
	switch {
	case s.Sandbox.Off:
		return "off"
	case s.Sandbox.Widens():
		return "widened"
	}
	return "sandboxed"
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
	opts := c.mcpOptions(cfg, pol)
	mgr := mcpclient.NewManager(conf.Servers, opts, cfg.MCPCache(), nil)
	mgr.Start()
	mgr.Wait(context.Background(), nil)
	defer mgr.Close()
	var errs []string
	for _, d := range conf.Diags {
		if d.Severity == diag.Error {
			errs = append(errs, noteLine(d))
		}
	}
	note := ""
	if conf.Ignored != "" {
		note = fmt.Sprintf("%s is ignored because the project is not trusted (pigo trust).", conf.Ignored)
	}
	reports := []mcpReport{}
	failed := len(errs) > 0
	for _, conn := range mgr.Conns() {
		s := conn.Server
		r := mcpReport{Name: s.Name, Scope: s.Scope, Source: s.Source.File, Line: s.Source.Line, Enabled: s.Enabled,
			Exposure: s.ServerExposure(), Transport: s.Describe(), Sandbox: sandboxOf(s), AuthProvider: s.AuthProvider,
			State: "disabled", Tools: []string{}}
		if s.Override != nil {
			r.Override = s.Override.File
		}
		if s.Enabled {
			st, e := conn.State()
			r.State = st
			for _, t := range conn.Tools() {
				r.Tools = append(r.Tools, t.Name)
				if x := s.ToolExposureOf(t.Name); x != r.Exposure {
					if r.ToolExposure == nil {
						r.ToolExposure = map[string]string{}
					}
					r.ToolExposure[t.Name] = x
				}
			}
			r.Resources = conn.HasResources()
			if st != mcpclient.StateConnected {
				r.Error = e
				failed = true
			}
		}
		reports = append(reports, r)
	}
	if a.has("--json") || a.str("--format") == "json" {
		c.writeJSON(mcpListJSON{Version: 1, Servers: reports, Errors: append([]string{}, errs...), Note: note})
		if failed {
			return ExitFailed
		}
		return ExitOK
	}
	w := c.Stdout
	if len(reports) == 0 && len(errs) == 0 {
		fmt.Fprintf(w, "No MCP servers configured. Add them to %s or .pi/mcp.json.\n", conf.GlobalFile)
	}
	for _, r := range reports {
		state := r.State
		switch r.State {
		case mcpclient.StateConnected:
			state = "connected, " + plural(len(r.Tools), "tool")
		case mcpclient.StateNeedsAuth:
			state = "needs sign-in"
		}
		fmt.Fprintf(w, "%s: %s (%s, %s)\n", r.Name, state, r.Exposure, r.Scope)
		fmt.Fprintf(w, "  %s\n", r.Transport)
		if r.Sandbox != "" && r.Sandbox != "sandboxed" {
			fmt.Fprintf(w, "  sandbox: %s\n", r.Sandbox)
		}
		if r.Override != "" {
			fmt.Fprintf(w, "  project override: %s\n", r.Override)
		}
		if r.State == mcpclient.StateNeedsAuth {
			if r.AuthProvider != "" {
				fmt.Fprintf(w, "  sign in with: /login %s in pigo\n", r.AuthProvider)
			} else {
				fmt.Fprintf(w, "  sign in with: pigo mcp login %s\n", r.Name)
			}
		}
		if len(r.Tools) > 0 {
			names := make([]string, len(r.Tools))
			for i, t := range r.Tools {
				names[i] = t
				if x, ok := r.ToolExposure[t]; ok {
					names[i] += " [" + x + "]"
				}
			}
			fmt.Fprintf(w, "  tools: %s\n", strings.Join(names, ", "))
		}
		if r.Resources {
			fmt.Fprintln(w, "  offers resources")
		}
		if r.Error != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(r.Error, "\n", "\n  "))
		}
	}
	for _, e := range errs {
		fmt.Fprintf(w, "config error: %s\n", e)
	}
	if note != "" {
		fmt.Fprintln(w, note)
	}
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
	conf := cfg.MCP()
	s := conf.Server(name)
	if s == nil {
		var names []string
		for _, x := range conf.Servers {
			names = append(names, x.Name)
		}
		msg := fmt.Sprintf("No MCP server named %q.", name)
		if sug := suggestName(name, names); sug != "" {
			msg += fmt.Sprintf(" Did you mean %q?", sug)
		}
		if conf.Ignored != "" {
			msg += fmt.Sprintf(" %s is ignored because the project is not trusted.", conf.Ignored)
		}
		list := "none"
		if len(names) > 0 {
			list = strings.Join(names, ", ")
		}
		fmt.Fprintf(c.Stderr, "pigo mcp %s: %s Configured: %s.\n", cmd, msg, list)
		return ExitFailed
	}
	switch {
	case a.has("--local") && s.Scope != string(config.Project):
		fmt.Fprintf(c.Stderr, "pigo mcp %s: MCP server %q is defined in %s, not in the project; omit --local.\n", cmd, name, s.Source.File)
		return ExitFailed
	case s.AuthProvider != "":
		fmt.Fprintf(c.Stderr, "pigo mcp %s: MCP server %q uses the credentials of provider %q. Run \"pigo auth %s %s\".\n", cmd, name, s.AuthProvider, cmd, s.AuthProvider)
		return ExitFailed
	case !s.UsesOAuth():
		fmt.Fprintf(c.Stderr, "pigo mcp %s: MCP server %q does not use OAuth. Only HTTP servers without an Authorization header do.\n", cmd, name)
		return ExitFailed
	}
	auth := mcpAuth(cfg)
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
	opts := c.mcpOptions(cfg, pol)
	opts.Auth = auth
	conn := mcpclient.NewConn(s, opts, nil, nil)
	defer conn.Close()
	ctx := context.Background()
	// Connecting first says whether a sign-in is needed and records the server's challenge.
	if err := conn.Open(ctx); err == nil {
		fmt.Fprintf(c.Stdout, "Already signed in to MCP server %q (%s).\n", name, plural(len(conn.Tools()), "tool"))
		return ExitOK
	} else if st, msg := conn.State(); st != mcpclient.StateNeedsAuth {
		if msg == "" {
			msg = err.Error()
		}
		fmt.Fprintf(c.Stderr, "pigo mcp login: MCP server %q failed to connect: %s\n", name, msg)
		return ExitFailed
	}
	sctx, cancel := context.WithTimeout(ctx, time.Duration(timeout*float64(time.Second)))
	defer cancel()
	prompt := mcpclient.SignInPrompt{ShowURL: func(u string) {
		fmt.Fprintf(c.Stdout, "Sign in to MCP server %q in your browser:\n%s\n", name, u)
		c.openURL(u)
	}}
	if c.Terminal && c.Stdin != nil {
		prompt.PastedURL = func(ctx context.Context) string {
			fmt.Fprint(c.Stderr, "If the browser cannot reach this machine, paste the URL it was redirected to: ")
			line := make(chan string, 1)
			go func() {
				r := bufio.NewReader(c.Stdin)
				s, _ := r.ReadString('\n')
				line <- s
			}()
			select {
			case s := <-line:
				return s
			case <-ctx.Done():
				return ""
			}
		}
	}
	if err := auth.SignIn(sctx, s, conn.Challenge(), prompt); err != nil {
		if errors.Is(err, mcpclient.ErrSignInCancelled) || sctx.Err() != nil {
			fmt.Fprintf(c.Stderr, "pigo mcp login: Sign-in to MCP server %q was cancelled or not completed within %s seconds.\n", name, strconv.FormatFloat(timeout, 'f', -1, 64))
		} else {
			fmt.Fprintf(c.Stderr, "pigo mcp login: Sign-in to MCP server %q failed: %v\n", name, err)
		}
		return ExitFailed
	}
	if err := conn.Reconnect(ctx); err != nil {
		fmt.Fprintf(c.Stderr, "pigo mcp login: Signed in, but %v\n", err)
		return ExitFailed
	}
	fmt.Fprintf(c.Stdout, "Signed in to MCP server %q (%s).\n", name, plural(len(conn.Tools()), "tool"))
	return ExitOK
}

// openURL opens a URL in the user's browser: $BROWSER, else xdg-open or open when installed.
// Failures are ignored: the URL is printed too. Tests set CLI.OpenURL.
func (c *CLI) openURL(u string) {
	if c.OpenURL != nil {
		c.OpenURL(u)
		return
	}
	prog := c.getenv("BROWSER")
	if prog == "" {
		for _, p := range []string{"xdg-open", "open"} {
			if _, err := exec.LookPath(p); err == nil {
				prog = p
				break
			}
		}
	}
	if prog == "" {
		return
	}
	cmd := exec.Command(prog, u)
	if cmd.Start() == nil {
		go func() { _ = cmd.Wait() }()
	}
}

package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// The connection states (pi's McpServerConnection).
const (
	StateConnecting   = "connecting"
	StateConnected    = "connected"
	StateFailed       = "failed"
	StateNeedsAuth    = "needs-auth"
	StateDisconnected = "disconnected"
	StateClosed       = "closed"
)

// maxListPages bounds a paginated list (pi's MAX_LIST_PAGES).
const maxListPages = 1000

// MaxTools bounds the tools one server may announce: the rest are dropped and reported.
var MaxTools = 2000

// stderrTailChars is how much of a failed stdio server's stderr an error shows (pi's).
const stderrTailChars = 2000

// connectRetryDelays are the waits between attempts to connect to an HTTP server that failed
// with a transient error (pi's CONNECT_RETRY_DELAYS_MS).
var connectRetryDelays = []time.Duration{250 * time.Millisecond, time.Second}

// Options is what every connection of a session shares.
type Options struct {
	// Cwd is the session directory: the default working directory of stdio servers and the
	// root offered to servers.
	Cwd string
	// Home is $HOME ("~/" in command, args and cwd).
	Home string
	// ClientName and ClientVersion are sent in initialize.
	ClientName, ClientVersion string
	// Resolve resolves an env or header value (${VAR}, "!command"); what names it in errors.
	Resolve func(value, what string) (string, error)
	// Sandbox is the session's sandbox policy; stdio servers run under it unless their entry
	// opts out. Environ is the host environment the plan is made for.
	Sandbox sandbox.Policy
	Environ sandbox.Environ
	// HostEnv is the host's environment, passed whole only to a server that opts out of the
	// sandbox (as pi passes it to every server).
	HostEnv []string
	// Log receives the servers' log notifications (nil: none).
	Log *Log
	// Auth signs HTTP requests of OAuth servers (nil: no OAuth).
	Auth AuthProvider
	// ProviderToken returns the current token of a /login provider (an HTTP entry's
	// auth.provider), read before every request: the provider's API key or OAuth access token,
	// refreshed when it expires. "" (no credential) sends no Authorization header, and the
	// server's 401 then asks for /login PROVIDER. nil: no provider sign-in.
	ProviderToken func(ctx context.Context, provider string) (string, error)
	// HTTPClient is used for HTTP servers (nil: a client with pigo's timeouts).
	HTTPClient HTTPDoer
}

// Conn is one configured server. It connects lazily: the first call opens it, and a call
// that finds the connection gone opens it again.
type Conn struct {
	Server *mcp.Server
	opts   *Options
	// onTools is called when the tool list changed (connected, list_changed); onChange on
	// every state change.
	onTools  func(*Conn)
	onChange func(*Conn)

	mu           sync.Mutex
	state        string
	err          string
	tools        []mcp.Tool
	dropped      int
	hasResources bool
	instructions string
	cl           *client
	opening      chan struct{}
	openErr      error
	stderr       string
	shutdown     bool
	challenge    *Challenge
}

// NewConn returns the connection of one server; nothing starts until Open or a call.
func NewConn(s *mcp.Server, o *Options, onTools, onChange func(*Conn)) *Conn {
	return &Conn{Server: s, opts: o, onTools: onTools, onChange: onChange, state: StateConnecting}
}

// State returns the state and, for a failed or disconnected server, why.
func (c *Conn) State() (state, err string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state, c.err
}

// Tools returns the tools the server offers (nil before it connected).
func (c *Conn) Tools() []mcp.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools
}

// List returns the server's tool list as the schema cache stores it (nil before it connected).
func (c *Conn) List() *mcp.ToolList {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state != StateConnected && c.tools == nil {
		return nil
	}
	return &mcp.ToolList{Server: c.Server.Name, Tools: c.tools, Instructions: c.instructions, HasResources: c.hasResources, Time: time.Now(), Normalized: true}
}

// HasResources reports whether the server offers resources.
func (c *Conn) HasResources() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hasResources
}

// Instructions are the server's instructions from initialize.
func (c *Conn) Instructions() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.instructions
}

// Dropped is how many announced tools were left out over MaxTools.
func (c *Conn) Dropped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

func (c *Conn) changed() {
	if c.onChange != nil {
		c.onChange(c)
	}
}

// timeout is the per-request timeout.
func (c *Conn) timeout() time.Duration {
	return time.Duration(c.Server.TimeoutSeconds() * float64(time.Second))
}

// client returns the open session, opening it when needed. Concurrent callers share one
// attempt.
func (c *Conn) client(ctx context.Context) (*client, error) {
	c.mu.Lock()
	if c.shutdown {
		c.mu.Unlock()
		return nil, fmt.Errorf("MCP server %q is shut down", c.Server.Name)
	}
	if c.cl != nil && c.cl.connected() {
		cl := c.cl
		c.mu.Unlock()
		return cl, nil
	}
	ch := c.opening
	if ch == nil {
		ch = make(chan struct{})
		c.opening = ch
		c.mu.Unlock()
		go func() {
			err := c.open()
			c.mu.Lock()
			c.openErr = err
			c.opening = nil
			c.mu.Unlock()
			close(ch)
		}()
	} else {
		c.mu.Unlock()
	}
	select {
	case <-ch:
	case <-ctx.Done():
		return nil, ErrAborted
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cl != nil && c.cl.connected() {
		return c.cl, nil
	}
	if c.openErr != nil {
		return nil, c.openErr
	}
	return nil, fmt.Errorf("MCP server %q is not connected", c.Server.Name)
}

// Open connects (or waits for a connection in progress); the error is also in State.
func (c *Conn) Open(ctx context.Context) error {
	_, err := c.client(ctx)
	return err
}

func (c *Conn) open() error {
	c.mu.Lock()
	c.state, c.err = StateConnecting, ""
	c.mu.Unlock()
	c.changed()
	var retries []time.Duration
	if c.Server.Transport == mcp.HTTP {
		retries = connectRetryDelays
	}
	for attempt := 0; ; attempt++ {
		err := c.connectOnce()
		if err == nil {
			return nil
		}
		c.mu.Lock()
		down := c.shutdown
		c.mu.Unlock()
		if down || attempt >= len(retries) || !transient(err) {
			return c.connectFailed(err)
		}
		time.Sleep(retries[attempt])
	}
}

// connectFailed records a failed connection and returns the error callers see.
func (c *Conn) connectFailed(err error) error {
	c.mu.Lock()
	if c.needsSignIn(err) && !c.shutdown {
		c.state, c.err = StateNeedsAuth, ""
		c.mu.Unlock()
		c.changed()
		return errors.New(signInRequired(c.Server))
	}
	msg := err.Error()
	if c.stderr != "" {
		msg += "\n" + c.stderr
	}
	c.state, c.err = StateFailed, msg
	if c.shutdown {
		c.state = StateClosed
	}
	c.mu.Unlock()
	c.changed()
	return fmt.Errorf("MCP server %q failed to connect: %s", c.Server.Name, msg)
}

func signInRequired(s *mcp.Server) string {
	how := "/mcp"
	if s.AuthProvider != "" {
		how = "/login " + s.AuthProvider
	}
	return fmt.Sprintf("MCP server %q requires sign-in. Run %s to sign in.", s.Name, how)
}

// connectOnce starts the transport, initializes, and lists the tools.
func (c *Conn) connectOnce() error {
	t, err := c.transport()
	if err != nil {
		return err
	}
	cl := newClient(t, c.opts.ClientName, c.opts.ClientVersion, c.timeout())
	if c.opts.Cwd != "" {
		u := url.URL{Scheme: "file", Path: c.opts.Cwd}
		cl.roots = []Root{{URI: u.String(), Name: filepath.Base(c.opts.Cwd)}}
	}
	cl.onNotification = func(method string, params json.RawMessage) {
		switch method {
		case "notifications/message":
			if c.opts.Log != nil {
				c.opts.Log.Write(c.Server.Name, params)
			}
		case "notifications/tools/list_changed":
			go c.refreshTools(cl)
		}
	}
	cl.onClose = func(error) { c.clientClosed(cl, t) }
	c.mu.Lock()
	c.stderr = ""
	c.mu.Unlock()
	// Each request of the handshake has the server's timeout; the whole connect ends with Close.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				c.mu.Lock()
				down := c.shutdown
				c.mu.Unlock()
				if down {
					cancel()
					return
				}
			}
		}
	}()
	init, err := cl.connect(ctx)
	if err == nil {
		var tools []mcp.Tool
		total := 0
		if _, ok := init.Capabilities["tools"]; ok {
			tools, total, err = c.listTools(ctx, cl)
		}
		if err == nil && !cl.connected() {
			err = errors.New("connection closed during setup")
		}
		if err == nil {
			c.mu.Lock()
			if c.shutdown {
				c.mu.Unlock()
				cl.close()
				return errors.New("shut down while connecting")
			}
			_, res := init.Capabilities["resources"]
			c.cl, c.state, c.err = cl, StateConnected, ""
			c.setTools(tools, total)
			c.hasResources, c.instructions = res, strings.TrimSpace(init.Instructions)
			c.mu.Unlock()
			if c.onTools != nil {
				c.onTools(c)
			}
			c.changed()
			return nil
		}
	}
	cl.close()
	if st, ok := t.(*stdioTransport); ok {
		c.mu.Lock()
		c.stderr = tailChars(strings.TrimSpace(st.stderrTail()), stderrTailChars)
		c.mu.Unlock()
	}
	if errors.Is(err, ErrClosed) {
		if st, ok := t.(*stdioTransport); ok && st.stderrTail() != "" {
			return errors.New("MCP connection closed")
		}
	}
	return err
}

// setTools keeps a new tool list and how many tools were left out (c.mu held).
func (c *Conn) setTools(tools []mcp.Tool, total int) {
	c.tools, c.dropped = tools, max(0, total-len(tools))
}

func tailChars(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

// listTools lists every page of tools (pi: up to 1000 pages; a repeated cursor fails). It keeps
// at most MaxTools and returns how many the server announced.
func (c *Conn) listTools(ctx context.Context, cl *client) ([]mcp.Tool, int, error) {
	var out []mcp.Tool
	total := 0
	cursors := map[string]bool{}
	cursor := ""
	for page := 0; page < maxListPages; page++ {
		var params json.RawMessage
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		raw, err := cl.request(ctx, "tools/list", params, requestOptions{})
		if err != nil {
			return nil, 0, err
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor json.RawMessage   `json:"nextCursor"`
		}
		if json.Unmarshal(raw, &res) != nil || res.Tools == nil {
			return nil, 0, &RPCError{Code: codeInvalidRequest, Message: "Invalid MCP tools/list result"}
		}
		for _, t := range res.Tools {
			var tool mcp.Tool
			var shape struct {
				Name        *string         `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if json.Unmarshal(t, &shape) != nil || shape.Name == nil || len(shape.InputSchema) == 0 || shape.InputSchema[0] != '{' {
				return nil, 0, &RPCError{Code: codeInvalidRequest, Message: "Invalid entry in MCP tools/list result"}
			}
			if err := json.Unmarshal(t, &tool); err != nil {
				// Annotations of another shape: keep the tool without them.
				var bare struct {
					Name         string          `json:"name"`
					Title        string          `json:"title"`
					Description  string          `json:"description"`
					InputSchema  json.RawMessage `json:"inputSchema"`
					OutputSchema json.RawMessage `json:"outputSchema"`
				}
				_ = json.Unmarshal(t, &bare)
				tool = mcp.Tool{Name: bare.Name, Title: bare.Title, Description: bare.Description, InputSchema: bare.InputSchema, OutputSchema: bare.OutputSchema}
			}
			total++
			if len(out) < MaxTools {
				out = append(out, tool)
			}
		}
		next := ""
		if len(res.NextCursor) > 0 && string(res.NextCursor) != "null" {
			if json.Unmarshal(res.NextCursor, &next) != nil {
				return nil, 0, &RPCError{Code: codeInvalidRequest, Message: "Invalid MCP tools/list cursor"}
			}
		}
		if next == "" {
			l := mcp.ToolList{Tools: out}
			l.Normalize()
			return l.Tools, total, nil
		}
		if cursors[next] {
			return nil, 0, fmt.Errorf("MCP tools/list returned duplicate cursor: %s", next)
		}
		cursors[next] = true
		cursor = next
	}
	return nil, 0, fmt.Errorf("MCP tools/list exceeded %d pages", maxListPages)
}

// refreshTools reads the tool list again after list_changed.
func (c *Conn) refreshTools(cl *client) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout())
	defer cancel()
	tools, total, err := c.listTools(ctx, cl)
	c.mu.Lock()
	if c.cl != cl || c.shutdown {
		c.mu.Unlock()
		return
	}
	if err != nil {
		c.err = "Failed to refresh tools: " + err.Error()
		c.mu.Unlock()
		c.changed()
		return
	}
	c.setTools(tools, total)
	c.mu.Unlock()
	if c.onTools != nil {
		c.onTools(c)
	}
	c.changed()
}

// clientClosed: the transport dropped. The next call reconnects; until then State says why.
func (c *Conn) clientClosed(cl *client, t transport) {
	c.mu.Lock()
	if c.cl != cl || c.shutdown {
		c.mu.Unlock()
		return
	}
	c.cl = nil
	c.state = StateDisconnected
	c.err = "Connection closed"
	if st, ok := t.(*stdioTransport); ok {
		if s := tailChars(strings.TrimSpace(st.stderrTail()), stderrTailChars); s != "" {
			c.err += "\n" + s
		}
	}
	c.mu.Unlock()
	c.changed()
}

// Reconnect drops the session and connects again.
func (c *Conn) Reconnect(ctx context.Context) error {
	c.mu.Lock()
	cl := c.cl
	c.cl = nil
	c.mu.Unlock()
	if cl != nil {
		cl.close()
	}
	return c.Open(ctx)
}

// Suspend ends the connection (a disabled server); Reconnect or a call opens it again.
func (c *Conn) Suspend() {
	c.mu.Lock()
	cl := c.cl
	c.cl = nil
	c.state = StateClosed
	c.mu.Unlock()
	if cl != nil {
		cl.close()
	}
	c.changed()
}

// Close ends the connection (the stdio server is stopped) and keeps it closed.
func (c *Conn) Close() {
	c.mu.Lock()
	c.shutdown = true
	cl := c.cl
	c.cl = nil
	c.state = StateClosed
	opening := c.opening
	c.mu.Unlock()
	if cl != nil {
		cl.close()
	}
	if opening != nil {
		<-opening
		c.mu.Lock()
		cl = c.cl
		c.cl = nil
		c.mu.Unlock()
		if cl != nil {
			cl.close()
		}
	}
	c.changed()
}

// withClient runs a request, opening the connection when needed. readOnly requests are
// retried once after a transient HTTP error; tool calls are not, since they may have run. A
// session the server no longer knows is retried once on a new session.
func (c *Conn) withClient(ctx context.Context, readOnly bool, run func(*client) (json.RawMessage, error)) (json.RawMessage, error) {
	for attempt := 1; ; attempt++ {
		cl, err := c.client(ctx)
		if err != nil {
			return nil, err
		}
		raw, err := run(cl)
		if err == nil {
			return raw, nil
		}
		var he *HTTPError
		if readOnly && attempt == 1 && errors.As(err, &he) && transient(err) {
			time.Sleep(connectRetryDelays[0])
			continue
		}
		if errors.Is(err, errSessionExpired) && attempt == 1 {
			c.mu.Lock()
			if c.cl == cl {
				c.cl = nil
			}
			c.mu.Unlock()
			continue
		}
		if c.needsSignIn(err) {
			c.mu.Lock()
			if c.cl == cl {
				c.cl = nil
			}
			c.state, c.err = StateNeedsAuth, ""
			c.mu.Unlock()
			cl.close()
			c.changed()
			return nil, errors.New(signInRequired(c.Server))
		}
		return nil, err
	}
}

// CallTool calls a tool; progress (may be nil) receives progress notifications, each of which
// resets the request's timeout.
func (c *Conn) CallTool(ctx context.Context, tool string, args json.RawMessage, progress func(Progress)) (json.RawMessage, error) {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	params := append([]byte(`{"name":`), mustJSON(tool)...)
	params = append(append(append(params, `,"arguments":`...), args...), '}')
	return c.withClient(ctx, false, func(cl *client) (json.RawMessage, error) {
		return cl.request(ctx, "tools/call", params, requestOptions{onProgress: progress})
	})
}

// Request sends a read-only request (resources/list, resources/read, …).
func (c *Conn) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.withClient(ctx, true, func(cl *client) (json.RawMessage, error) {
		return cl.request(ctx, method, params, requestOptions{})
	})
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// transport builds the server's transport.
func (c *Conn) transport() (transport, error) {
	s := c.Server
	if s.Transport == mcp.HTTP {
		headers := map[string]string{}
		for k, v := range s.Headers {
			r, err := c.resolve(v, fmt.Sprintf("MCP server %q header %q", s.Name, k))
			if err != nil {
				return nil, err
			}
			headers[k] = r
		}
		var auth tokenSource
		switch {
		case s.AuthProvider != "" && c.opts.ProviderToken == nil:
			return nil, fmt.Errorf("MCP server %q sends the token of provider %q (auth.provider), and this pigo has no provider sign-in to take it from", s.Name, s.AuthProvider)
		case s.AuthProvider != "":
			p := s.AuthProvider
			auth = providerToken(func(ctx context.Context) (string, error) { return c.opts.ProviderToken(ctx, p) })
		case s.UsesOAuth() && c.opts.Auth != nil:
			auth = c.opts.Auth.For(s, func(ch *Challenge) {
				c.mu.Lock()
				c.challenge = ch
				c.mu.Unlock()
			})
		}
		return newHTTP(s.URL, headers, auth, c.opts.HTTPClient), nil
	}
	env := map[string]string{}
	for k, v := range s.Env {
		r, err := c.resolve(v, fmt.Sprintf("MCP server %q env %q", s.Name, k))
		if err != nil {
			return nil, err
		}
		env[k] = r
	}
	home := c.opts.Home
	command := expandHome(s.Command, home)
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		args[i] = expandHome(a, home)
	}
	cwd := c.opts.Cwd
	if s.Cwd != "" {
		cwd = expandHome(s.Cwd, home)
		if !filepath.IsAbs(cwd) {
			cwd = filepath.Join(c.opts.Cwd, cwd)
		}
	}
	return newStdio(func() (*sandbox.Process, error) { return c.startProcess(command, args, cwd, env) }), nil
}

func (c *Conn) resolve(v, what string) (string, error) {
	if c.opts.Resolve == nil {
		return v, nil
	}
	return c.opts.Resolve(v, what)
}

// expandHome replaces a leading "~/" (or a lone "~") by home, as a shell does.
func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// startProcess starts a stdio server: in the session's sandbox (widened as the entry says),
// or directly when the entry opts out.
func (c *Conn) startProcess(command string, args []string, cwd string, env map[string]string) (*sandbox.Process, error) {
	s := c.Server
	pol := c.opts.Sandbox
	if s.Sandbox.Off {
		pol.FSMode, pol.NetMode = sandbox.FSAllowAll, sandbox.NetAllowAll
	}
	pol.ExtraWritablePaths = append(append([]string{}, pol.ExtraWritablePaths...), s.Sandbox.WritablePaths...)
	if s.Sandbox.Network != "" {
		pol.NetMode = s.Sandbox.Network
	}
	pl, err := sandbox.NewPlan(pol, cwd, c.opts.Environ)
	if err != nil {
		return nil, err
	}
	exe, err := lookPath(command, env["PATH"], c.opts.Environ.Path, cwd)
	if err != nil {
		return nil, err
	}
	return sandbox.Start(pl, append([]string{exe}, args...), sandbox.StartOptions{Dir: cwd, Env: c.environment(pl, env)})
}

// environment is a stdio server's environment. Inside the sandbox: the sandbox's own
// variables with the host's PATH (so "npx" and "node" resolve as in a shell), then the
// entry's env; no other variable of pigo's environment reaches the server. A server that opts
// out of the sandbox gets pigo's whole environment, as every server does under pi.
func (c *Conn) environment(pl *sandbox.Plan, extra map[string]string) []string {
	base := pl.Env
	if !pl.Sandboxed && c.Server.Sandbox.Off {
		base = c.opts.HostEnv
		if base == nil {
			base = os.Environ()
		}
	}
	out := make([]string, 0, len(base)+len(extra)+1)
	set := map[string]int{}
	add := func(k, v string) {
		if i, ok := set[k]; ok {
			out[i] = k + "=" + v
			return
		}
		set[k] = len(out)
		out = append(out, k+"="+v)
	}
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		add(k, v)
	}
	if c.opts.Environ.Path != "" && !c.Server.Sandbox.Off {
		add("PATH", c.opts.Environ.Path)
	}
	for k, v := range extra {
		add(k, v)
	}
	return out
}

// lookPath finds command as a shell would with PATH (the entry's, else the host's); a name
// with a slash is taken relative to cwd.
func lookPath(command, entryPath, hostPath, cwd string) (string, error) {
	if strings.Contains(command, "/") {
		if !filepath.IsAbs(command) {
			command = filepath.Join(cwd, command)
		}
		if fi, err := os.Stat(command); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("spawn %s ENOENT: no executable at that path", command)
		}
		return command, nil
	}
	path := entryPath
	if path == "" {
		path = hostPath
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, command)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("spawn %s ENOENT: %q is not on PATH", command, command)
}

package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Client is one running language server, spoken to over its stdin/stdout.
type Client struct {
	plan   *ServerPlan
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	conn   *conn
	stderr *tailBuffer
	exited chan struct{} // closed when the process has been reaped
	waitEr error

	// utf8 is true when the server agreed to UTF-8 positions.
	utf8 bool

	mu      sync.Mutex
	pushes  map[string]*publish // by cleaned file path
	changed chan struct{}       // poked (non-blocking) on every publish
}

// publish is the latest textDocument/publishDiagnostics for one document.
type publish struct {
	seq         int // how many pushes for this path so far
	diagnostics []lspDiagnostic
}

type lspPosition struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type lspDiagnostic struct {
	Range struct {
		Start lspPosition `json:"start"`
		End   lspPosition `json:"end"`
	} `json:"range"`
	Severity int             `json:"severity"`
	Code     json.RawMessage `json:"code"`
	Source   string          `json:"source"`
	Message  string          `json:"message"`
}

// tailBuffer keeps the last bytes a server wrote to stderr, for errors.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const stderrTail = 4 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > stderrTail {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-stderrTail:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// fileURI returns the file:// URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// uriPath returns the cleaned path of a file:// URI, or "" for other URIs.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	return filepath.Clean(filepath.FromSlash(u.Path))
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// Start spawns the server of sp in its own process group and performs the
// initialize handshake (initialize, initialized, then
// workspace/didChangeConfiguration when settings are configured). The
// whole start is bounded by the plan's startup timeout; on any failure the
// process group is killed and the error says why, with the server's stderr
// tail when it has one.
func Start(ctx context.Context, sp *ServerPlan) (*Client, error) {
	if len(sp.Argv) == 0 {
		return nil, errors.New("empty argv")
	}
	cmd := exec.Command(sp.Argv[0], sp.Argv[1:]...)
	cmd.Dir = sp.Cwd
	cmd.Env = sp.Environ
	cmd.WaitDelay = 2 * time.Second
	setProcessGroup(cmd)
	c := &Client{plan: sp, cmd: cmd, stderr: &tailBuffer{}, exited: make(chan struct{}),
		pushes: map[string]*publish{}, changed: make(chan struct{}, 1)}
	cmd.Stderr = c.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Our own pipe, not StdoutPipe: Wait closes a StdoutPipe as soon as the process exits,
	// which can cut off what a crashing server wrote last (its reason) before it is read.
	stdout, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	if err := cmd.Start(); err != nil {
		stdout.Close()
		pw.Close()
		return nil, fmt.Errorf("starting %s: %w", sp.Argv[0], err)
	}
	pw.Close() // the child holds its copy; EOF comes when it exits
	c.stdin = stdin
	go func() {
		c.waitEr = cmd.Wait()
		close(c.exited)
	}()
	c.conn = newConn(stdout, stdin, handlers{request: c.handleRequest, notify: c.handleNotification})
	go func() {
		<-c.conn.Done() // the read loop has stopped: the pipe is ours to close
		stdout.Close()
	}()

	startCtx, cancel := context.WithTimeout(ctx, ms(sp.Timeouts.StartupMs))
	defer cancel()
	if err := c.initialize(startCtx); err != nil {
		c.Kill()
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer to initialize within %s", ms(sp.Timeouts.StartupMs))
		}
		return nil, c.withStderr(err)
	}
	return c, nil
}

// withStderr appends the tail of the server's stderr to err, if any.
func (c *Client) withStderr(err error) error {
	if tail := c.stderr.String(); tail != "" {
		return fmt.Errorf("%w; server stderr: %s", err, tail)
	}
	return err
}

func (c *Client) initialize(ctx context.Context) error {
	root := c.plan.Root
	params := map[string]any{
		"processId":  os.Getpid(),
		"clientInfo": map[string]any{"name": "pigo"},
		"rootUri":    fileURI(root),
		"rootPath":   root,
		"workspaceFolders": []any{
			map[string]any{"uri": fileURI(root), "name": filepath.Base(root)},
		},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
			"workspace": map[string]any{
				"configuration":          true,
				"workspaceFolders":       true,
				"didChangeConfiguration": map[string]any{"dynamicRegistration": true},
			},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"dynamicRegistration": false, "didSave": false},
				"publishDiagnostics": map[string]any{"relatedInformation": false, "versionSupport": true},
			},
			"window": map[string]any{"workDoneProgress": true},
		},
	}
	if c.plan.InitializationOptions != nil {
		params["initializationOptions"] = c.plan.InitializationOptions
	}
	var result struct {
		Capabilities struct {
			PositionEncoding string `json:"positionEncoding"`
		} `json:"capabilities"`
	}
	if err := c.conn.Call(ctx, "initialize", params, &result); err != nil {
		return err
	}
	c.utf8 = result.Capabilities.PositionEncoding == "utf-8"
	if err := c.conn.Notify("initialized", map[string]any{}); err != nil {
		return fmt.Errorf("initialized: %w", err)
	}
	if c.plan.Settings != nil {
		if err := c.conn.Notify("workspace/didChangeConfiguration", map[string]any{"settings": c.plan.Settings}); err != nil {
			return fmt.Errorf("workspace/didChangeConfiguration: %w", err)
		}
	}
	return nil
}

// handleRequest answers the requests a server may send us.
func (c *Client) handleRequest(method string, params json.RawMessage) (any, *rpcError) {
	switch method {
	case "workspace/configuration":
		var p struct {
			Items []struct {
				Section string `json:"section"`
			} `json:"items"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, &rpcError{Code: codeInvalidRequest, Message: "invalid params: " + err.Error()}
		}
		out := make([]any, len(p.Items))
		for i, it := range p.Items {
			out[i] = settingsSection(c.plan.Settings, it.Section)
		}
		return out, nil
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create":
		return nil, nil
	case "workspace/workspaceFolders":
		return []any{map[string]any{"uri": fileURI(c.plan.Root), "name": filepath.Base(c.plan.Root)}}, nil
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "method not supported by pigo: " + method}
}

// settingsSection returns the value at a dotted section path of settings
// ("" = all of them), or nil when it is absent.
func settingsSection(settings map[string]any, section string) any {
	if section == "" {
		if settings == nil {
			return nil
		}
		return settings
	}
	var cur any = settings
	for _, part := range strings.Split(section, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[part]; !ok {
			return nil
		}
	}
	return cur
}

func (c *Client) handleNotification(method string, params json.RawMessage) {
	if method != "textDocument/publishDiagnostics" {
		return // logs, progress, telemetry: not needed here
	}
	var p struct {
		URI         string          `json:"uri"`
		Diagnostics []lspDiagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return
	}
	path := uriPath(p.URI)
	if path == "" {
		return
	}
	c.mu.Lock()
	prev := c.pushes[path]
	seq := 1
	if prev != nil {
		seq = prev.seq + 1
	}
	c.pushes[path] = &publish{seq: seq, diagnostics: p.Diagnostics}
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// latest returns the latest publish for path (nil when none).
func (c *Client) latest(path string) *publish {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pushes[path]
}

// Open sends textDocument/didOpen for path with the given text.
func (c *Client) Open(path, languageID, text string) error {
	return c.conn.Notify("textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": fileURI(path), "languageId": languageID, "version": 1, "text": text},
	})
}

// errConnClosed reports a server that went away while we waited.
// It gives the process a moment to be reaped so the exit status and the
// whole stderr tail make it into the message.
func (c *Client) errConnClosed() error {
	select {
	case <-c.exited:
		status := "exited"
		if c.waitEr != nil {
			status = c.waitEr.Error()
		}
		return c.withStderr(fmt.Errorf("server stopped (%s): %v", status, c.conn.Err()))
	case <-time.After(time.Second):
		return c.withStderr(fmt.Errorf("server stopped: %v", c.conn.Err()))
	}
}

// WaitDiagnostics collects what the server publishes for path after Open,
// with the plan's waits. The reading of the reference implemented here:
//
//   - full wait (diagnosticsFullWaitTimeoutMs) bounds the whole collection;
//   - document wait (diagnosticsWaitMs, else diagnosticsDocumentWaitTimeoutMs)
//     bounds the wait for the first publish after the document was opened;
//     none in time means no diagnostics (timedOut is true);
//   - after a publish with diagnostics, the collection ends once the server
//     has been quiet for the debounce (diagnosticsDebounceMs), so a burst of
//     updates settles on the last one;
//   - after an empty publish, the silent wait (diagnosticsSilentWaitTimeoutMs)
//     gives a slower analysis pass time to publish a non-empty follow-up.
//
// The last publish wins. A server that dies while we wait is an error.
func (c *Client) WaitDiagnostics(ctx context.Context, path string, baseline int) (diags []lspDiagnostic, timedOut bool, err error) {
	t := c.plan.Timeouts
	start := time.Now()
	fullDeadline := start.Add(ms(t.FullWaitMs))
	deadline := start.Add(ms(t.DocumentWaitMs))
	if deadline.After(fullDeadline) {
		deadline = fullDeadline
	}
	seen := baseline
	got := false
	for {
		if p := c.latest(path); p != nil && p.seq > seen {
			seen = p.seq
			got = true
			diags = p.diagnostics
			quiet := ms(t.DebounceMs)
			if len(diags) == 0 {
				quiet = ms(t.SilentWaitMs)
			}
			deadline = time.Now().Add(quiet)
			if deadline.After(fullDeadline) {
				deadline = fullDeadline
			}
			continue
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return diags, !got, nil
		}
		timer := time.NewTimer(wait)
		select {
		case <-c.changed:
			timer.Stop()
		case <-timer.C:
		case <-c.conn.Done():
			timer.Stop()
			// Take what arrived before the end, then report the end.
			if p := c.latest(path); p != nil && p.seq > seen {
				diags = p.diagnostics
			}
			return diags, false, c.errConnClosed()
		case <-ctx.Done():
			timer.Stop()
			return diags, false, ctx.Err()
		}
	}
}

// Close shuts the server down cleanly (shutdown request, exit
// notification), waits for it to exit within the request timeout, and
// kills its process group when it does not.
func (c *Client) Close() error {
	reqTimeout := ms(c.plan.Timeouts.RequestMs)
	ctx, cancel := context.WithTimeout(context.Background(), reqTimeout)
	defer cancel()
	err := c.conn.Call(ctx, "shutdown", nil, nil)
	if err == nil {
		_ = c.conn.Notify("exit", nil)
	}
	_ = c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(reqTimeout):
		c.Kill()
		if err == nil {
			err = fmt.Errorf("server did not exit within %s after shutdown; killed", reqTimeout)
		}
	}
	if err != nil {
		c.Kill()
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// Kill kills the server's process group and waits for it to be reaped.
func (c *Client) Kill() {
	killGroup(c.cmd)
	_ = c.stdin.Close()
	<-c.exited
}

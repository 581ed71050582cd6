package aft

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure a session's client.
type Options struct {
	// Bin is the aft binary (Find).
	Bin string
	// Root is the session workspace: aft's project root and the process's working directory.
	Root string
	// SessionID scopes aft's per-session state; it also names the log folder.
	SessionID string
	// Log is the file the process's stderr goes to ("" discards it). LogPath builds the
	// seed's <agent dir>/tmp/<session id>/aft-plugin.log.
	Log string
	// Config is the user-level aft.jsonc, handed to aft as its user tier.
	Config Config
	// Env is the process environment (nil: the current one).
	Env []string
	// Timeout bounds one request (0: DefaultTimeout).
	Timeout time.Duration
}

// DefaultTimeout bounds one request, as the seed's bridge does for a tool call.
const DefaultTimeout = 25 * time.Second

// maxRestarts is how many times a session restarts a process that died.
const maxRestarts = 3

// maxLine bounds one response line (aft's largest answers are outlines of big trees).
const maxLine = 64 << 20

// LogPath is <agentDir>/tmp/<sessionID>/aft-plugin.log.
func LogPath(agentDir, sessionID string) string {
	return filepath.Join(agentDir, "tmp", sessionID, "aft-plugin.log")
}

// Response is one answer of aft.
type Response struct {
	Success bool
	// Code and Message are set on failures (Code: "file_not_found", "callgraph_building", …).
	Code, Message string
	// Text is the agent-facing rendering aft adds to tool_call answers.
	Text string
	// Fields is the whole answer as a JSON object without "id" and "success".
	Fields json.RawMessage
}

// Client is one session's resident aft process, started on the first call.
type Client struct {
	o Options

	mu       sync.Mutex
	p        *proc
	restarts int
	closed   bool
}

// New returns a client; nothing runs until the first call.
func New(o Options) *Client {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return &Client{o: o}
}

// ErrClosed is returned by calls after Close.
var ErrClosed = errors.New("aft: the session's aft process was closed")

// ToolCall runs one of aft's agent tools ("outline", "zoom", "callgraph", "search") with args.
// An answer with success false is a Response, not an error; errors are transport failures.
func (c *Client) ToolCall(ctx context.Context, name string, args any) (*Response, error) {
	return c.Send(ctx, "tool_call", map[string]any{"name": name, "arguments": args})
}

// Send sends one command with params (top-level request fields) and waits for its answer.
func (c *Client) Send(ctx context.Context, command string, params map[string]any) (*Response, error) {
	p, err := c.process(ctx)
	if err != nil {
		return nil, err
	}
	return p.request(ctx, command, params, c.o.SessionID, c.o.Timeout)
}

// process returns the running process, starting (and configuring) it when there is none.
func (c *Client) process(ctx context.Context) (*proc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if c.p != nil && !c.p.exited() {
		return c.p, nil
	}
	if c.p != nil {
		if c.restarts >= maxRestarts {
			return nil, fmt.Errorf("aft: the process exited %d times; not restarting it in this session (%v)", c.restarts+1, c.p.exitErr())
		}
		c.restarts++
	}
	p, err := start(c.o)
	if err != nil {
		return nil, err
	}
	params := map[string]any{"project_root": c.o.Root, "harness": "pi"}
	var tiers []map[string]string
	if c.o.Config.Doc != "" {
		tiers = append(tiers, map[string]string{"tier": "user", "source": c.o.Config.Path, "doc": c.o.Config.Doc})
		params["cortexkit_user_config_path"] = c.o.Config.Path
	}
	params["config"] = tiers
	resp, err := p.request(ctx, "configure", params, c.o.SessionID, c.o.Timeout)
	if err == nil && !resp.Success {
		err = fmt.Errorf("aft: configure failed: %s", orDefault(resp.Message, resp.Code))
	}
	if err != nil {
		p.stop()
		return nil, err
	}
	c.p = p
	return p, nil
}

// Close ends the process: stdin is closed (aft shuts down on its own), then it is killed when
// it has not exited within a few seconds. Later calls fail with ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	p := c.p
	c.closed, c.p = true, nil
	c.mu.Unlock()
	if p != nil {
		p.stop()
	}
	return nil
}

// Started reports whether a process is running (tests).
func (c *Client) Started() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.p != nil && !c.p.exited()
}

// Pid is the running process's id, 0 when none (tests).
func (c *Client) Pid() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p == nil || c.p.exited() {
		return 0
	}
	return c.p.cmd.Process.Pid
}

type reply struct {
	resp *Response
	err  error
}

type proc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	log   io.WriteCloser
	done  chan struct{}

	wmu sync.Mutex // one request line at a time

	mu      sync.Mutex
	pending map[string]chan reply
	next    int
	err     error    // why the process ended
	tail    []string // the last stderr lines
}

func start(o Options) (*proc, error) {
	cmd := exec.Command(o.Bin)
	cmd.Dir = o.Root
	cmd.Env = o.Env
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, stdin: stdin, done: make(chan struct{}), pending: map[string]chan reply{}}
	if o.Log != "" {
		if err := os.MkdirAll(filepath.Dir(o.Log), 0o700); err == nil {
			if f, err := os.OpenFile(o.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
				p.log = f
			}
		}
	}
	if err := cmd.Start(); err != nil {
		if p.log != nil {
			p.log.Close()
		}
		return nil, fmt.Errorf("aft: cannot start %s: %v", o.Bin, err)
	}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); p.readStderr(stderr) }()
	go func() { defer readers.Done(); p.readStdout(stdout) }()
	go func() {
		readers.Wait()
		werr := cmd.Wait()
		p.finish(werr)
		if p.log != nil {
			p.log.Close()
		}
	}()
	return p, nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) exitErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// finish records why the process ended and fails every pending request with it.
func (p *proc) finish(werr error) {
	p.mu.Lock()
	msg := "aft exited"
	if werr != nil {
		msg += " (" + werr.Error() + ")"
	}
	if len(p.tail) > 0 {
		msg += "; its last log lines:\n" + strings.Join(p.tail, "\n")
	}
	p.err = errors.New(msg)
	pending := p.pending
	p.pending = map[string]chan reply{}
	p.mu.Unlock()
	for _, ch := range pending {
		ch <- reply{err: p.err}
	}
	close(p.done)
}

func (p *proc) readStderr(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p.log != nil {
			fmt.Fprintln(p.log, line)
		}
		p.mu.Lock()
		if strings.Contains(line, "phase=") || strings.Contains(line, " perf ") || strings.Contains(line, "index_event") {
			p.mu.Unlock()
			continue // progress chatter, not what went wrong
		}
		p.tail = append(p.tail, line)
		if len(p.tail) > 10 {
			p.tail = p.tail[len(p.tail)-10:]
		}
		p.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, r)
}

func (p *proc) readStdout(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		} else {
			line = line[:0:0] // too long: dropped, the request times out
			if p.log != nil {
				fmt.Fprintf(p.log, "pigo: dropped an answer line over %d bytes\n", maxLine)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			p.dispatch(line)
		}
		line = line[:0]
		if err != nil {
			return
		}
	}
}

// dispatch hands an answer to its waiting request; lines without an id are pushed frames
// (status, warnings), which the tools do not use.
func (p *proc) dispatch(line []byte) {
	var head struct {
		ID      json.RawMessage `json:"id"`
		Success *bool           `json:"success"`
		Code    string          `json:"code"`
		Message string          `json:"message"`
		Text    string          `json:"text"`
	}
	if err := json.Unmarshal(line, &head); err != nil || len(head.ID) == 0 {
		return
	}
	var id string
	if err := json.Unmarshal(head.ID, &id); err != nil {
		return
	}
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(line, &fields)
	delete(fields, "id")
	delete(fields, "success")
	raw, _ := json.Marshal(fields)
	resp := &Response{Success: head.Success != nil && *head.Success, Code: head.Code, Message: head.Message, Text: head.Text, Fields: raw}
	p.mu.Lock()
	ch := p.pending[id]
	delete(p.pending, id)
	p.mu.Unlock()
	if ch != nil {
		ch <- reply{resp: resp}
	}
}

func (p *proc) request(ctx context.Context, command string, params map[string]any, sessionID string, timeout time.Duration) (*Response, error) {
	req := map[string]any{}
	for k, v := range params {
		req[k] = v
	}
	p.mu.Lock()
	if p.err != nil {
		err := p.err
		p.mu.Unlock()
		return nil, err
	}
	p.next++
	id := strconv.Itoa(p.next)
	ch := make(chan reply, 1)
	p.pending[id] = ch
	p.mu.Unlock()
	req["id"], req["command"] = id, command
	if sessionID != "" {
		req["session_id"] = sessionID
	}
	line, err := json.Marshal(req)
	if err != nil {
		p.forget(id)
		return nil, err
	}
	p.wmu.Lock()
	_, err = p.stdin.Write(append(line, '\n'))
	p.wmu.Unlock()
	if err != nil {
		p.forget(id)
		if e := p.exitErr(); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("aft: cannot send %q: %v", command, err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		return r.resp, r.err
	case <-ctx.Done():
		p.forget(id)
		return nil, ctx.Err()
	case <-timer.C:
		p.forget(id)
		return nil, fmt.Errorf("aft: %q got no answer within %s", command, timeout)
	}
}

func (p *proc) forget(id string) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

// stop closes stdin and waits for the process, killing its group after a grace period.
func (p *proc) stop() {
	p.stdin.Close()
	select {
	case <-p.done:
		return
	case <-time.After(5 * time.Second):
	}
	killGroup(p.cmd)
	<-p.done
}

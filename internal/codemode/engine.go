package codemode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/codemode/jswire"
	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/headbuf"
)

// MaxParallelCalls bounds the nested calls that run at once; the rest wait their turn.
const MaxParallelCalls = 16

// MaxOutput caps the bytes of text and images a script may output: the output is kept on
// the host, outside the VM's memory limit.
const MaxOutput = jswire.MaxOutput

// Tool is one callable tool as ALL_TOOLS shows it.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// CallOutcome is what the host answers a bridged call with: a JSON value (nil: undefined)
// or an error text the script sees as a CallFailedError.
type CallOutcome struct {
	OK    bool
	Value json.RawMessage
	Error string
}

// Script is one run.
type Script struct {
	// Code is the script (the body of an async function), options line already blanked.
	Code  string
	Tools []Tool
	// Discover defines searchTools, describeTool and describeNamespace (discover.go), whose
	// calls reach Call under reserved names and are not recorded as tool calls.
	Discover bool
	// Store is the replayed store: key → JSON value.
	Store map[string]json.RawMessage
	// Call runs a tool (or fs.read / fs.write) for the script; it is called on its own
	// goroutine and must return when ctx is cancelled.
	Call func(ctx context.Context, name string, args json.RawMessage) CallOutcome
	// Output receives each output item as the script produces it (progress); may be nil.
	Output func(Item)
	// Timeout bounds the wall time, nested calls included (0: none).
	Timeout time.Duration
}

// Item is one output item: text, or an image (base64 data and its MIME type).
type Item struct {
	Image    bool
	Text     string
	Data     string
	MimeType string
}

// CallRecord is one finished nested call, in finishing order (details.calls).
type CallRecord struct {
	Name       string `json:"name"`
	Status     string `json:"status"`
	DurationMs int64  `json:"durationMs"`
}

// Write is one store write of a successful run; Delete is set(key, undefined).
type Write struct {
	Key    string
	Value  json.RawMessage
	Delete bool
}

// ScriptError is why a run failed. Kind is "script" (the script threw or stalled),
// "aborted" (abort or timeout) or "sandbox" (the engine failed).
type ScriptError struct {
	Kind    string
	Name    string
	Message string
	Stack   string
}

// Text renders the error as the seed does: "Name: message", then the stack when it says more.
func (e *ScriptError) Text() string {
	head := e.Message
	if e.Name != "" {
		head = e.Name + ": " + e.Message
	}
	if e.Stack != "" && e.Stack != head {
		return head + "\n" + e.Stack
	}
	return head
}

// Outcome is a finished run.
type Outcome struct {
	OK bool
	// Value is JSON.stringify(returned value, null, 2), "" for undefined.
	Value  string
	Err    *ScriptError
	Output []Item
	Calls  []CallRecord
	Writes []Write
}

// The wall-clock limits of a script that sets no timeout_ms (the seed has none: headless,
// `while(true){}` ran forever). Headless nobody can press Esc, so the limit is the bash
// tool's default; in the chat it is the bash tool's maximum. timeout_ms overrides either.
const (
	DefaultHeadlessTimeout = 120 * time.Second
	DefaultTimeout         = 600 * time.Second
)

// scriptTimeout is the wall-clock limit of a script: its timeout_ms, else the default.
func scriptTimeout(set time.Duration, headless bool) time.Duration {
	switch {
	case set > 0:
		return set
	case headless:
		return DefaultHeadlessTimeout
	}
	return DefaultTimeout
}

// The abort and timeout texts.
const (
	textAborted = "codemode execution was aborted"
)

func textTimeout(d time.Duration) string {
	return fmt.Sprintf("codemode execution timed out after %d ms", d.Milliseconds())
}

// startAllowance is the time the helper may take to start before a script's timeout counts.
var startAllowance = 10 * time.Second

// helperHook, when set (tests), is called with the helper's process as soon as it started.
var helperHook func(*exec.Cmd)

// helperMem, when set (tests), is the helper's address-space limit instead of the engine's.
var helperMem uint64

// Run runs one script in the js engine of a pigo-engines helper of its own and returns when
// it has ended and every nested call it started has returned. Cancelling ctx or the timeout
// kills the helper; the run then ends with the abort's or the timeout's text.
func Run(ctx context.Context, s Script) Outcome {
	// The run's context ends only through cancel: the nested calls' context.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	// The timeout counts from when the helper has set up the VM: its start is not the
	// script's time. A helper that never gets ready times out too, startAllowance later.
	var timedOut <-chan time.Time
	var timer *time.Timer
	if s.Timeout > 0 {
		timer = time.NewTimer(s.Timeout + startAllowance)
		defer timer.Stop()
		timedOut = timer.C
	}
	r := &run{s: s, ctx: runCtx, cancel: cancel, ready: make(chan struct{})}
	procCtx, kill := context.WithCancel(context.Background())
	defer kill()
	cmd, err := engines.Command(procCtx, "js")
	if err != nil {
		return r.end(r.fail(&ScriptError{Kind: "sandbox", Message: err.Error()}))
	}
	ready := r.ready
	out := make(chan Outcome, 1)
	go func() { out <- r.main(cmd, kill) }()
	var o Outcome
	var stop string
wait:
	select {
	case o = <-out:
	case <-ready:
		if timer != nil {
			timer.Reset(s.Timeout)
		}
		ready = nil
		goto wait
	case <-ctx.Done():
		stop = textAborted
	case <-timedOut:
		stop = textTimeout(s.Timeout)
	}
	if stop != "" {
		// The helper is killed and its output no longer read: what the script printed
		// before stays, the calls still running end as aborted.
		r.mu.Lock()
		r.stopped = true
		r.mu.Unlock()
		cancel()
		kill()
		<-out
		o = r.fail(&ScriptError{Kind: "aborted", Message: stop})
	}
	return r.end(o)
}

type run struct {
	s      Script
	ctx    context.Context
	cancel context.CancelFunc
	calls  sync.WaitGroup

	ready chan struct{} // closed when the helper is ready

	in   io.WriteCloser
	inMu sync.Mutex

	mu      sync.Mutex
	active  int
	queue   []callReq
	record  []CallRecord
	output  []Item
	stopped bool

	outBytes int // main's goroutine only
}

// end waits for the nested calls (the helper is gone by now, so an unawaited call ends with
// the run) and adds the calls made.
func (r *run) end(o Outcome) Outcome {
	r.cancel()
	r.calls.Wait()
	r.mu.Lock()
	o.Calls = append([]CallRecord{}, r.record...)
	r.mu.Unlock()
	return o
}

// main starts the helper, sends the script and serves its messages until the script's
// outcome; the helper is killed and reaped before it returns.
func (r *run) main(cmd *exec.Cmd, kill context.CancelFunc) Outcome {
	stderr := &headbuf.Buffer{}
	cmd.Stderr = stderr
	// A process the helper left holding its stderr does not keep Wait (and the run) waiting.
	cmd.WaitDelay = time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return r.fail(&ScriptError{Kind: "sandbox", Message: err.Error()})
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return r.fail(&ScriptError{Kind: "sandbox", Message: err.Error()})
	}
	if err := cmd.Start(); err != nil {
		return r.fail(&ScriptError{Kind: "sandbox", Message: "pigo-engines js: " + err.Error()})
	}
	defer func() {
		kill()
		_ = cmd.Wait()
	}()
	if helperHook != nil {
		helperHook(cmd)
	}
	r.in = in
	toolsJSON, _ := json.Marshal(r.s.Tools)
	if r.s.Tools == nil {
		toolsJSON = []byte("[]")
	}
	start := &jswire.Message{T: "start", Discover: r.s.Discover, Mem: helperMem,
		S: []*string{&r.s.Code, jswire.Ptr(string(toolsJSON)), jswire.Ptr(storeJSON(r.s.Store))}}
	if r.s.Timeout > 0 {
		// A backstop: pigo kills the helper at the timeout.
		start.CPUms = (r.s.Timeout + r.s.Timeout/2 + 10*time.Second).Milliseconds()
	}
	go r.write(start) // the helper reads it whole before it writes anything
	rd := jswire.NewReader(outPipe)
	ready := false
	for {
		m, err := jswire.Read(rd, jswire.MaxString)
		if err != nil {
			return r.crashed(cmd, kill, stderr, err)
		}
		switch m.T {
		case "ready":
			if !ready {
				close(r.ready)
				ready = true
			}
		case "call":
			var args json.RawMessage
			if a := m.Opt(1); a != nil {
				args = json.RawMessage(*a)
			}
			r.startCall(m.ID, m.Str(0), args)
		case "out":
			it := Item{Text: m.Str(0)}
			if m.Kind == "image" {
				it = Item{Image: true, Data: m.Str(0), MimeType: m.Str(1)}
			}
			r.outBytes += len(it.Text) + len(it.Data)
			if r.outBytes > MaxOutput {
				return r.crashed(cmd, kill, stderr, fmt.Errorf("%w: output beyond %d bytes", jswire.ErrProtocol, MaxOutput))
			}
			r.mu.Lock()
			stopped := r.stopped
			if !stopped {
				r.output = append(r.output, it)
			}
			r.mu.Unlock()
			if !stopped && r.s.Output != nil {
				r.s.Output(it)
			}
		case "done":
			return r.outcome(m.OK, m.Opt(0), m.Opt(1))
		case "error":
			return r.fail(&ScriptError{Kind: m.Kind, Name: m.Str(0), Message: m.Str(1), Stack: m.Str(2)})
		default:
			return r.crashed(cmd, kill, stderr, fmt.Errorf("%w: unexpected message %q", jswire.ErrProtocol, m.T))
		}
	}
}

// crashed is the outcome of a helper that broke off: it ended without an answer (a crash, a
// limit) or broke the protocol.
func (r *run) crashed(cmd *exec.Cmd, kill context.CancelFunc, stderr *headbuf.Buffer, err error) Outcome {
	msg := "the js engine (" + engines.Name + " js) "
	if errors.Is(err, jswire.ErrProtocol) {
		msg += "broke the protocol: " + err.Error()
	} else {
		// The process has ended, or ends now: its exit status says how.
		done := make(chan struct{})
		go func() {
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				kill()
			}
		}()
		werr := cmd.Wait()
		close(done)
		msg += "ended without an answer"
		if werr != nil {
			msg += " (" + werr.Error() + ")"
		}
		if l := stderr.FirstLine(); l != "" {
			msg += ": " + l
		}
	}
	return r.fail(&ScriptError{Kind: "sandbox", Message: msg})
}

// write sends one message to the helper; a failed write means the helper has gone, which the
// reader finds.
func (r *run) write(m *jswire.Message) {
	r.inMu.Lock()
	defer r.inMu.Unlock()
	_ = jswire.Write(r.in, m)
}

type callReq struct {
	id   int
	name string
	args json.RawMessage
	at   time.Time
}

// startCall queues a nested call; at most MaxParallelCalls run at once, so a Promise.all
// over thousands of calls does not start thousands of commands.
func (r *run) startCall(id int, name string, args json.RawMessage) {
	req := callReq{id, name, args, time.Now()}
	r.mu.Lock()
	if r.active >= MaxParallelCalls {
		r.queue = append(r.queue, req)
		r.mu.Unlock()
		return
	}
	r.active++
	r.mu.Unlock()
	r.calls.Add(1)
	go r.worker(req)
}

func (r *run) worker(req callReq) {
	defer r.calls.Done()
	for {
		r.doCall(req)
		r.mu.Lock()
		if len(r.queue) == 0 || r.ctx.Err() != nil { // an ended run drops the calls not started
			r.queue = nil
			r.active--
			r.mu.Unlock()
			return
		}
		req, r.queue = r.queue[0], r.queue[1:]
		r.mu.Unlock()
	}
}

func (r *run) doCall(req callReq) {
	var out CallOutcome
	func() {
		defer func() {
			if p := recover(); p != nil {
				out = CallOutcome{Error: fmt.Sprint(p)}
			}
		}()
		out = r.s.Call(r.ctx, req.name, req.args)
	}()
	// A call still running when the run was aborted or timed out is "aborted", whatever it
	// answered while it was being stopped.
	status := "error"
	switch {
	case r.ctx.Err() != nil:
		status = "aborted"
	case out.OK:
		status = "ok"
	}
	if !strings.HasPrefix(req.name, "codemode.") {
		r.mu.Lock()
		r.record = append(r.record, CallRecord{Name: req.name, Status: status, DurationMs: time.Since(req.at).Milliseconds()})
		r.mu.Unlock()
	}
	if r.ctx.Err() != nil {
		return // the run has ended: nobody waits for the answer
	}
	m := &jswire.Message{T: "settle", ID: req.id, OK: out.OK, S: []*string{nil}}
	if out.OK && out.Value != nil {
		m.S[0] = jswire.Ptr(string(out.Value))
	} else if !out.OK {
		m.S[0] = &out.Error
	}
	r.write(m)
}

func (r *run) fail(e *ScriptError) Outcome {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Outcome{Err: e, Output: r.output}
}

// outcome is the outcome of a script that finished: the prelude's done(ok, payload, writes).
func (r *run) outcome(ok bool, payload, writes *string) Outcome {
	if !ok {
		e := &ScriptError{Kind: "script", Message: "the script failed without an error message"}
		if payload != nil {
			var d struct {
				Name    *string `json:"name"`
				Message *string `json:"message"`
				Stack   *string `json:"stack"`
			}
			if json.Unmarshal([]byte(*payload), &d) == nil {
				e.Message = *payload
				if d.Message != nil {
					e.Message = *d.Message
				}
				if d.Name != nil {
					e.Name = *d.Name
				}
				if d.Stack != nil {
					e.Stack = *d.Stack
				}
			} else {
				e.Message = *payload
			}
		}
		return r.fail(e)
	}
	r.mu.Lock()
	o := Outcome{OK: true, Output: r.output}
	r.mu.Unlock()
	if payload != nil {
		o.Value = *payload
	}
	if writes != nil {
		var entries [][]json.RawMessage
		if json.Unmarshal([]byte(*writes), &entries) == nil {
			for _, e := range entries {
				var key, val string
				if len(e) == 0 || json.Unmarshal(e[0], &key) != nil {
					continue
				}
				if len(e) < 2 {
					o.Writes = append(o.Writes, Write{Key: key, Delete: true})
					continue
				}
				if json.Unmarshal(e[1], &val) == nil {
					o.Writes = append(o.Writes, Write{Key: key, Value: json.RawMessage(val)})
				}
			}
		}
	}
	return o
}

// storeJSON renders the replayed store as one JSON object, keys sorted.
func storeJSON(m map[string]json.RawMessage) string {
	if len(m) == 0 {
		return "{}"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kj, _ := json.Marshal(k)
		b.Write(kj)
		b.WriteByte(':')
		b.Write(m[k])
	}
	b.WriteByte('}')
	return b.String()
}

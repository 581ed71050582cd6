package codemode

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"modernc.org/quickjs"
)

// MaxParallelCalls bounds the nested calls that run at once; the rest wait their turn.
const MaxParallelCalls = 16

// MaxOutput caps the bytes of text and images a script may output: the output is kept on
// the host, outside the VM's memory limit.
const MaxOutput = 32 << 20

// maxSleep keeps sleep's duration in range (the seed has no timers; sleep is the README's).
const maxSleep = 24 * time.Hour

// MemoryLimit caps one VM's heap: an allocation loop ends as `InternalError: out of memory`
// inside the script instead of growing the host's heap.
const MemoryLimit = 64 << 20

//go:embed prelude.js
var preludeSource string

var (
	preludeOnce sync.Once
	preludeCode []byte
	preludeErr  error
)

// prelude returns the prelude's bytecode, compiled once per process (the bytecode format is
// tied to the QuickJS release, so it is never stored).
func prelude() ([]byte, error) {
	preludeOnce.Do(func() {
		vm, err := quickjs.NewVM()
		if err != nil {
			preludeErr = err
			return
		}
		defer vm.Close()
		preludeCode, preludeErr = vm.Compile(preludeSource, quickjs.EvalGlobal)
	})
	return preludeCode, preludeErr
}

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

type settlement struct {
	id      int
	ok      bool
	payload *string
}

// Run runs one script in a fresh VM on a dedicated goroutine and returns when it has ended
// and every nested call it started has returned. Cancelling ctx aborts it.
func Run(ctx context.Context, s Script) Outcome {
	// The run's context ends only through cancel, after setStop has said why: one that
	// ended with ctx raced the select below, and the VM, interrupted first, reported a
	// script error ("InternalError: interrupted") instead of the abort.
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	var timedOut <-chan time.Time
	if s.Timeout > 0 {
		t := time.NewTimer(s.Timeout)
		defer t.Stop()
		timedOut = t.C
	}
	r := &run{s: s, ctx: runCtx, cancel: cancel, results: make(chan settlement), vmDone: make(chan struct{})}
	out := make(chan Outcome, 1)
	go func() { out <- r.main() }()
	var o Outcome
	var stop string
	select {
	case o = <-out:
	case <-ctx.Done():
		stop = textAborted
	case <-timedOut:
		stop = textTimeout(s.Timeout)
	}
	if stop != "" {
		r.setStop(stop)
		cancel()
		o = <-out
	}
	return o
}

type run struct {
	s       Script
	ctx     context.Context
	results chan settlement
	vmDone  chan struct{}
	calls   sync.WaitGroup

	mu     sync.Mutex
	cancel context.CancelFunc
	active int
	queue  []callReq
	stop   string
	vm     *quickjs.VM
	record []CallRecord

	// set on the VM goroutine only
	output   []Item
	outBytes int
	finished bool
	ok       bool
	payload  *string
	writes   *string
}

func (r *run) setStop(text string) {
	r.mu.Lock()
	r.stop = text
	vm := r.vm
	r.mu.Unlock()
	if vm != nil {
		vm.Interrupt()
	}
}

func (r *run) stopText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stop
}

func (r *run) main() (o Outcome) {
	defer func() {
		close(r.vmDone)
		r.cancel() // calls the script did not await end with it
		r.calls.Wait()
		r.mu.Lock()
		o.Calls = append([]CallRecord{}, r.record...)
		r.mu.Unlock()
		if o.Calls == nil {
			o.Calls = []CallRecord{}
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			o = r.fail(&ScriptError{Kind: "sandbox", Message: fmt.Sprint(p)})
		}
	}()
	bc, err := prelude()
	if err != nil {
		return r.fail(&ScriptError{Kind: "sandbox", Message: err.Error()})
	}
	vm, err := quickjs.NewVM()
	if err != nil {
		return r.fail(&ScriptError{Kind: "sandbox", Message: err.Error()})
	}
	vm.SetMemoryLimit(MemoryLimit)
	r.mu.Lock()
	r.vm = vm
	stopped := r.stop != ""
	r.mu.Unlock()
	// The interrupt is repeated until the VM goroutine ends: a single one sent while Go holds
	// the VM between two calls into JavaScript could be lost.
	watch := make(chan struct{})
	defer close(watch)
	go func() {
		select {
		case <-watch:
			return
		case <-r.ctx.Done():
		}
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			vm.Interrupt()
			select {
			case <-watch:
				return
			case <-tick.C:
			}
		}
	}()
	defer func() {
		r.mu.Lock()
		r.vm = nil
		r.mu.Unlock()
		vm.Close()
	}()
	if stopped {
		return r.stopped()
	}
	if err := vm.RegisterHostFunc("__codemode_bridge", r.bridge); err != nil {
		return r.fail(&ScriptError{Kind: "sandbox", Message: err.Error()})
	}
	fn, err := vm.EvalBytecodeValue(bc)
	if err != nil {
		return r.fail(&ScriptError{Kind: "sandbox", Message: err.Error()})
	}
	defer fn.Free()
	toolsJSON, _ := json.Marshal(r.s.Tools)
	if r.s.Tools == nil {
		toolsJSON = []byte("[]")
	}
	api, err := fn.CallValue(quickjs.UndefinedValue, string(toolsJSON), storeJSON(r.s.Store), r.s.Discover)
	if err != nil {
		return r.fail(&ScriptError{Kind: "sandbox", Message: err.Error()})
	}
	defer api.Free()
	prop := func(name string) quickjs.Value {
		a, err := vm.NewAtom(name)
		if err != nil {
			panic(err)
		}
		v, err := api.GetPropertyValue(a)
		if err != nil {
			panic(err)
		}
		return v
	}
	settle, runFn, stalled := prop("settle"), prop("run"), prop("stalled")
	defer settle.Free()
	defer runFn.Free()
	defer stalled.Free()

	// The prefix shares line 1 with the script, so line numbers match the user's.
	script, err := vm.EvalValue("(async () => {"+r.s.Code+"\n})", quickjs.EvalGlobal)
	if err != nil {
		if r.stopText() != "" {
			return r.stopped()
		}
		return r.fail(jsError("script", err))
	}
	if _, err := runFn.Call(api, script); err != nil {
		script.Free()
		if r.stopText() != "" {
			return r.stopped()
		}
		return r.fail(jsError("script", err))
	}
	script.Free()
	for {
		if err := r.drain(vm); err != nil {
			if r.stopText() != "" {
				return r.stopped()
			}
			if !r.finished {
				return r.fail(jsError("script", err))
			}
		}
		if r.stopText() != "" {
			return r.stopped()
		}
		if !r.finished {
			if _, err := stalled.Call(api); err != nil {
				if r.stopText() != "" {
					return r.stopped()
				}
				return r.fail(jsError("script", err))
			}
		}
		if r.finished {
			return r.outcome()
		}
		select {
		case st := <-r.results:
			var payload any = quickjs.Undefined{}
			if st.payload != nil {
				payload = *st.payload
			}
			if _, err := settle.Call(api, st.id, st.ok, payload); err != nil {
				if r.stopText() != "" {
					return r.stopped()
				}
				return r.fail(jsError("script", err))
			}
		case <-r.ctx.Done():
			if r.stopText() == "" {
				r.setStop(textAborted)
			}
			return r.stopped()
		}
	}
}

// drain runs the job queue until it is empty (a self-feeding queue is bounded per call).
func (r *run) drain(vm *quickjs.VM) error {
	for {
		n, err := vm.ExecutePendingJobs()
		if err != nil {
			return err
		}
		if n == 0 || r.stopText() != "" {
			return nil
		}
	}
}

// bridge is the one host function the prelude captures: call, sleep, output, done.
func (r *run) bridge(args []any) (any, error) {
	kind, _ := arg(args, 0).(string)
	switch kind {
	case "call":
		id, name := intArg(arg(args, 1)), str(arg(args, 2))
		var raw json.RawMessage
		if s, ok := arg(args, 3).(string); ok {
			raw = json.RawMessage(s)
		}
		r.startCall(id, name, raw)
	case "sleep":
		id := intArg(arg(args, 1))
		ms, _ := arg(args, 2).(float64)
		if i, ok := arg(args, 2).(int); ok {
			ms = float64(i)
		}
		d := maxSleep
		if ms < float64(maxSleep/time.Millisecond) {
			d = time.Duration(ms * float64(time.Millisecond))
		}
		r.startSleep(id, d)
	case "output":
		it := Item{Text: str(arg(args, 2))}
		if str(arg(args, 1)) == "image" {
			it = Item{Image: true, Data: str(arg(args, 2)), MimeType: str(arg(args, 3))}
		}
		r.outBytes += len(it.Text) + len(it.Data)
		if r.outBytes > MaxOutput {
			return nil, fmt.Errorf("codemode output exceeds %d bytes", MaxOutput)
		}
		r.output = append(r.output, it)
		if r.s.Output != nil {
			r.s.Output(it)
		}
	case "done":
		if r.finished {
			return nil, nil
		}
		r.finished = true
		r.ok, _ = arg(args, 1).(bool)
		if s, ok := arg(args, 2).(string); ok {
			r.payload = &s
		}
		if s, ok := arg(args, 3).(string); ok {
			r.writes = &s
		}
	}
	return nil, nil
}

func (r *run) deliver(st settlement) {
	select {
	case r.results <- st:
	case <-r.vmDone:
	}
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
	st := settlement{id: req.id, ok: out.OK}
	if out.OK && out.Value != nil {
		v := string(out.Value)
		st.payload = &v
	} else if !out.OK {
		e := out.Error
		st.payload = &e
	}
	r.deliver(st)
}

func (r *run) startSleep(id int, d time.Duration) {
	r.calls.Add(1)
	go func() {
		defer r.calls.Done()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			r.deliver(settlement{id: id, ok: true})
		case <-r.ctx.Done():
		case <-r.vmDone:
		}
	}()
}

func (r *run) fail(e *ScriptError) Outcome {
	return Outcome{Err: e, Output: r.output}
}

func (r *run) stopped() Outcome {
	return r.fail(&ScriptError{Kind: "aborted", Message: r.stopText()})
}

func (r *run) outcome() Outcome {
	if !r.ok {
		e := &ScriptError{Kind: "script", Message: "the script failed without an error message"}
		if r.payload != nil {
			var d struct {
				Name    *string `json:"name"`
				Message *string `json:"message"`
				Stack   *string `json:"stack"`
			}
			if json.Unmarshal([]byte(*r.payload), &d) == nil {
				e.Message = *r.payload
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
				e.Message = *r.payload
			}
		}
		return r.fail(e)
	}
	o := Outcome{OK: true, Output: r.output}
	if r.payload != nil {
		o.Value = *r.payload
	}
	if r.writes != nil {
		var entries [][]json.RawMessage
		if json.Unmarshal([]byte(*r.writes), &entries) == nil {
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

// jsError turns an exception that escaped to Go (a syntax error, an interrupt, an engine
// error) into a script error: QuickJS's stack holds frames only.
func jsError(kind string, err error) *ScriptError {
	var qe *quickjs.Error
	if !errors.As(err, &qe) {
		return &ScriptError{Kind: "sandbox", Message: err.Error()}
	}
	var frames []string
	for _, l := range strings.Split(qe.Stack, "\n") {
		if strings.TrimSpace(l) != "" && !strings.Contains(l, "at codemode$") {
			frames = append(frames, l)
		}
	}
	return &ScriptError{Kind: kind, Name: qe.Name, Message: qe.Message, Stack: strings.Join(frames, "\n")}
}

func arg(args []any, i int) any {
	if i < len(args) {
		return args[i]
	}
	return nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func intArg(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case float64:
		return int(n)
	case int64:
		return int(n)
	}
	return 0
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

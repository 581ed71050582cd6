// Package jsvm is codemode's QuickJS VM (modernc.org/quickjs), run in the pigo-engines helper
// (internal/engines) so that pigo does not link QuickJS and modernc's C runtime: their package
// initialisation cost every pigo start. One helper process runs one script: it reads the start
// message, runs the script in a fresh VM with a 64 MiB heap, sends each tool call to pigo and
// settles its promise with pigo's answer, and ends with the script's outcome
// (internal/codemode/jswire is the protocol). Tool dispatch, approvals, the store, discovery,
// output budgets and every text stay in pigo (internal/codemode).
package jsvm

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/pigo-agent/pigo/internal/codemode/jswire"
	"github.com/pigo-agent/pigo/internal/engines"
	"modernc.org/quickjs"
)

// DefaultMem is the helper's address-space limit beyond its start (engines.SetLimits): a
// backstop behind the VM's own limit, room for the VM, the Go heap and a tool's answer of
// tens of megabytes on its way into the VM.
const DefaultMem = 1 << 30

// maxSleep keeps sleep's duration in range (the seed has no timers; sleep is the README's).
const maxSleep = 24 * time.Hour

// maxIn bounds one string from pigo: pigo is trusted, and an answer the VM cannot hold fails
// in the VM as it did in-process; the bound only keeps a length from being absurd.
const maxIn = 1 << 30

//go:embed prelude.js
var preludeSource string

// preludeCode is the prelude's bytecode, compiled from prelude.js by the QuickJS modules of
// preludeVersion (TestPreludeBytecode checks it; `go test -run TestPreludeBytecode -update`
// writes it): compiling the prelude took ~2 ms, each codemode call runs a helper of its own,
// and the bytecode format is tied to the QuickJS release, which the helper's build fixes.
//
//go:embed prelude.bc
var preludeCode []byte

//go:embed prelude.version
var preludeVersion string

// quickjsVersions are the versions of the QuickJS modules linked, as prelude.version
// records them.
func quickjsVersions() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, m := range bi.Deps {
		if m.Path == "modernc.org/quickjs" || m.Path == "modernc.org/libquickjs" {
			if m.Replace != nil {
				m = m.Replace
			}
			fmt.Fprintf(&b, "%s %s\n", m.Path, m.Version)
		}
	}
	return b.String()
}

// prelude is the prelude's bytecode: the stored one when the linked QuickJS is the one
// that compiled it (or when the binary records no module versions, as test binaries: the
// test checks the stored bytecode against go.mod's QuickJS), else compiled now.
func prelude(vm *quickjs.VM) ([]byte, error) {
	if v := quickjsVersions(); v == "" || v == preludeVersion {
		return preludeCode, nil
	}
	return vm.Compile(preludeSource, quickjs.EvalGlobal)
}

// Serve is the js engine: `pigo-engines js`, the protocol on stdin and stdout.
func Serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	in := jswire.NewReader(pollable(stdin).(io.Reader))
	stdout = pollable(stdout).(io.Writer)
	start, err := jswire.Read(in, maxIn)
	if err == nil && start.T != "start" {
		err = fmt.Errorf("the first message is %q, not start", start.T)
	}
	if err != nil {
		fmt.Fprintln(stderr, "jsvm:", err)
		return 2
	}
	mem := start.Mem
	if mem == 0 {
		mem = DefaultMem
	}
	if err := engines.SetLimits(time.Duration(start.CPUms)*time.Millisecond, mem); err != nil {
		fmt.Fprintln(stderr, "jsvm: limits:", err)
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &run{ctx: ctx, cancel: cancel, out: bufio.NewWriterSize(stdout, 64<<10), results: make(chan settlement)}
	// pigo's messages after start are settlements; when its end of stdin closes (pigo ended
	// or gave up on the run), the run stops.
	go func() {
		defer cancel()
		for {
			m, err := jswire.Read(in, maxIn)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					fmt.Fprintln(stderr, "jsvm:", err)
				}
				return
			}
			if m.T != "settle" {
				fmt.Fprintf(stderr, "jsvm: unexpected message %q\n", m.T)
				return
			}
			select {
			case r.results <- settlement{id: m.ID, ok: m.OK, payload: m.Opt(0)}:
			case <-ctx.Done():
				return
			}
		}
	}()
	final := r.main(start.Str(0), start.Str(1), start.Str(2), start.Discover)
	if err := r.send(final); err != nil {
		fmt.Fprintln(stderr, "jsvm:", err)
		return 1
	}
	return 0
}

// pollable makes a pipe on stdin or stdout wait in Go's poller instead of in a blocking
// system call: the reader goroutine blocked in read(2) held the only P (GOMAXPROCS=1) until
// sysmon took it back, up to 10 ms later, and every call's answer waited for it (100
// sequential calls: 48 → 19 ms).
func pollable(v any) any {
	f, ok := v.(*os.File)
	if !ok {
		return v
	}
	if err := syscall.SetNonblock(int(f.Fd()), true); err != nil {
		return v
	}
	if nf := os.NewFile(f.Fd(), f.Name()); nf != nil {
		return nf
	}
	return v
}

type settlement struct {
	id      int
	ok      bool
	payload *string
}

type run struct {
	ctx     context.Context
	cancel  context.CancelFunc
	out     *bufio.Writer
	results chan settlement

	outBytes int
	finished bool
	ok       bool
	payload  *string
	writes   *string
}

// send writes one message to pigo; a failed write (pigo is gone) ends the run.
func (r *run) send(m *jswire.Message) error {
	err := jswire.Write(r.out, m)
	if err == nil {
		err = r.out.Flush()
	}
	if err != nil {
		r.cancel()
	}
	return err
}

func fail(kind, name, message, stack string) *jswire.Message {
	return &jswire.Message{T: "error", Kind: kind, S: []*string{&name, &message, &stack}}
}

func (r *run) main(code, tools, store string, discover bool) (final *jswire.Message) {
	defer func() {
		if p := recover(); p != nil {
			final = fail("sandbox", "", fmt.Sprint(p), "")
		}
	}()
	vm, err := quickjs.NewVM()
	if err != nil {
		return fail("sandbox", "", err.Error(), "")
	}
	vm.SetMemoryLimit(jswire.MemoryLimit)
	// When pigo goes away the VM is interrupted, repeatedly until the run ends: a single
	// interrupt sent while Go holds the VM between two calls into JavaScript could be lost.
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
	defer vm.Close()
	gone := func() *jswire.Message { return fail("aborted", "", "pigo ended the run", "") }
	if err := vm.RegisterHostFunc("__codemode_bridge", r.bridge); err != nil {
		return fail("sandbox", "", err.Error(), "")
	}
	bc, err := prelude(vm)
	if err != nil {
		return fail("sandbox", "", err.Error(), "")
	}
	fn, err := vm.EvalBytecodeValue(bc)
	if err != nil {
		return fail("sandbox", "", err.Error(), "")
	}
	defer fn.Free()
	api, err := fn.CallValue(quickjs.UndefinedValue, tools, store, discover)
	if err != nil {
		return fail("sandbox", "", err.Error(), "")
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

	// pigo's timeout counts from here: the helper's start is not the script's time.
	if r.send(&jswire.Message{T: "ready"}) != nil {
		return gone()
	}
	// The prefix shares line 1 with the script, so line numbers match the user's.
	script, err := vm.EvalValue("(async () => {"+code+"\n})", quickjs.EvalGlobal)
	if err != nil {
		if r.ctx.Err() != nil {
			return gone()
		}
		return jsError("script", err)
	}
	if _, err := runFn.Call(api, script); err != nil {
		script.Free()
		if r.ctx.Err() != nil {
			return gone()
		}
		return jsError("script", err)
	}
	script.Free()
	for {
		if err := r.drain(vm); err != nil {
			if r.ctx.Err() != nil {
				return gone()
			}
			if !r.finished {
				return jsError("script", err)
			}
		}
		if r.ctx.Err() != nil {
			return gone()
		}
		if !r.finished {
			if _, err := stalled.Call(api); err != nil {
				if r.ctx.Err() != nil {
					return gone()
				}
				return jsError("script", err)
			}
		}
		if r.finished {
			return &jswire.Message{T: "done", OK: r.ok, S: []*string{r.payload, r.writes}}
		}
		select {
		case st := <-r.results:
			var payload any = quickjs.Undefined{}
			if st.payload != nil {
				payload = *st.payload
			}
			if _, err := settle.Call(api, st.id, st.ok, payload); err != nil {
				if r.ctx.Err() != nil {
					return gone()
				}
				return jsError("script", err)
			}
		case <-r.ctx.Done():
			return gone()
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
		if n == 0 || r.ctx.Err() != nil {
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
		var raw *string
		if s, ok := arg(args, 3).(string); ok {
			raw = &s
		}
		_ = r.send(&jswire.Message{T: "call", ID: id, S: []*string{&name, raw}})
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
		var m *jswire.Message
		if str(arg(args, 1)) == "image" {
			data, mime := str(arg(args, 2)), str(arg(args, 3))
			r.outBytes += len(data)
			m = &jswire.Message{T: "out", Kind: "image", S: []*string{&data, &mime}}
		} else {
			text := str(arg(args, 2))
			r.outBytes += len(text)
			m = &jswire.Message{T: "out", Kind: "text", S: []*string{&text}}
		}
		if r.outBytes > jswire.MaxOutput {
			return nil, fmt.Errorf("codemode output exceeds %d bytes", jswire.MaxOutput)
		}
		_ = r.send(m)
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

func (r *run) startSleep(id int, d time.Duration) {
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			select {
			case r.results <- settlement{id: id, ok: true}:
			case <-r.ctx.Done():
			}
		case <-r.ctx.Done():
		}
	}()
}

// jsError turns an exception that escaped to Go (a syntax error, an interrupt, an engine
// error) into the error message: QuickJS's stack holds frames only.
func jsError(kind string, err error) *jswire.Message {
	var qe *quickjs.Error
	if !errors.As(err, &qe) {
		return fail("sandbox", "", err.Error(), "")
	}
	var frames []string
	for _, l := range strings.Split(qe.Stack, "\n") {
		if strings.TrimSpace(l) != "" && !strings.Contains(l, "at codemode$") {
			frames = append(frames, l)
		}
	}
	return fail(kind, qe.Name, qe.Message, strings.Join(frames, "\n"))
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

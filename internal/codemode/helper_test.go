package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/engines"
)

// The VM runs in the pigo-engines helper (D25.22). These tests break the helper on purpose:
// each failure is a clear error for the one run, never a hang or a panic of pigo.

// helperOf records the helper process of the runs of one test.
func helperOf(t *testing.T) func() *exec.Cmd {
	var mu sync.Mutex
	var cmd *exec.Cmd
	helperHook = func(c *exec.Cmd) {
		mu.Lock()
		cmd = c
		mu.Unlock()
	}
	t.Cleanup(func() { helperHook = nil })
	return func() *exec.Cmd {
		mu.Lock()
		defer mu.Unlock()
		return cmd
	}
}

// gone fails the test when the helper process is still there: pigo reaps it before Run returns.
func gone(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if cmd == nil {
		t.Fatal("no helper was started")
	}
	if cmd.ProcessState == nil {
		t.Fatal("the helper was not waited for")
	}
	if err := syscall.Kill(cmd.Process.Pid, 0); err == nil {
		t.Fatalf("helper %d is still running", cmd.Process.Pid)
	}
}

func TestHelperMissing(t *testing.T) {
	t.Setenv(engines.EnvPath, filepath.Join(t.TempDir(), "none"))
	o := Run(context.Background(), Script{Code: "return 1"})
	if o.OK || o.Err.Kind != "sandbox" || !strings.HasPrefix(o.Err.Message, "this needs the pigo-engines helper, which is not installed") || o.Calls == nil {
		t.Fatalf("%+v %+v", o, o.Err)
	}
}

// A helper killed while a call runs: the run ends with the helper's end as a sandbox error,
// the call is recorded, nothing hangs.
func TestHelperKilledMidCall(t *testing.T) {
	helper := helperOf(t)
	o := Run(context.Background(), Script{
		Code:  "text('before'); await call('t', {}); text('after')",
		Tools: []Tool{{Name: "t"}},
		Call: func(context.Context, string, json.RawMessage) CallOutcome {
			helper().Process.Kill()
			time.Sleep(50 * time.Millisecond)
			return CallOutcome{OK: true}
		},
	})
	if o.OK || o.Err.Kind != "sandbox" || o.Err.Message != "the js engine (pigo-engines js) ended without an answer (signal: killed)" {
		t.Fatalf("%+v", o.Err)
	}
	if len(o.Output) != 1 || o.Output[0].Text != "before" || len(o.Calls) != 1 || o.Calls[0].Name != "t" {
		t.Fatalf("%+v", o)
	}
	gone(t, helper())
}

// A timeout and an abort kill the helper, even one spinning in JavaScript, and the texts are
// the in-process VM's.
func TestHelperKilledOnStop(t *testing.T) {
	helper := helperOf(t)
	o := Run(context.Background(), Script{Code: "text('x'); for (;;) {}", Timeout: 50 * time.Millisecond})
	if o.OK || o.Err.Text() != "codemode execution timed out after 50 ms" || len(o.Output) != 1 {
		t.Fatalf("%+v %+v", o, o.Err)
	}
	gone(t, helper())

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	o = Run(ctx, Script{Code: "await call('t', {}); for (;;) {}", Tools: []Tool{{Name: "t"}},
		Call: func(ctx context.Context, _ string, _ json.RawMessage) CallOutcome {
			<-ctx.Done()
			return CallOutcome{Error: "stopped"}
		}})
	if o.OK || o.Err.Text() != "codemode execution was aborted" || len(o.Calls) != 1 || o.Calls[0].Status != "aborted" {
		t.Fatalf("%+v %+v", o, o.Err)
	}
	gone(t, helper())
}

// The helper runs under an address-space limit (engines.SetLimits) behind the VM's own 64 MiB:
// past it the helper's runtime dies, and the run says so.
func TestHelperMemoryLimit(t *testing.T) {
	helperMem = 16 << 20
	t.Cleanup(func() { helperMem = 0 })
	big, _ := json.Marshal(strings.Repeat("x", 64<<20))
	o := Run(context.Background(), Script{
		Code:  "return (await call('t', {})).length",
		Tools: []Tool{{Name: "t"}},
		Call: func(context.Context, string, json.RawMessage) CallOutcome {
			return CallOutcome{OK: true, Value: big}
		},
	})
	// "runtime: out of memory: …" (a race-built helper: "fatal error: too many address space
	// collisions for -race mode").
	if o.OK || o.Err.Kind != "sandbox" || !strings.HasPrefix(o.Err.Message, "the js engine (pigo-engines js) ended without an answer (exit status 2): ") ||
		!strings.Contains(o.Err.Message, "memory") && !strings.Contains(o.Err.Message, "address space") {
		t.Fatalf("%+v %+v", o, o.Err)
	}
}

// fakeHelper points $PIGO_ENGINES at a shell script that plays a hostile helper.
func fakeHelper(t *testing.T, script string) {
	p := filepath.Join(t.TempDir(), "pigo-engines")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(engines.EnvPath, p)
}

// Every read of the helper's output is bounded: a header line without end, a string longer
// than the VM could make, and a helper that never answers.
func TestHostileHelper(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{"head -c 100000000 /dev/zero", "the js engine (pigo-engines js) broke the protocol: protocol error: a header line longer than 4096 bytes"},
		{`printf '{"t":"out","kind":"text","n":[999999999]}\n'; head -c 100000000 /dev/zero`, "the js engine (pigo-engines js) broke the protocol: protocol error: a string of 999999999 bytes (at most 134217728)"},
		{`printf '{"t":"ready"}\n{"t":"out","kind":"text","n":[5]}\nab'`, "the js engine (pigo-engines js) ended without an answer"},
		{`printf 'nope\n'`, "the js engine (pigo-engines js) broke the protocol: protocol error: invalid character 'o' in literal null (expecting 'u')"},
		{`printf '{"t":"what"}\n'; sleep 100`, `the js engine (pigo-engines js) broke the protocol: protocol error: unexpected message "what"`},
		{"echo oops >&2; exit 3", "the js engine (pigo-engines js) ended without an answer (exit status 3): oops"},
	} {
		fakeHelper(t, c.script)
		t0 := time.Now()
		o := Run(context.Background(), Script{Code: "return 1"})
		if o.OK || o.Err.Kind != "sandbox" || o.Err.Message != c.want {
			t.Errorf("%s: %+v", c.script, o.Err)
		}
		if d := time.Since(t0); d > 5*time.Second {
			t.Errorf("%s: took %v", c.script, d)
		}
	}
	fakeHelper(t, "sleep 100")
	startAllowance = 200 * time.Millisecond
	defer func() { startAllowance = 10 * time.Second }()
	o := Run(context.Background(), Script{Code: "return 1", Timeout: 50 * time.Millisecond})
	if o.OK || o.Err.Text() != "codemode execution timed out after 50 ms" {
		t.Errorf("silent helper: %+v", o.Err)
	}
}

// Many runs at once (as parallel model calls would start them), each with nested calls: every
// one gets its own helper and its own answers, and every helper is waited for and gone.
func TestManyRunsAtOnce(t *testing.T) {
	var mu sync.Mutex
	var cmds []*exec.Cmd
	helperHook = func(c *exec.Cmd) {
		mu.Lock()
		cmds = append(cmds, c)
		mu.Unlock()
	}
	t.Cleanup(func() { helperHook = nil })
	const n = 48
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := Run(context.Background(), Script{
				Code:  fmt.Sprintf("const r = await Promise.all([call('t', {i: %d}), call('t', {i: %d})]); return r[0].i + r[1].i", i, i),
				Tools: []Tool{{Name: "t"}},
				Call: func(_ context.Context, _ string, args json.RawMessage) CallOutcome {
					return CallOutcome{OK: true, Value: args}
				},
			})
			if !o.OK || o.Value != fmt.Sprint(2*i) || len(o.Calls) != 2 {
				errs <- fmt.Sprintf("run %d: %+v %+v", i, o, o.Err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if len(cmds) != n {
		t.Fatalf("%d helpers started, want %d", len(cmds), n)
	}
	for _, c := range cmds {
		gone(t, c)
	}
}

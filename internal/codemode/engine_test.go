package codemode

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

// A Promise.all over many calls runs at most MaxParallelCalls at once, and every call
// answers its own promise.
func TestParallelLimit(t *testing.T) {
	var mu sync.Mutex
	cur, peak := 0, 0
	o := Run(context.Background(), Script{
		Code:  "const rs = await Promise.all(Array.from({length: 100}, (_, i) => call('t', {i}))); return rs.every((r, i) => r.i === i)",
		Tools: []Tool{{Name: "t"}},
		Call: func(_ context.Context, _ string, args json.RawMessage) CallOutcome {
			mu.Lock()
			cur++
			peak = max(peak, cur)
			mu.Unlock()
			time.Sleep(2 * time.Millisecond)
			mu.Lock()
			cur--
			mu.Unlock()
			return CallOutcome{OK: true, Value: args}
		},
	})
	if !o.OK || o.Value != "true" || len(o.Calls) != 100 {
		t.Fatalf("%+v %v", o.Err, o.Value)
	}
	if peak > MaxParallelCalls || peak < 2 {
		t.Fatalf("peak concurrency %d", peak)
	}
}

// A call the script did not await is cancelled when the script ends.
func TestUnawaitedCallCancelled(t *testing.T) {
	cancelled := make(chan bool, 1)
	o := Run(context.Background(), Script{
		Code:  "call('slow', {}); return 'done'",
		Tools: []Tool{{Name: "slow"}},
		Call: func(ctx context.Context, _ string, _ json.RawMessage) CallOutcome {
			select {
			case <-ctx.Done():
				cancelled <- true
			case <-time.After(10 * time.Second):
				cancelled <- false
			}
			return CallOutcome{Error: "aborted"}
		},
	})
	if !o.OK || o.Value != `"done"` {
		t.Fatalf("%+v", o)
	}
	if !<-cancelled {
		t.Fatal("the call ran on after the script ended")
	}
}

// Output is kept on the host, so it has its own cap: past it, text() throws.
func TestOutputCap(t *testing.T) {
	o := Run(context.Background(), Script{Code: "const s = 'x'.repeat(1 << 20); try { for (;;) text(s) } catch (e) { return e.message }"})
	if !o.OK || !strings.Contains(o.Value, "codemode output exceeds 33554432 bytes") {
		t.Fatalf("%+v %q", o.Err, o.Value)
	}
}

// TestDefaultTimeout: a script without timeout_ms still has a wall-clock limit (the seed has
// none: headless `while(true){}` ran forever); timeout_ms overrides it.
func TestDefaultTimeout(t *testing.T) {
	if scriptTimeout(0, true) != DefaultHeadlessTimeout || scriptTimeout(0, false) != DefaultTimeout ||
		scriptTimeout(5*time.Millisecond, true) != 5*time.Millisecond {
		t.Fatal("scriptTimeout")
	}
	if DefaultHeadlessTimeout != 120*time.Second || DefaultTimeout != 600*time.Second {
		t.Fatal("the defaults moved")
	}
}

package codemode

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// The helper's start, the VM, the prelude's compilation and a trivial script: the fixed cost
// of one codemode call (D25.22; in-process, before the helper, p50 was under 1 ms).
func BenchmarkStart(b *testing.B) {
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if o := Run(context.Background(), Script{Code: "return 1"}); !o.OK {
			b.Fatal(o.Err.Text())
		}
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns")
}

// 100 sequential trivial structured calls: the bridge's overhead (target under 10 ms).
func BenchmarkCalls100(b *testing.B) {
	s := Script{
		Code:  "let n = 0; for (let i = 0; i < 100; i++) n += (await call('t', {i})).i; return n",
		Tools: []Tool{{Name: "t"}},
		Call: func(_ context.Context, _ string, args json.RawMessage) CallOutcome {
			return CallOutcome{OK: true, Value: args}
		},
	}
	for b.Loop() {
		if o := Run(context.Background(), s); !o.OK || o.Value != "4950" {
			b.Fatal(o.Err, o.Value)
		}
	}
}

// The same 100 calls fanned out with Promise.all.
func BenchmarkCalls100Parallel(b *testing.B) {
	s := Script{
		Code:  "const rs = await Promise.all(Array.from({length: 100}, (_, i) => call('t', {i}))); return rs.length",
		Tools: []Tool{{Name: "t"}},
		Call: func(_ context.Context, _ string, args json.RawMessage) CallOutcome {
			return CallOutcome{OK: true, Value: args}
		},
	}
	for b.Loop() {
		if o := Run(context.Background(), s); !o.OK {
			b.Fatal(o.Err)
		}
	}
}

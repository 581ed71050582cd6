package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// BenchmarkReadSmall is one `read` of a small file through the whole execution path
// (lookup, argument pipeline, implementation, result); the target is < 100 µs per call.
func BenchmarkReadSmall(b *testing.B) {
	r, ws := benchRunner(b)
	os.WriteFile(filepath.Join(ws, "small.txt"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	call := toolrun.Call{ID: "c", Name: "read", Arguments: json.RawMessage(`{"path":"small.txt"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Run(ctx, call, nil); res.IsError {
			b.Fatal(res.Text())
		}
	}
}

// BenchmarkPrepareRead is the execution path's own share of a read: lookup and the argument
// pipeline without the file system.
func BenchmarkPrepareRead(b *testing.B) {
	r, _ := benchRunner(b)
	call := toolrun.Call{ID: "c", Name: "read", Arguments: json.RawMessage(`{"path":"small.txt","offset":"2","limit":10}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.PrepareCall(call); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEdit5MB is one edit of a 5 MB file (it must stay linear in the file size).
func BenchmarkEdit5MB(b *testing.B) {
	for _, size := range []int{1 << 20, 5 << 20} {
		b.Run(strings.TrimSuffix(strings.TrimSuffix(formatMB(size), "0"), "."), func(b *testing.B) {
			r, ws := benchRunner(b)
			var sb strings.Builder
			for i := 0; sb.Len() < size; i++ {
				sb.WriteString("line of some ordinary source text number ")
				sb.WriteString(strings.Repeat("x", i%7))
				sb.WriteString("\n")
			}
			content := sb.String() + "UNIQUE MARKER\n"
			p := filepath.Join(ws, "big.txt")
			ctx := context.Background()
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				b.StopTimer()
				os.WriteFile(p, []byte(content), 0o644)
				b.StartTimer()
				res := r.Run(ctx, toolrun.Call{ID: "c", Name: "edit", Arguments: json.RawMessage(`{"path":"big.txt","edits":[{"oldText":"UNIQUE MARKER","newText":"changed"}]}`)}, nil)
				if res.IsError {
					b.Fatal(res.Text())
				}
			}
		})
	}
}

func formatMB(n int) string { return toolkit.FormatSize(n) }

func benchRunner(b *testing.B) (*toolrun.Runner, string) {
	b.Helper()
	ws := filepath.Join(b.TempDir(), "ws")
	e := newEnvAt(b, ws)
	return e.runner, ws
}

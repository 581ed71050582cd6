package session

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// BenchmarkAppend appends to a session that already holds n entries: the cost per entry
// (one marshal, one write, one fsync) must not grow with n.
func BenchmarkAppend(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			s := New(b.TempDir(), b.TempDir(), Options{})
			s.AppendMessage(assistant("x"))
			for i := 0; i < n; i++ {
				s.index(&Entry{Type: TypeMessage, ID: fmt.Sprintf("%08x", i), ParentID: s.leaf, Message: LLMMessage(user("filler"))})
			}
			m := user("a line of user text")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.AppendMessage(m); err != nil {
					b.Fatal(err)
				}
			}
			s.Close()
		})
	}
}

// writeTurns writes a session of n turns (user, assistant with a tool call, tool result).
func writeTurns(tb testing.TB, n int) string {
	dir := tb.TempDir()
	s := New(tb.TempDir(), dir, Options{})
	s.persist = false
	for i := 0; i < n; i++ {
		s.AppendMessage(user(fmt.Sprintf("turn %d: please look at file%d.go and fix the failing test", i, i)))
		a := assistant("Reading the file.")
		a.Content = append(a.Content, llm.Content{Type: llm.TypeToolCall, ID: fmt.Sprintf("call_%d", i), Name: "read", Arguments: []byte(`{"path":"file.go"}`)})
		a.Usage = &llm.Usage{Input: 1000, Output: 50, TotalTokens: 1050}
		s.AppendMessage(a)
		f := false
		s.AppendMessage(llm.Message{Role: llm.RoleToolResult, ToolCallID: fmt.Sprintf("call_%d", i), ToolName: "read", IsError: &f,
			Content: []llm.Content{llm.TextBlock("package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n")}})
	}
	s.persist = true
	p := filepath.Join(dir, "s.jsonl")
	f, _ := os.Create(p)
	s.writeAll(f)
	f.Close()
	return p
}

// benchSession is the file the load benchmarks read: PIGO_BENCH_SESSION (a real session, to
// compare with pi on the same bytes; scripts/bench-growth.sh builds them), else 1,000 turns.
func benchSession(b *testing.B) (string, int64) {
	p := os.Getenv("PIGO_BENCH_SESSION")
	if p == "" {
		p = writeTurns(b, 1000)
	}
	fi, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	return p, fi.Size()
}

// cpuTime is the process's user and system CPU time: on a shared machine it says more about
// a benchmark's cost than the wall clock does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLoad opens a session and builds its context, as continuing it does (MB/s is the
// decode speed); retained-x is the heap a loaded session keeps alive over the file's size,
// live-B the same in bytes.
func BenchmarkLoad(b *testing.B) {
	p, size := benchSession(b)
	b.SetBytes(size)
	b.ReportAllocs()
	c0 := cpuTime()
	b.ResetTimer()
	var keep *Session
	for i := 0; i < b.N; i++ {
		s, err := Open(p, OpenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Context().Messages) == 0 {
			b.Fatal("context")
		}
		keep = s
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
	var m0, m1 runtime.MemStats
	keep = nil
	runtime.GC()
	runtime.ReadMemStats(&m0)
	keep, _ = Open(p, OpenOptions{})
	runtime.GC()
	runtime.ReadMemStats(&m1)
	live := float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
	b.ReportMetric(live/float64(size), "retained-x")
	b.ReportMetric(live, "live-B")
	runtime.KeepAlive(keep)
}

// BenchmarkReadInfo reads one session's listing facts (what `pigo session list` does per file).
func BenchmarkReadInfo(b *testing.B) {
	p, size := benchSession(b)
	b.SetBytes(size)
	b.ReportAllocs()
	c0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := ReadInfo(p); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// FuzzOpen: any file content either opens (with warnings) or fails with an error; it never
// panics, and opening never changes a file that is not a session.
func FuzzOpen(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n" + `{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"hi"}}`))
	f.Add([]byte(`{"type":"session","id":"x"}` + "\n" + `{"type":"compaction","firstKeptEntryIndex":1}` + "\n{"))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.jsonl")
		os.WriteFile(p, data, 0o644)
		s, err := Open(p, OpenOptions{Cwd: "/"})
		if err != nil {
			return
		}
		s.Context()
		s.Branch("")
		s.Close()
	})
}

// BenchmarkContext200 builds the LLM context of a 200-message branch, as the loop does
// before every turn (the per-turn budget is 1 ms at 200 messages).
func BenchmarkContext200(b *testing.B) {
	s := InMemory("/w")
	for i := 0; i < 100; i++ {
		s.AppendMessage(user(fmt.Sprintf("question %d", i)))
		s.AppendMessage(assistant(fmt.Sprintf("answer %d", i)))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if len(s.Context().Messages) != 200 {
			b.Fatal("context")
		}
	}
}

// BenchmarkWalk walks a loaded session's branch from its leaf to the root: through the
// parent pointers (what Branch and Context do) and, for comparison, by id as before.
func BenchmarkWalk(b *testing.B) {
	p, _ := benchSession(b)
	s, err := Open(p, OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		walk func(string) []*Entry
	}{{"pointers", s.walk}, {"byID", func(id string) []*Entry { return walkByID(s, id) }}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if len(c.walk(s.leaf)) == 0 {
					b.Fatal("empty")
				}
			}
		})
	}
}

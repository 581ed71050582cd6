package app

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools"
)

// The route of one tool call, from the agent loop to the implementation: the packages on the
// stack when pi's read runs (issue 21's figure). The loop calls the runner (agent.Tools);
// nothing above it — neither this package nor the command line — is on a call's route.
func TestToolCallRoute(t *testing.T) {
	h := newHarness(t)
	real, ok := tools.All().Lookup("pi", "read")
	if !ok {
		t.Fatal("no pi read")
	}
	var route []string
	impls := &toolrun.Impls{}
	impls.Register("pi", "read", toolrun.Impl{Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		pcs := make([]uintptr, 64)
		frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
		for {
			f, more := frames.Next()
			if p := pkgOf(f.Function); p != "" && (len(route) == 0 || route[len(route)-1] != p) {
				route = append(route, p)
			}
			if !more {
				break
			}
		}
		return real.Execute(ctx, inv)
	}})
	s, _ := h.open(Options{Impls: impls}, "read")
	h.write(h.proj+"/a.txt", "hello\n")
	h.srv.Push(llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "read", Args: `{"path": "a.txt"}`}}}, llmtest.Turn{Text: "done"})
	if _, err := s.Prompt(context.Background(), "read it", nil); err != nil {
		t.Fatal(err)
	}
	slices.Reverse(route)
	// The route begins at the loop: what called the loop (this package's Prompt, when the
	// loop runs the reply's last call on its own goroutine) is not on it.
	if i := slices.Index(route, "github.com/pigo-agent/pigo/internal/agent"); i > 0 {
		route = route[i:]
	}
	t.Logf("route from the loop to the implementation: %s", strings.Join(route, " → "))
	for _, p := range route {
		if strings.HasSuffix(p, "/internal/cli") || strings.HasSuffix(p, "/internal/app") {
			t.Fatalf("the loop calls back up into the command line: %v", route)
		}
	}
	if !slices.Contains(route, "github.com/pigo-agent/pigo/internal/agent") || !slices.Contains(route, "github.com/pigo-agent/pigo/internal/toolrun") {
		t.Fatalf("route %v", route)
	}
}

// pkgOf is the package of a function name ("" for the runtime's and the standard library's).
func pkgOf(fn string) string {
	if !strings.HasPrefix(fn, "github.com/") {
		return ""
	}
	slash := strings.LastIndex(fn, "/")
	dot := strings.Index(fn[slash:], ".")
	return fn[:slash+dot]
}

// Command demo shows a whole pigo session without an account at any provider: a scripted
// model on 127.0.0.1 (internal/llm/llmtest, speaking the real openai-completions stream)
// asks for the claude-code Read and Edit tools on a copy of examples/project, and pigo runs
// them exactly as it would for a real model — argument validation, read-before-write, the
// write guard, a pi session file — on the embedded defaults (no ~/.pi needed).
//
//	go run ./scripts/demo
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/cli"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// tb lets llmtest.New run outside a test: cleanups run at exit, failures end the program.
type tb struct {
	testing.TB
	cleanups []func()
}

func (t *tb) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *tb) Helper()                           {}
func (t *tb) Fatalf(format string, args ...any) { fail(fmt.Errorf(format, args...)) }
func (t *tb) Errorf(format string, args ...any) { fail(fmt.Errorf(format, args...)) }
func (t *tb) Logf(format string, args ...any)   {}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "demo:", err)
	os.Exit(1)
}

func main() {
	if code := demo(os.Stdout, "."); code != 0 {
		os.Exit(code)
	}
}

// demo runs the session in a temporary copy of root/examples/project and prints what
// happened; it returns pigo's exit code.
func demo(stdout io.Writer, root string) int {
	t := &tb{}
	defer func() {
		for _, f := range t.cleanups {
			f()
		}
	}()
	tmp, err := os.MkdirTemp("", "pigo-demo-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(tmp)
	ws, agentDir := filepath.Join(tmp, "project"), filepath.Join(tmp, "agent")
	for _, d := range []string{ws, agentDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			fail(err)
		}
	}
	for _, f := range []string{"main.go", "go.mod"} {
		b, err := os.ReadFile(filepath.Join(root, "examples", "project", f))
		if err != nil {
			fail(fmt.Errorf("run the demo from the repository root: %w", err))
		}
		if err := os.WriteFile(filepath.Join(ws, f), b, 0o644); err != nil {
			fail(err)
		}
	}

	srv := llmtest.New(t)
	file := filepath.Join(ws, "main.go")
	args := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) }
	srv.Push(
		llmtest.Turn{Text: "Let me read main.go first.", ToolCalls: []llmtest.ToolCall{
			{ID: "call_1", Name: "Read", Args: args(map[string]any{"file_path": file})}}},
		llmtest.Turn{Text: "Now the greeting.", ToolCalls: []llmtest.ToolCall{
			{ID: "call_2", Name: "Edit", Args: args(map[string]any{"file_path": file,
				"old_string": `fmt.Println("hello")`, "new_string": `fmt.Println("hello, pigo")`})}}},
		llmtest.Turn{Text: "Done: main.go now prints \"hello, pigo\"."},
	)
	models := map[string]any{"providers": map[string]any{"local": map[string]any{
		"baseUrl": srv.BaseURL("openai-completions"), "api": "openai-completions", "apiKey": "demo",
		"models": []map[string]any{{"id": "scripted", "name": "A scripted model on 127.0.0.1"}}}}}
	b, _ := json.MarshalIndent(models, "", "  ")
	if err := os.WriteFile(filepath.Join(agentDir, "models.json"), b, 0o644); err != nil {
		fail(err)
	}

	c := &cli.CLI{Stdin: nil, Stdout: stdout, Stderr: os.Stderr}
	run := func(argv ...string) int {
		fmt.Fprintf(stdout, "\n$ pigo %s\n", quote(argv))
		return c.Main(append([]string{"--agent-dir", agentDir, "-C", ws}, argv...))
	}
	if code := run("-p", "--model", "local/scripted", "make main.go greet pigo"); code != 0 {
		return code
	}
	after, _ := os.ReadFile(file)
	fmt.Fprintf(stdout, "\n$ cat main.go   # changed by the Edit tool\n%s", after)
	if code := run("session", "list"); code != 0 {
		return code
	}
	fmt.Fprintf(stdout, "\nThe model made %d requests; the session above is a pi JSONL v3 file (pi opens it too).\n", len(srv.Requests()))
	return 0
}

func quote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a
		if a == "" || strings.ContainsAny(a, " \t\"'$") {
			out[i] = strconv.Quote(a)
		}
	}
	return strings.Join(out, " ")
}

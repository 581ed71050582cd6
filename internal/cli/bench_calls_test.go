package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// BenchmarkManyToolCalls is issue 20's 10,000 tool calls in one message, through pigo -p
// against the loopback server: the streamed reply and every call (the cheap ls). It was
// quadratic (a copy of the whole message per streamed event: 61–90 s); it is linear now.
// PIGO_BENCH_CALLS sets the count (default 10,000).
func BenchmarkManyToolCalls(b *testing.B) {
	n := 10000
	if s := os.Getenv("PIGO_BENCH_CALLS"); s != "" {
		fmt.Sscan(s, &n)
	}
	home := b.TempDir()
	b.Setenv("HOME", home)
	ws := b.TempDir()
	for i := 0; i < b.N; i++ {
		srv := llmtest.New(b)
		calls := make([]llmtest.ToolCall, n)
		for j := range calls {
			calls[j] = llmtest.ToolCall{ID: fmt.Sprintf("call_%d", j), Name: "ls", Args: `{"path":"."}`}
		}
		srv.Push(llmtest.Turn{ToolCalls: calls})
		srv.Push(llmtest.Turn{Text: "done"})
		dir := filepath.Join(home, ".pi", "agent")
		os.MkdirAll(dir, 0o755)
		doc, _ := json.Marshal(map[string]any{"providers": map[string]any{"local": map[string]any{
			"baseUrl": srv.BaseURL(llmtest.OpenAICompletions), "api": llmtest.OpenAICompletions, "apiKey": "k",
			"models": []any{map[string]any{"id": "m"}}}}})
		os.WriteFile(filepath.Join(dir, "models.json"), doc, 0o644)
		c := &CLI{Stdin: os.Stdin, Stdout: io.Discard, Stderr: io.Discard}
		if code := c.Main([]string{"-C", ws, "-p", "--model", "local/m", "--no-session", "--tools", "ls", "go"}); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

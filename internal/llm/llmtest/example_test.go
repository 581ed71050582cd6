package llmtest_test

import (
	"context"
	"fmt"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	_ "github.com/pigo-agent/pigo/internal/llm/providers"
)

// A scripted tool turn, then a fault, answered to a real client; the requests are recorded.
func Example() {
	srv := llmtest.Start()
	defer srv.Close()
	srv.Push(
		llmtest.Turn{Text: "Reading.", ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: `{"path":"."}`}}, Usage: llmtest.Usage{Input: 12, Output: 3}},
		llmtest.Turn{Fault: llmtest.RateLimit, RetryAfter: "2"},
	)
	m := &llm.Model{Provider: "local", ID: "m", API: llmtest.AnthropicMessages, BaseURL: srv.BaseURL(llmtest.AnthropicMessages), APIKey: "k",
		Input: []string{"text"}, ContextWindow: 200000, MaxTokens: 8192}
	p, _ := llm.ProviderFor(m.API)
	c := &llm.Context{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("list files")}}}}
	msg := p.Stream(context.Background(), m, c, nil, nil)
	fmt.Println(msg.StopReason, msg.Text(), msg.ToolCalls()[0].Name, string(msg.ToolCalls()[0].Arguments))
	msg = p.Stream(context.Background(), m, c, nil, nil)
	fmt.Println(msg.StopReason, msg.ErrorMessage)
	fmt.Println(len(srv.Requests()), srv.Requests()[0].Path, srv.Requests()[0].Header.Get("x-api-key"))
	// Output:
	// toolUse Reading. ls {"path":"."}
	// error 429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}
	// 2 /v1/messages k
}

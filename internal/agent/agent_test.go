package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

func eq(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got  %#v\n want %#v", what, got, want)
	}
}

func TestTextTurnEventOrder(t *testing.T) {
	p := &fakeProvider{}
	p.add(text("hello there"))
	a, rec, _ := newTestAgent(t, p, nil, nil)
	last, err := a.Prompt(context.Background(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "events", rec.types(), []string{
		"agent_start", "turn_start", "message_start:user", "message_end:user",
		"message_start:assistant", "message_update:text_start", "message_update:text_delta", "message_update:text_end",
		"message_end:assistant", "turn_end", "agent_end",
	})
	eq(t, "last text", last.Text(), "hello there")
	eq(t, "sent system prompt", p.contexts[0].SystemPrompt, "sys")
	eq(t, "sent messages", len(p.contexts[0].Messages), 1)
	end := rec.find(EventAgentEnd)[0]
	eq(t, "agent_end messages", len(end.Messages), 2)
	eq(t, "willRetry", end.WillRetry, false)
}

func TestToolsParallelCompletionOrderResultsInCallOrder(t *testing.T) {
	p := &fakeProvider{}
	p.add(calls("Reading.", call{"c1", "slow", `{"n":1}`}, call{"c2", "fast", `{"n":2}`}), text("done"))
	tools := []Tool{echoTool("slow", 80*time.Millisecond), echoTool("fast", 0)}
	a, rec, _ := newTestAgent(t, p, tools, nil)
	if _, err := a.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	got := rec.types()
	// Both calls start in source order, end in completion order, and their results follow in
	// source order.
	i := indexOf(got, "tool_execution_start:c1")
	eq(t, "tool phase", got[i:i+8], []string{
		"tool_execution_start:c1", "tool_execution_start:c2", "tool_execution_end:c2", "tool_execution_end:c1",
		"message_start:toolResult", "message_end:toolResult", "message_start:toolResult", "message_end:toolResult",
	})
	second := p.contexts[1].Messages
	eq(t, "second request length", len(second), 4)
	eq(t, "first result", second[2].ToolCallID, "c1")
	eq(t, "first result text", second[2].Text(), `slow {"n":1}`)
	eq(t, "second result", second[3].ToolCallID, "c2")
	te := rec.find(EventTurnEnd)[0]
	eq(t, "turn_end toolResults", len(te.ToolResults), 2)
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

func TestToolsSequentialWhenACalledToolIsSequential(t *testing.T) {
	p := &fakeProvider{}
	p.add(calls("", call{"c1", "slow", `{}`}, call{"c2", "ask", `{}`}), text("ok"))
	ask := echoTool("ask", 0)
	ask.Sequential = true
	a, rec, _ := newTestAgent(t, p, []Tool{echoTool("slow", 30*time.Millisecond), ask}, nil)
	if _, err := a.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	got := rec.types()
	i := indexOf(got, "tool_execution_start:c1")
	eq(t, "sequential", got[i:i+8], []string{
		"tool_execution_start:c1", "tool_execution_end:c1", "message_start:toolResult", "message_end:toolResult",
		"tool_execution_start:c2", "tool_execution_end:c2", "message_start:toolResult", "message_end:toolResult",
	})
}

func TestUnknownToolInvalidArgumentsAndHooks(t *testing.T) {
	p := &fakeProvider{}
	p.add(calls("", call{"c1", "nope", `{}`}, call{"c2", "strict", `{"x":"a"}`}, call{"c3", "guarded", `{}`}, call{"c4", "wrapped", `{}`}), text("ok"))
	strict := echoTool("strict", 0)
	strict.Parameters = json.RawMessage(`{"type":"object","properties":{"x":{"type":"number"}}}`)
	hooks := Hooks{
		BeforeToolCall: func(ctx context.Context, c CallInfo) (*BeforeResult, error) {
			if c.Call.Name == "guarded" {
				return &BeforeResult{Block: true}, nil
			}
			return nil, nil
		},
		AfterToolCall: func(ctx context.Context, c CallInfo, r Result, isError bool) (*AfterResult, error) {
			if c.Call.Name == "wrapped" {
				yes := true
				return &AfterResult{Content: []llm.Content{llm.TextBlock("replaced")}, IsError: &yes}, nil
			}
			return nil, nil
		},
	}
	a, rec, _ := newTestAgent(t, p, []Tool{strict, echoTool("guarded", 0), echoTool("wrapped", 0)}, func(c *Config) { c.Hooks = hooks })
	if _, err := a.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	res := p.contexts[1].Messages[2:]
	want := []struct {
		text  string
		isErr bool
	}{
		{"Tool nope not found", true},
		{"Validation failed for tool \"strict\":\n  - x: must be number\n\nReceived arguments:\n{\n  \"x\": \"a\"\n}", true},
		{"Tool execution was blocked", true},
		{"replaced", true},
	}
	for i, w := range want {
		eq(t, "result text", res[i].Text(), w.text)
		eq(t, "isError", *res[i].IsError, w.isErr)
	}
	eq(t, "error details", string(res[0].Details), "{}")
	// Immediate failures end before the executed calls start running (pi emits their end
	// during preparation).
	got := rec.types()
	if indexOf(got, "tool_execution_end:c1") > indexOf(got, "tool_execution_start:c2") {
		t.Fatalf("unknown tool's end should precede the next start: %v", got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestSteeringInjectedAfterBatchAndQueueUpdates(t *testing.T) {
	p := &fakeProvider{}
	var a *Agent
	tool := echoTool("work", 0)
	inner := tool.Execute
	tool.Execute = func(ctx context.Context, id string, args json.RawMessage, u func(Result)) (Result, error) {
		a.Steer("change of plan")
		return inner(ctx, id, args, u)
	}
	p.add(calls("", call{"c1", "work", `{}`}), text("steered"))
	var rec *recorder
	a, rec, _ = newTestAgent(t, p, []Tool{tool}, nil)
	if _, err := a.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	second := p.contexts[1].Messages
	eq(t, "steering message sent after the tool result", second[len(second)-1].Text(), "change of plan")
	eq(t, "tool result before it", second[len(second)-2].Role, llm.RoleToolResult)
	qs := rec.find(EventQueueUpdate)
	eq(t, "queue updates", len(qs), 2)
	eq(t, "queued", qs[0].Steering, []string{"change of plan"})
	eq(t, "delivered", qs[1].Steering, []string{})
	got := rec.types()
	i := indexOf(got, "turn_end")
	eq(t, "second turn", got[i:i+5], []string{"turn_end", "turn_start", "queue_update", "message_start:user", "message_end:user"})
}

func TestFollowUpAllMode(t *testing.T) {
	p := &fakeProvider{}
	p.add(text("first"), text("second"))
	a, _, _ := newTestAgent(t, p, nil, func(c *Config) { c.Settings.FollowUpMode = All })
	a.FollowUp("one")
	a.FollowUp("two")
	if _, err := a.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	eq(t, "calls", len(p.contexts), 2)
	m := p.contexts[1].Messages
	eq(t, "both follow-ups at once", []string{m[2].Text(), m[3].Text()}, []string{"one", "two"})
}

func TestAbortDuringToolsEndsRun(t *testing.T) {
	p := &fakeProvider{}
	ctx, cancel := context.WithCancel(context.Background())
	sawSignal := make(chan bool, 1)
	tool := Tool{Tool: llm.Tool{Name: "sleep"}, Execute: func(c context.Context, id string, args json.RawMessage, u func(Result)) (Result, error) {
		cancel()
		<-c.Done()
		sawSignal <- true
		return Result{}, errString("Command aborted")
	}}
	p.add(calls("", call{"c1", "sleep", `{}`}), text("never"))
	a, rec, _ := newTestAgent(t, p, []Tool{tool}, nil)
	last, err := a.Prompt(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	if !<-sawSignal {
		t.Fatal("tool did not get the signal")
	}
	eq(t, "stop reason", last.StopReason, llm.StopAborted)
	got := rec.types()
	eq(t, "ends", got[len(got)-4:], []string{"message_start:assistant", "message_end:assistant", "turn_end", "agent_end"})
	eq(t, "tool result", rec.find(EventToolExecutionEnd)[0].Result.Content[0].Text, "Command aborted")
}

func TestRetryThenSuccess(t *testing.T) {
	p := &fakeProvider{}
	p.add(failure("429 Too Many Requests: rate limited"), text("ok"))
	a, rec, slept := newTestAgent(t, p, nil, nil)
	last, err := a.Prompt(context.Background(), "go")
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "final", last.Text(), "ok")
	eq(t, "slept", *slept, []time.Duration{2 * time.Second})
	got := rec.types()
	eq(t, "events", got, []string{
		"agent_start", "turn_start", "message_start:user", "message_end:user",
		"message_start:assistant", "message_end:assistant", "turn_end", "agent_end", "auto_retry_start",
		"agent_start", "turn_start",
		"message_start:assistant", "message_update:text_start", "message_update:text_delta", "message_update:text_end",
		"message_end:assistant", "auto_retry_end", "turn_end", "agent_end",
	})
	// pi emits auto_retry_end{success} right after the successful message_end.
	i := indexOf(got, "auto_retry_end")
	eq(t, "after message_end", got[i-1], "message_end:assistant")
	eq(t, "first agent_end will retry", rec.find(EventAgentEnd)[0].WillRetry, true)
	rs := rec.find(EventAutoRetryStart)[0]
	eq(t, "retry start", []any{rs.Attempt, rs.MaxAttempts, rs.DelayMs, rs.ErrorMessage}, []any{1, 3, int64(2000), "429 Too Many Requests: rate limited"})
	// The failed message is not sent again.
	eq(t, "retried context", len(p.contexts[1].Messages), 1)
}

func TestRetryExhaustedAndBackoff(t *testing.T) {
	p := &fakeProvider{}
	for i := 0; i < 4; i++ {
		p.add(failure("503 service unavailable"))
	}
	a, rec, slept := newTestAgent(t, p, nil, nil)
	last, _ := a.Prompt(context.Background(), "go")
	eq(t, "stop", last.StopReason, llm.StopError)
	eq(t, "backoff", *slept, []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second})
	end := rec.find(EventAutoRetryEnd)
	eq(t, "final failure", []any{end[0].Success, end[0].Attempt, end[0].FinalError}, []any{false, 3, "503 service unavailable"})
}

func TestRetryCancelled(t *testing.T) {
	p := &fakeProvider{}
	p.add(failure("overloaded"))
	ctx, cancel := context.WithCancel(context.Background())
	a, rec, _ := newTestAgent(t, p, nil, func(c *Config) {
		c.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	})
	a.Prompt(ctx, "go")
	end := rec.find(EventAutoRetryEnd)
	eq(t, "cancelled", end[0].FinalError, "Retry cancelled")
	eq(t, "one call", len(p.contexts), 1)
}

func TestNotRetryable(t *testing.T) {
	for _, m := range []string{"insufficient_quota: 429", "invalid api key", "prompt is too long: 300000 tokens > 200000 maximum"} {
		if IsRetryableError(&llm.Message{StopReason: llm.StopError, ErrorMessage: m}) && !strings.Contains(m, "prompt") {
			t.Errorf("%q retryable", m)
		}
	}
	if !IsContextOverflow(&llm.Message{StopReason: llm.StopError, ErrorMessage: "prompt is too long: 300000 tokens > 200000 maximum"}, 0) {
		t.Error("overflow not detected")
	}
	if IsContextOverflow(&llm.Message{StopReason: llm.StopError, ErrorMessage: "rate limit: too many tokens"}, 0) {
		t.Error("rate limit taken for overflow")
	}
}

func TestLengthStopFailsToolCalls(t *testing.T) {
	p := &fakeProvider{}
	p.add(func(ctx context.Context, c *llm.Context) *llm.Message {
		m := calls("", call{"c1", "work", `{"a":`})(ctx, c)
		m.StopReason = llm.StopLength
		m.Usage = &llm.Usage{Output: 16384, TotalTokens: 16400}
		return m
	}, text("ok"))
	a, _, _ := newTestAgent(t, p, []Tool{echoTool("work", 0)}, nil)
	a.Prompt(context.Background(), "go")
	r := p.contexts[1].Messages[2]
	eq(t, "truncated", r.Text(), `Tool call "work" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.`)
}

func TestTerminateOnlyWhenEveryResultTerminates(t *testing.T) {
	p := &fakeProvider{}
	stop := Tool{Tool: llm.Tool{Name: "stop"}, Execute: func(context.Context, string, json.RawMessage, func(Result)) (Result, error) {
		return Result{Content: []llm.Content{llm.TextBlock("bye")}, Terminate: true}, nil
	}}
	p.add(calls("", call{"c1", "stop", `{}`}))
	a, _, _ := newTestAgent(t, p, []Tool{stop}, nil)
	a.Prompt(context.Background(), "go")
	eq(t, "no second call", len(p.contexts), 1)
}

func TestToolUpdatesAndEventJSON(t *testing.T) {
	p := &fakeProvider{}
	tool := Tool{Tool: llm.Tool{Name: "bash"}, Execute: func(ctx context.Context, id string, args json.RawMessage, u func(Result)) (Result, error) {
		u(Result{Content: []llm.Content{llm.TextBlock("partial")}})
		return Result{Content: []llm.Content{llm.TextBlock("full")}}, nil
	}}
	p.add(calls("Running.", call{"c1", "bash", `{"command":"ls"}`}), text("done"))
	a, rec, _ := newTestAgent(t, p, []Tool{tool}, nil)
	a.Prompt(context.Background(), "go")
	up := rec.find(EventToolExecutionUpdate)
	eq(t, "updates", len(up), 1)
	b, _ := json.Marshal(up[0])
	eq(t, "update json", string(b), `{"type":"tool_execution_update","toolCallId":"c1","toolName":"bash","args":{"command":"ls"},"partialResult":{"content":[{"type":"text","text":"partial"}]}}`)
	var starts []string
	for _, e := range rec.find(EventMessageUpdate) {
		if e.AssistantEvent.Type == llm.EventToolCallStart {
			b, _ := json.Marshal(e)
			starts = append(starts, string(b))
		}
	}
	eq(t, "toolcall_start json", starts, []string{`{"type":"message_update","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"assistantMessageEvent":{"type":"toolcall_start","contentIndex":1,"id":"c1","toolName":"bash"}}`})
	b, _ = json.Marshal(rec.find(EventToolExecutionEnd)[0])
	eq(t, "end json", string(b), `{"type":"tool_execution_end","toolCallId":"c1","toolName":"bash","result":{"content":[{"type":"text","text":"full"}]},"isError":false}`)
}

// TestParallelCap is issue 20's batch finding: one reply with many calls runs at most
// MaxParallelTools of them at once (the rest queue, not refused), and the results still
// follow the call order. The safe twin: a batch under the cap runs all at once.
func TestParallelCap(t *testing.T) {
	for _, c := range []struct{ calls, cap, wantPeak int }{{40, 4, 4}, {3, 8, 3}} {
		var mu sync.Mutex
		running, peak := 0, 0
		tool := Tool{Tool: llm.Tool{Name: "work", Parameters: json.RawMessage(`{"type":"object"}`)},
			Execute: func(ctx context.Context, id string, args json.RawMessage, update func(Result)) (Result, error) {
				mu.Lock()
				running++
				peak = max(peak, running)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
				mu.Lock()
				running--
				mu.Unlock()
				return Result{Content: []llm.Content{llm.TextBlock(id)}}, nil
			}}
		var cs []call
		for i := 0; i < c.calls; i++ {
			cs = append(cs, call{fmt.Sprintf("c%d", i), "work", "{}"})
		}
		p := &fakeProvider{}
		p.add(calls("", cs...), text("done"))
		a, _, _ := newTestAgent(t, p, []Tool{tool}, func(cfg *Config) { cfg.Settings.MaxParallelTools = c.cap })
		if _, err := a.Prompt(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		if peak != c.wantPeak {
			t.Errorf("%d calls, cap %d: peak %d running, want %d", c.calls, c.cap, peak, c.wantPeak)
		}
		msgs := p.contexts[1].Messages
		for i := 0; i < c.calls; i++ {
			if got := msgs[2+i].ToolCallID; got != fmt.Sprintf("c%d", i) {
				t.Fatalf("result %d is %s", i, got)
			}
		}
	}
	if DefaultSettings().MaxParallelTools != 0 || DefaultMaxParallelTools != 8 {
		t.Fatal("the default cap moved")
	}
}

// TestSyncEmitAsksForLivePartials: a synchronous Emit (pigo -p) lets the provider stream
// without a copy of the message per event; the chat's asynchronous one does not.
func TestSyncEmitAsksForLivePartials(t *testing.T) {
	for _, sync := range []bool{true, false} {
		p := &fakeProvider{}
		p.add(text("hi"))
		a, _, _ := newTestAgent(t, p, nil, func(c *Config) { c.SyncEmit = sync })
		if _, err := a.Prompt(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		if p.options[0].LivePartials != sync {
			t.Errorf("SyncEmit %v: LivePartials %v", sync, p.options[0].LivePartials)
		}
	}
}

// TestMessagesIsAView: Messages does not copy the transcript (print mode asked for it once
// per run to find the last reply: a copy of every message of a long session), and what a
// caller appends to it never reaches the transcript or an earlier view.
func TestMessagesIsAView(t *testing.T) {
	p := &fakeProvider{}
	p.add(text("one"))
	p.add(text("two"))
	a, _, _ := newTestAgent(t, p, nil, nil)
	if _, err := a.Prompt(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(10, func() { a.Messages() }); n != 0 {
		t.Fatalf("Messages allocates %v times, want 0 (a view)", n)
	}
	v := a.Messages()
	_ = append(v, llm.Message{Role: llm.RoleUser})
	if _, err := a.Prompt(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	eq(t, "earlier view", len(v), 2)
	eq(t, "earlier view's last", v[1].Text(), "one")
	got := a.Messages()
	eq(t, "transcript", len(got), 4)
	eq(t, "transcript's third", got[2].Text(), "again")
	eq(t, "transcript's last", got[3].Text(), "two")
}

// goid is the calling goroutine's id, read from its stack's header ("goroutine N [...").
func goid() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	f := strings.Fields(string(b))
	return f[1]
}

// TestLastCallRunsOnTheLoop: a reply's last call runs on the loop's own goroutine (a single
// call starts no goroutine and wakes no second thread); the others still run beside it.
func TestLastCallRunsOnTheLoop(t *testing.T) {
	for _, n := range []int{1, 3} {
		var mu sync.Mutex
		on := map[string]string{}
		tool := Tool{Tool: llm.Tool{Name: "work", Parameters: json.RawMessage(`{"type":"object"}`)},
			Execute: func(ctx context.Context, id string, args json.RawMessage, update func(Result)) (Result, error) {
				mu.Lock()
				on[id] = goid()
				mu.Unlock()
				return Result{Content: []llm.Content{llm.TextBlock(id)}}, nil
			}}
		var cs []call
		for i := range n {
			cs = append(cs, call{fmt.Sprintf("c%d", i), "work", "{}"})
		}
		p := &fakeProvider{}
		p.add(calls("", cs...), text("done"))
		a, _, _ := newTestAgent(t, p, []Tool{tool}, nil)
		loop := goid()
		if _, err := a.Prompt(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			id := fmt.Sprintf("c%d", i)
			if last := i == n-1; (on[id] == loop) != last {
				t.Errorf("%d calls: call %s ran on goroutine %s, the loop's is %s", n, id, on[id], loop)
			}
		}
	}
}

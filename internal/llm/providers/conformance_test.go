package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// The conformance suite: every registered wire client, the same scripted streams served by the
// loopback server in the client's own wire format, the same invariants. A new API plugs in by
// registering itself and teaching llmtest its wire format; nothing here is per provider.

func conformModel(srv *llmtest.Server, api string) *llm.Model {
	return &llm.Model{Provider: "local", ID: "m", API: api, BaseURL: srv.BaseURL(api), APIKey: llmtest.Key(api),
		Input: []string{"text", "image"}, ContextWindow: 128000, MaxTokens: 16384, Reasoning: true,
		Cost: llm.Cost{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
}

func conformCtx() *llm.Context {
	return &llm.Context{SystemPrompt: "You are terse.", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("go")}, Timestamp: 1}},
		Tools: []llm.Tool{{Name: "ls", Description: "List files", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
}

func streamTurn(t *testing.T, ctx context.Context, api string, turn llmtest.Turn, o *llm.Options) (*llm.Message, []llm.Event, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(t)
	srv.Push(turn)
	p, err := llm.ProviderFor(api)
	if err != nil {
		t.Fatal(err)
	}
	var evs []llm.Event
	msg := p.Stream(ctx, conformModel(srv, api), conformCtx(), o, func(e llm.Event) { evs = append(evs, e) })
	checkEvents(t, evs, msg)
	return msg, evs, srv
}

// checkEvents: "start" first when anything streamed, exactly one done or error and last, each
// block opened before its deltas and closed once, indexes in range, the final message the last
// event's.
func checkEvents(t *testing.T, evs []llm.Event, msg *llm.Message) {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	last := evs[len(evs)-1]
	switch last.Type {
	case llm.EventDone:
		if last.Message == nil || !reflect.DeepEqual(last.Message, msg) {
			t.Errorf("done carries another message")
		}
	case llm.EventError:
		if last.Error == nil || last.Error.ErrorMessage == "" || (msg.StopReason != llm.StopError && msg.StopReason != llm.StopAborted) {
			t.Errorf("error event %+v, message %s %q", last.Error, msg.StopReason, msg.ErrorMessage)
		}
	default:
		t.Fatalf("last event %s", last.Type)
	}
	open := map[int]string{}
	closed := map[int]bool{}
	for i, e := range evs {
		if (e.Type == llm.EventDone || e.Type == llm.EventError) && i != len(evs)-1 {
			t.Errorf("%s at %d of %d", e.Type, i, len(evs))
		}
		if e.Type == llm.EventStart && i != 0 {
			t.Errorf("start at %d", i)
		}
		if e.ContentIndex == nil {
			continue
		}
		ci := *e.ContentIndex
		kind, _, _ := strings.Cut(e.Type, "_")
		switch {
		case strings.HasSuffix(e.Type, "_start"):
			if _, dup := open[ci]; dup {
				t.Errorf("block %d started twice", ci)
			}
			open[ci] = kind
		case strings.HasSuffix(e.Type, "_delta"), strings.HasSuffix(e.Type, "_end"):
			if open[ci] != kind || closed[ci] {
				t.Errorf("%s for block %d (%q, closed %v)", e.Type, ci, open[ci], closed[ci])
			}
			if strings.HasSuffix(e.Type, "_end") {
				closed[ci] = true
			}
		}
		if e.Partial == nil || ci >= len(e.Partial.Content) {
			t.Errorf("%s: index %d outside the partial message", e.Type, ci)
		}
	}
	if msg.StopReason == llm.StopStop || msg.StopReason == llm.StopToolUse || msg.StopReason == llm.StopLength {
		for ci := range open {
			if !closed[ci] {
				t.Errorf("block %d never ended", ci)
			}
		}
	}
	if _, err := json.Marshal(msg); err != nil {
		t.Errorf("final message does not marshal: %v", err)
	}
}

func forEachAPI(t *testing.T, f func(t *testing.T, api string)) {
	for _, api := range llm.APIs() {
		t.Run(api, func(t *testing.T) {
			t.Parallel()
			f(t, api)
		})
	}
}

func TestConformText(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		for _, shape := range []struct{ chunk int }{{0}, {1}, {5}} {
			turn := llmtest.Turn{Text: "Hello there, world. Ünïcödé ✓.", Usage: llmtest.Usage{Input: 100, Output: 20, CacheRead: 50}, Chunk: shape.chunk, Noise: shape.chunk == 5}
			msg, _, _ := streamTurn(t, context.Background(), api, turn, nil)
			if msg.StopReason != llm.StopStop || msg.Text() != turn.Text {
				t.Fatalf("chunk %d: %s %q text %q", shape.chunk, msg.StopReason, msg.ErrorMessage, msg.Text())
			}
			u := msg.Usage
			if u.Input != 100 || u.Output != 20 || u.CacheRead != 50 || u.TotalTokens != 170 {
				t.Errorf("usage %+v", u)
			}
			if u.Cost.Total <= 0 || u.Cost.Total != u.Cost.Input+u.Cost.Output+u.Cost.CacheRead+u.Cost.CacheWrite {
				t.Errorf("cost %+v", u.Cost)
			}
			if msg.API != api || msg.Provider != "local" || msg.Model != "m" {
				t.Errorf("identity %s %s %s", msg.API, msg.Provider, msg.Model)
			}
		}
	})
}

func TestConformThinkingAndTools(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		turn := llmtest.Turn{Thinking: "Let me look.", Text: "Looking.", ToolCalls: []llmtest.ToolCall{
			{Name: "ls", Args: `{"path":"a b/ü"}`}, {Name: "ls", Args: `{"path":"."}`}}}
		msg, evs, _ := streamTurn(t, context.Background(), api, turn, &llm.Options{ThinkingLevel: "medium"})
		if msg.StopReason != llm.StopToolUse {
			t.Fatalf("%s %q", msg.StopReason, msg.ErrorMessage)
		}
		tcs := msg.ToolCalls()
		if len(tcs) != 2 || string(tcs[0].Arguments) != `{"path":"a b/ü"}` || string(tcs[1].Arguments) != `{"path":"."}` || tcs[0].Name != "ls" {
			t.Fatalf("tool calls %+v", tcs)
		}
		if tcs[0].ID == "" || tcs[0].ID == tcs[1].ID {
			t.Errorf("tool call ids %q %q", tcs[0].ID, tcs[1].ID)
		}
		if msg.Text() != "Looking." {
			t.Errorf("text %q", msg.Text())
		}
		var thinking string
		for _, c := range msg.Content {
			if c.Type == llm.TypeThinking {
				thinking += c.Thinking
			}
		}
		if thinking != "Let me look." {
			t.Errorf("thinking %q in %s", thinking, llmtest.EventTypes(evs))
		}
	})
}

func TestConformLength(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		msg, _, _ := streamTurn(t, context.Background(), api, llmtest.Turn{Text: "cut", StopReason: "length"}, nil)
		if msg.StopReason != llm.StopLength || msg.Text() != "cut" {
			t.Errorf("%s %q", msg.StopReason, msg.ErrorMessage)
		}
	})
}

// Every fault ends in one error event with a message, an HTTP failure keeps its status (the
// credential layer refreshes on a 401), and nothing streamed before it is lost.
func TestConformFaults(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		for _, tc := range []struct {
			name   string
			turn   llmtest.Turn
			status int
		}{
			{"429", llmtest.Turn{Fault: llmtest.RateLimit, RetryAfter: "1"}, 429},
			{"500", llmtest.Turn{Fault: llmtest.ServerError}, 500},
			{"overflow", llmtest.Turn{Fault: llmtest.ContextOverflow}, 400},
			{"401", llmtest.Turn{Fault: llmtest.Unauthorized}, 401},
			{"disconnect", llmtest.Turn{Text: "a b c d e f g h i j k l m n o p", Fault: llmtest.Disconnect, DisconnectAfter: 400}, 0},
			{"stream-error", llmtest.Turn{Text: "a b", Fault: llmtest.StreamError}, 0},
			{"truncated", llmtest.Turn{Text: "a b c d e f", Fault: llmtest.Truncated, DisconnectAfter: 300}, 0},
		} {
			msg, _, _ := streamTurn(t, context.Background(), api, tc.turn, nil)
			if msg.StopReason != llm.StopError || msg.ErrorMessage == "" {
				t.Errorf("%s: %s %q", tc.name, msg.StopReason, msg.ErrorMessage)
			}
			if msg.HTTPStatus() != tc.status {
				t.Errorf("%s: status %d, want %d", tc.name, msg.HTTPStatus(), tc.status)
			}
		}
	})
}

func TestConformAbort(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		srv := llmtest.New(t)
		srv.Push(llmtest.Turn{Text: "a b c d e f g h i j", Delay: 20e6})
		p, _ := llm.ProviderFor(api)
		var evs []llm.Event
		msg := p.Stream(ctx, conformModel(srv, api), conformCtx(), nil, func(e llm.Event) {
			evs = append(evs, e)
			if e.Type == llm.EventTextDelta {
				cancel()
			}
		})
		checkEvents(t, evs, msg)
		if msg.StopReason != llm.StopAborted || msg.ErrorMessage != llm.StreamAborted {
			t.Errorf("%s %q", msg.StopReason, msg.ErrorMessage)
		}
	})
}

// Stream bounds (issue 20): a reply over the byte or tool-call bound stops with a clear error;
// the same reply within the bounds works.
func TestConformBounds(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		big := llmtest.Turn{Text: strings.Repeat("word ", 2000)}
		msg, _, _ := streamTurn(t, context.Background(), api, big, &llm.Options{Limits: &llm.Limits{MaxBytes: 4096}})
		if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "limit for one reply") {
			t.Errorf("bytes: %s %q", msg.StopReason, msg.ErrorMessage)
		}
		if msg.Text() == "" || len(msg.Text()) > 4096+1024 {
			t.Errorf("kept %d bytes of text", len(msg.Text()))
		}
		args := `{"content":"` + strings.Repeat("x", 8000) + `"}`
		msg, _, _ = streamTurn(t, context.Background(), api, llmtest.Turn{ToolCalls: []llmtest.ToolCall{{Name: "ls", Args: args}}}, &llm.Options{Limits: &llm.Limits{MaxBytes: 4096}})
		if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "limit for one reply") {
			t.Errorf("arguments: %s %q", msg.StopReason, msg.ErrorMessage)
		}
		var calls []llmtest.ToolCall
		for i := range 12 {
			calls = append(calls, llmtest.ToolCall{Name: "ls", Args: fmt.Sprintf(`{"path":"%d"}`, i)})
		}
		msg, _, _ = streamTurn(t, context.Background(), api, llmtest.Turn{ToolCalls: calls}, &llm.Options{Limits: &llm.Limits{MaxToolCalls: 10}})
		if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, "more than 10 tool calls") {
			t.Errorf("calls: %s %q", msg.StopReason, msg.ErrorMessage)
		}
		msg, _, _ = streamTurn(t, context.Background(), api, llmtest.Turn{ToolCalls: calls}, nil)
		if msg.StopReason != llm.StopToolUse || len(msg.ToolCalls()) != 12 {
			t.Errorf("safe twin: %s %q %d calls", msg.StopReason, msg.ErrorMessage, len(msg.ToolCalls()))
		}
	})
}

// Two distinct calls streamed with the same id stay two calls with two ids; absurd usage
// numbers are sanitized.
func TestConformDuplicateIDsAndUsage(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		turn := llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: "call_dup", Name: "ls", Args: `{"path":"a"}`}, {ID: "call_dup", Name: "ls", Args: `{"path":"b"}`}},
			Usage: llmtest.Usage{Input: -5, Output: 1 << 40}}
		msg, _, _ := streamTurn(t, context.Background(), api, turn, nil)
		tcs := msg.ToolCalls()
		if len(tcs) != 2 || string(tcs[0].Arguments) != `{"path":"a"}` || string(tcs[1].Arguments) != `{"path":"b"}` {
			t.Fatalf("%s %q calls %+v", msg.StopReason, msg.ErrorMessage, tcs)
		}
		if tcs[0].ID == tcs[1].ID {
			t.Errorf("duplicate ids kept: %q", tcs[0].ID)
		}
		u := msg.Usage
		if u.Input < 0 || u.Output > llm.MaxUsageTokens || u.TotalTokens < 0 || u.TotalTokens > llm.MaxUsageTokens {
			t.Errorf("usage not sanitized: %+v", u)
		}
	})
}

// creds is a credential that changes when refreshed, counting the refreshes.
type creds struct {
	api       string
	refreshes int
}

func (c *creds) Resolve(_ context.Context, refresh bool) (llm.RequestAuth, error) {
	if refresh {
		c.refreshes++
	}
	key := fmt.Sprintf("token-%d-", c.refreshes)
	if c.api == llmtest.CodexResponses {
		key = llmtest.CodexToken(key)
	}
	return llm.RequestAuth{APIKey: key}, nil
}

// A 401 makes the credential refresh once and the request go again; the listener sees one
// stream, not the failed attempt.
func TestConformRefreshOn401(t *testing.T) {
	forEachAPI(t, func(t *testing.T, api string) {
		srv := llmtest.New(t)
		srv.Push(llmtest.Turn{Fault: llmtest.Unauthorized}, llmtest.Turn{Text: "again"})
		p, _ := llm.ProviderFor(api)
		m := conformModel(srv, api)
		c := &creds{api: api}
		m.Auth = c
		var evs []llm.Event
		msg := p.Stream(context.Background(), m, conformCtx(), nil, func(e llm.Event) { evs = append(evs, e) })
		checkEvents(t, evs, msg)
		if msg.Text() != "again" || c.refreshes != 1 || len(srv.Requests()) != 2 {
			t.Fatalf("%s %q text %q after %d refreshes and %d requests", msg.StopReason, msg.ErrorMessage, msg.Text(), c.refreshes, len(srv.Requests()))
		}
		for _, e := range evs {
			if e.Type == llm.EventError {
				t.Errorf("the 401 reached the listener")
			}
		}
		second := fmt.Sprint(srv.Requests()[1].Header)
		if !strings.Contains(second, "token-1-") && !strings.Contains(second, llmtest.CodexToken("token-1-")) {
			t.Errorf("the retry did not carry the refreshed token: %s", second)
		}
		// A second 401 ends the stream (no loop).
		srv.Push(llmtest.Turn{Fault: llmtest.Unauthorized}, llmtest.Turn{Fault: llmtest.Unauthorized})
		msg = p.Stream(context.Background(), m, conformCtx(), nil, nil)
		if msg.StopReason != llm.StopError || msg.HTTPStatus() != 401 || c.refreshes != 2 {
			t.Errorf("twice 401: %s %d after %d refreshes", msg.StopReason, msg.HTTPStatus(), c.refreshes)
		}
	})
}

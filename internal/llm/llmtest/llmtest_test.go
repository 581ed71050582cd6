package llmtest

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return resp, string(b) + "<read error: " + err.Error() + ">"
	}
	return resp, string(b)
}

func TestScriptedTurnsPerAPI(t *testing.T) {
	s := New(t)
	turn := Turn{Thinking: "Let me see.", Text: "Reading now.", ToolCalls: []ToolCall{{Name: "ls", Args: `{"path":"."}`}}, Usage: Usage{Input: 10, Output: 5}}
	s.Push(turn, turn, turn)
	for _, c := range []struct{ path, want string }{
		{"/v1/chat/completions", `"finish_reason":"tool_calls"`},
		{"/v1/messages", `"stop_reason":"tool_use"`},
		{"/v1/responses", `"type":"response.completed"`},
	} {
		resp, body := post(t, s.URL+c.path, `{"model":"m","stream":true}`)
		if resp.StatusCode != 200 || !strings.Contains(body, c.want) || !strings.Contains(body, "ls") {
			t.Errorf("%s: %d %s", c.path, resp.StatusCode, body)
		}
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[1].API != AnthropicMessages || reqs[2].JSON()["model"] != "m" {
		t.Errorf("requests: %+v", reqs)
	}
}

func TestFaults(t *testing.T) {
	s := New(t)
	s.Push(Turn{Fault: RateLimit, RetryAfter: "3"}, Turn{Fault: Overloaded}, Turn{Fault: ContextOverflow})
	resp, body := post(t, s.URL+"/v1/chat/completions", `{}`)
	if resp.StatusCode != 429 || resp.Header.Get("retry-after") != "3" || !strings.Contains(body, "rate_limit_exceeded") {
		t.Errorf("429: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp, body = post(t, s.URL+"/v1/messages", `{}`)
	if resp.StatusCode != 529 || !strings.Contains(body, "overloaded_error") {
		t.Errorf("529: %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, s.URL+"/v1/messages", `{}`)
	if resp.StatusCode != 400 || !strings.Contains(body, "prompt is too long") {
		t.Errorf("overflow: %d %s", resp.StatusCode, body)
	}
	_, body = post(t, s.URL+"/v1/messages", `{}`)
	if !strings.Contains(body, "no response queued") {
		t.Errorf("empty queue: %s", body)
	}
}

func TestDisconnect(t *testing.T) {
	s := New(t)
	s.Push(Turn{Text: "one two three four five six", Fault: Disconnect, DisconnectAfter: 200})
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err == nil || len(b) != 200 {
		t.Errorf("read %d bytes, err %v", len(b), err)
	}
}

func TestChunkAndNoise(t *testing.T) {
	s := New(t)
	s.Push(Turn{Text: "a b c", Chunk: 3, Noise: true})
	_, body := post(t, s.URL+"/v1/messages", `{}`)
	if !strings.Contains(body, ": keep-alive") || !strings.Contains(body, "event: ping") || !strings.Contains(body, "message_stop") {
		t.Errorf("body: %s", body)
	}
}

func TestReplayFixtures(t *testing.T) {
	c := Fixture(t, "anthropic/messages-tool-streaming.yaml")
	if len(c.Interactions) != 2 {
		t.Fatalf("%d interactions", len(c.Interactions))
	}
	s := New(t)
	tr := c.Interactions[0].Turn()
	tr.Chunk = 5
	s.Push(tr)
	resp, body := post(t, s.URL+"/v1/messages", `{}`)
	if resp.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" || body != c.Interactions[0].Response.Body {
		t.Errorf("replay differs: %q", body)
	}
	c = Fixture(t, "openrouter/chat-completions-429-then-retry-streaming.yaml")
	s.Push(c.Interactions[0].Turn())
	resp, _ = post(t, s.URL+"/api/v1/chat/completions", `{}`)
	if resp.StatusCode != 429 {
		t.Errorf("429 replay: %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(strings.NewReader(body))
	n := 0
	for sc.Scan() {
		n++
	}
	if n < 10 {
		t.Errorf("only %d lines", n)
	}
}

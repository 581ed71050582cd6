package llm

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// reflectMessageJSON is Message's MarshalJSON as it was before AppendMessageJSON (encoding/json
// by reflection), kept as the oracle: AppendMessageJSON must give JSONStringify of its bytes —
// the same object, written as JSON.stringify writes it.
func reflectMessageJSON(m Message) ([]byte, error) {
	type plain Message
	if m.StringContent && len(m.Content) == 1 && m.Content[0].Type == TypeText {
		return json.Marshal(struct {
			Role    string `json:"role"`
			Content string `json:"content"`
			plain
		}{m.Role, m.Content[0].Text, plain(m)})
	}
	if m.Content == nil {
		m.Content = []Content{}
	}
	cs := make([]reflectContent, len(m.Content))
	for i, c := range m.Content {
		cs[i] = reflectContent(c)
	}
	return json.Marshal(struct {
		Role    string           `json:"role"`
		Content []reflectContent `json:"content"`
		plain
	}{m.Role, cs, plain(m)})
}

type reflectContent Content

func (c reflectContent) MarshalJSON() ([]byte, error) {
	type plain Content
	switch c.Type {
	case TypeText:
		return json.Marshal(struct {
			Type          string `json:"type"`
			Text          string `json:"text"`
			TextSignature string `json:"textSignature,omitempty"`
		}{c.Type, c.Text, c.TextSignature})
	case TypeThinking:
		return json.Marshal(struct {
			Type              string `json:"type"`
			Thinking          string `json:"thinking"`
			ThinkingSignature string `json:"thinkingSignature,omitempty"`
			Redacted          bool   `json:"redacted,omitempty"`
		}{c.Type, c.Thinking, c.ThinkingSignature, c.Redacted})
	case TypeToolCall:
		args := c.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return json.Marshal(struct {
			Type             string          `json:"type"`
			ID               string          `json:"id"`
			Name             string          `json:"name"`
			Arguments        json.RawMessage `json:"arguments"`
			ThoughtSignature string          `json:"thoughtSignature,omitempty"`
		}{c.Type, c.ID, c.Name, args, c.ThoughtSignature})
	}
	return json.Marshal(plain(c))
}

// checkMessageJSON compares AppendMessageJSON with the oracle on m.
func checkMessageJSON(t *testing.T, m Message) {
	t.Helper()
	old, oerr := reflectMessageJSON(m)
	got, err := AppendMessageJSON([]byte("prefix"), &m)
	if oerr != nil {
		if err == nil {
			t.Errorf("encoding/json failed (%v), AppendMessageJSON wrote %s", oerr, got)
		}
		return
	}
	if err != nil {
		t.Fatalf("AppendMessageJSON: %v (encoding/json wrote %s)", err, old)
	}
	if !strings.HasPrefix(string(got), "prefix") {
		t.Fatalf("the prefix was not kept: %s", got)
	}
	want, err := JSONStringify(old)
	if err != nil {
		t.Fatalf("JSONStringify(%s): %v", old, err)
	}
	if got := string(got[len("prefix"):]); got != string(want) {
		t.Errorf("AppendMessageJSON:\n got  %s\n want %s\n (encoding/json: %s)", got, want, old)
	}
	if mj, err := m.MarshalJSON(); err != nil || string(mj) != string(want) {
		t.Errorf("MarshalJSON: %s, %v; want %s", mj, err, want)
	}
}

func TestAppendMessageJSONMatchesStringify(t *testing.T) {
	yes, no := true, false
	r, w1h := 7, 0
	tricky := "q <&> \u2028\u2029 \"\\ \b\f\n\r\t \x01\x1f \x7f é 😀 \xff\xfe bad"
	msgs := []Message{
		{Role: RoleUser, Content: []Content{TextBlock(tricky)}, Timestamp: 1},
		{Role: RoleUser, Content: []Content{TextBlock("plain <b>")}, StringContent: true, Timestamp: 2},
		{Role: RoleUser, Content: []Content{TextBlock("")}, StringContent: true, Timestamp: 2},
		{Role: RoleUser, Content: []Content{TextBlock("a"), TextBlock("b")}, StringContent: true, Timestamp: 2},
		{Role: RoleUser, Timestamp: -3},
		{Role: RoleUser, Content: []Content{{Type: "image", Data: "aGk=", MimeType: "image/png"}}, Timestamp: 4},
		{Role: RoleUser, Content: []Content{{Type: "other", Text: "t<", Redacted: true, ID: "i", Name: "n", Arguments: json.RawMessage(`{"a": 1.50, "b":"\u003c"}`), ThoughtSignature: "s"}}},
		{Role: RoleAssistant, Content: []Content{
			{Type: TypeThinking, Thinking: "hm <x>", ThinkingSignature: "sig&", Redacted: true},
			{Type: TypeThinking, Thinking: ""},
			{Type: TypeText, Text: "ok", TextSignature: `{"v":1}`},
			{Type: TypeToolCall, ID: "call_1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls && echo <x>"}`), ThoughtSignature: "ts"},
			{Type: TypeToolCall, ID: "call_2", Name: "read"},
			{Type: TypeToolCall, ID: "call_3", Name: "n", Arguments: json.RawMessage(` { "n" : 1e2, "f": -0.0, "u": "\u00e9\ud83d\ude00", "a": [ 1 , true, null ] } `)},
		}, API: "openai-completions", Provider: "p<", Model: "m", ResponseID: "r",
			Usage: &Usage{Input: 10, Output: 20, CacheRead: 1, CacheWrite: 2, Reasoning: &r, TotalTokens: 33,
				Cost: Cost{Input: 0.0000012, Output: 1e21, CacheRead: 1.5, CacheWrite: 1e-7, Total: 123456789.125}, CacheWrite1h: &w1h},
			StopReason: StopToolUse, ErrorMessage: "e&", ResponseModel: "rm", RawStopReason: "tool_calls", ProviderThinkingLevel: "high", Timestamp: 1700000000000},
		{Role: RoleAssistant, Usage: &Usage{}, StopReason: StopStop, Timestamp: 5},
		{Role: RoleToolResult, ToolCallID: "call_1", ToolName: "bash", Content: []Content{TextBlock("out <&>")},
			Details: json.RawMessage(`{"diff":"-a\n+b <&>","n":1.0,"nested":{"x":[{}]}}`), IsError: &no, Timestamp: 6},
		{Role: RoleToolResult, ToolCallID: "c", ToolName: "t", Content: []Content{TextBlock("")}, IsError: &yes, Details: json.RawMessage(`null`)},
		{Role: RoleToolResult, Details: json.RawMessage(`{"a":1,"a":2}`)},
		{Role: RoleToolResult, Details: json.RawMessage(`{"2":1,"1":2,"b":3}`)},
	}
	for _, m := range msgs {
		checkMessageJSON(t, m)
	}
	// Arguments that are not JSON fail both ways.
	bad := Message{Role: RoleAssistant, Content: []Content{{Type: TypeToolCall, ID: "x", Name: "y", Arguments: json.RawMessage(`{"a":`)}}}
	if _, err := AppendMessageJSON(nil, &bad); err == nil {
		t.Error("invalid arguments: no error")
	}
	if _, err := bad.MarshalJSON(); err == nil {
		t.Error("invalid arguments: MarshalJSON gave no error")
	}
	// A cost that is not finite is JSON.stringify's null (encoding/json refused it).
	inf := Message{Role: RoleAssistant, Usage: &Usage{Cost: Cost{Total: math.Inf(1), Input: math.NaN()}}}
	got, err := AppendMessageJSON(nil, &inf)
	if err != nil || !strings.Contains(string(got), `"cost":{"input":null,"output":0,"cacheRead":0,"cacheWrite":0,"total":null}`) {
		t.Errorf("non-finite cost: %s, %v", got, err)
	}
}

// TestAppendMessageJSONRealSession compares every message of a real pi session (pi's
// large-session.jsonl fixture, when PIGO_GROWTH_SESSION or /tmp/large-session.jsonl has it).
func TestAppendMessageJSONRealSession(t *testing.T) {
	path := os.Getenv("PIGO_GROWTH_SESSION")
	if path == "" {
		path = "/tmp/large-session.jsonl"
	}
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("no real session at %s (set PIGO_GROWTH_SESSION)", path)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	n := 0
	for sc.Scan() {
		var e struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Type != "message" {
			continue
		}
		var m Message
		if json.Unmarshal(e.Message, &m) != nil {
			continue
		}
		checkMessageJSON(t, m)
		n++
	}
	if n == 0 {
		t.Fatalf("%s: no messages", path)
	}
	t.Logf("%d messages", n)
}

func FuzzAppendMessageJSON(f *testing.F) {
	f.Add(`{"role":"user","content":"a<b","timestamp":1}`)
	f.Add(`{"role":"assistant","content":[{"type":"toolCall","id":"1","name":"n","arguments":{"a":"&"}},{"type":"thinking","thinking":"t","redacted":true}],"usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0.001,"output":1e-9,"cacheRead":0,"cacheWrite":0,"total":1e300}},"stopReason":"toolUse","timestamp":2}`)
	f.Add(`{"role":"toolResult","toolCallId":"1","toolName":"x","content":[{"type":"text","text":"\u2028\u0000"}],"details":{"k":[1.5,"\u003e"]},"isError":false,"timestamp":3}`)
	f.Add(`{"role":"user","content":[{"type":"image","data":"x","mimeType":"image/png"}],"timestamp":0}`)
	f.Fuzz(func(t *testing.T, s string) {
		var m Message
		if json.Unmarshal([]byte(s), &m) != nil {
			return
		}
		checkMessageJSON(t, m)
	})
}

package llm

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestTransformMessages(t *testing.T) {
	m := &Model{Provider: "p", API: "openai-completions", ID: "m", Input: []string{"text"}}
	img := Content{Type: TypeImage, MimeType: "image/png", Data: "x"}
	f := false
	msgs := []Message{
		{Role: RoleUser, Content: []Content{TextBlock("a"), img, img, TextBlock("b")}},
		// another model's assistant: thinking becomes text, empty thinking is dropped, the
		// tool call id goes through normalize
		{Role: RoleAssistant, Provider: "q", API: "anthropic-messages", Model: "x", StopReason: StopToolUse, Content: []Content{
			{Type: TypeThinking, Thinking: "pondering", ThinkingSignature: "sig"}, {Type: TypeThinking, Thinking: "  "},
			{Type: TypeThinking, Thinking: "secret", Redacted: true, ThinkingSignature: "opaque"},
			{Type: TypeToolCall, ID: "call|1", Name: "ls", ThoughtSignature: "ts"}, {Type: TypeToolCall, ID: "c2", Name: "ls"}}},
		{Role: RoleToolResult, ToolCallID: "call|1", ToolName: "ls", Content: []Content{TextBlock("ok"), img}, IsError: &f},
		// an errored assistant is skipped
		{Role: RoleAssistant, Provider: "p", API: "openai-completions", Model: "m", StopReason: StopError, Content: []Content{TextBlock("half")}},
		{Role: RoleUser, Content: []Content{TextBlock("next")}},
	}
	out := TransformMessages(msgs, m, func(id string, _ *Message) string { return "n_" + id })
	got, _ := json.Marshal(out)
	want := `[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"(image omitted: model does not support images)"},{"type":"text","text":"b"}],"timestamp":0},` +
		`{"role":"assistant","content":[{"type":"text","text":"pondering"},{"type":"toolCall","id":"n_call|1","name":"ls","arguments":{}},{"type":"toolCall","id":"n_c2","name":"ls","arguments":{}}],"api":"anthropic-messages","provider":"q","model":"x","stopReason":"toolUse","timestamp":0},` +
		`{"role":"toolResult","content":[{"type":"text","text":"ok"},{"type":"text","text":"(tool image omitted: model does not support images)"}],"toolCallId":"n_call|1","toolName":"ls","isError":false,"timestamp":0},` +
		`{"role":"toolResult","content":[{"type":"text","text":"No result provided"}],"toolCallId":"n_c2","toolName":"ls","isError":true,"timestamp":0},` +
		`{"role":"user","content":[{"type":"text","text":"next"}],"timestamp":0}]`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestThinkingBudgets(t *testing.T) {
	for _, tc := range []struct {
		base, modelMax    int
		level             string
		wantMax, wantBudg int
	}{
		{32000, 32000, "minimal", 32000, 1024},
		{32000, 32000, "high", 32000, 16384},
		{32000, 32000, "xhigh", 32000, 16384},
		{4096, 4096, "high", 4096, 3072},
		{8000, 64000, "medium", 16192, 8192},
	} {
		mt, b := AdjustMaxTokensForThinking(tc.base, tc.modelMax, tc.level, nil)
		if mt != tc.wantMax || b != tc.wantBudg {
			t.Errorf("%+v: got %d %d", tc, mt, b)
		}
	}
	if _, b := AdjustMaxTokensForThinking(32000, 32000, "low", map[string]int{"low": 3000}); b != 3000 {
		t.Errorf("custom budget %d", b)
	}
	m := &Model{Reasoning: true, ThinkingLevelMap: map[string]*string{"minimal": nil}}
	for in, want := range map[string]string{"minimal": "low", "xhigh": "high", "max": "high", "off": "off", "bogus": "off"} {
		if got := m.ClampThinkingLevel(in); got != want {
			t.Errorf("clamp %s: %s want %s", in, got, want)
		}
	}
}

func TestClampMaxTokens(t *testing.T) {
	m := &Model{ContextWindow: 10000, MaxTokens: 8000}
	c := &Context{SystemPrompt: string(make([]byte, 8000)), Messages: []Message{{Role: RoleUser, Content: []Content{TextBlock("hi")}}}}
	// pi 1.6: ceil(8000/3.5) + ceil(2/3.5) = 2287 estimated; the 15% margin (344) is below
	// 4096, so 10000-2287-4096 = 3617 left.
	if got := ClampMaxTokens(m, c, 8000); got != 3617 {
		t.Errorf("got %d", got)
	}
	c.Messages = append(c.Messages, Message{Role: RoleAssistant, StopReason: StopStop, Usage: &Usage{TotalTokens: 9000}, Timestamp: 1})
	if got := ClampMaxTokens(m, c, 8000); got != 1 {
		t.Errorf("over the window: got %d", got)
	}
	// A large input: the margin is 15% of it while that leaves 32768 tokens of output.
	big := &Model{ContextWindow: 1000000, MaxTokens: 128000}
	c = &Context{Messages: []Message{{Role: RoleUser, Content: []Content{TextBlock(string(make([]byte, 700000)))}}}}
	// 200000 estimated, margin 30000: 1000000-200000-30000 = 770000, above the cap.
	if got := ClampMaxTokens(big, c, 128000); got != 128000 {
		t.Errorf("large window: got %d", got)
	}
	big.ContextWindow = 250000 // 250000-200000-30000 = 20000 < 32768: min(32768, 45904)
	if got := ClampMaxTokens(big, c, 128000); got != 32768 {
		t.Errorf("ratio margin too large: got %d", got)
	}
}

// TestPlainTextFields: plainText says a text block is already the block the transform makes
// for another model (textBlockOf) exactly when it is: any other field set makes it false,
// and a block it takes is textBlockOf's, record of its JSON form included. A field added to
// Content fails here until plainText knows it.
func TestPlainTextFields(t *testing.T) {
	record := map[string]bool{"qdHi": true, "qdLo": true, "qn": true, "qs": true, "qq": true}
	base := TextBlock("a \"text\"")
	base.SetQuoted(base.Text, `"a \"text\""`)
	if !plainText(&base) {
		t.Fatal("a text block with its record is not plain")
	}
	if got := textBlockOf(base.Text, &base); !reflect.DeepEqual(got, base) {
		t.Fatalf("a plain text block is not the transform's own:\n got %+v\nwant %+v", got, base)
	}
	typ := reflect.TypeOf(Content{})
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			if !record[f.Name] {
				t.Errorf("Content.%s: a field plainText does not know", f.Name)
			}
			continue
		}
		if f.Name == "Type" || f.Name == "Text" {
			continue
		}
		c := base
		v := reflect.ValueOf(&c).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Slice:
			v.SetBytes([]byte{})
		default:
			t.Fatalf("Content.%s: a kind the test does not set (%s)", f.Name, v.Kind())
		}
		if plainText(&c) {
			t.Errorf("Content.%s set: plainText still says plain", f.Name)
		}
	}
}

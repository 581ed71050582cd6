package naming

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/llm/openai"
)

func TestParseConfig(t *testing.T) {
	cases := []struct {
		in   string
		want *Config
	}{
		{`{}`, nil},
		{`not json`, nil},
		{`{"sessionName": 3}`, nil},
		{`{"sessionName": {"model": " m "}, "defaultProvider": "p"}`, &Config{Provider: "p", Model: "m", MaxLength: 30}},
		{`{"sessionName": {"provider": "q", "model": "m", "maxLength": 12.7}}`, &Config{Provider: "q", Model: "m", MaxLength: 12}},
		{`{"sessionName": {"provider": " ", "model": "", "maxLength": -1}}`, &Config{MaxLength: 30}},
	}
	for _, c := range cases {
		got := ParseConfig([]byte(c.in))
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%s: got %+v want %+v", c.in, got, c.want)
		}
	}
}

// TestParseConfigEmptyObject: settings of `{}` (in any JSON spacing) name no sessionName and
// are answered without decoding; documents that only look like it give what the decoding
// gives.
func TestParseConfigEmptyObject(t *testing.T) {
	decoded := func(b []byte) *Config {
		var s struct {
			SessionName *struct{} `json:"sessionName"`
		}
		if json.Unmarshal(b, &s) != nil || s.SessionName == nil {
			return nil
		}
		return ParseConfig(b)
	}
	for _, in := range []string{"{}", " {}", "{ }", "\t{\r\n}\n", "{\n\n}  ", "{}x", "{}}", "{{}", "[{}]", "{", "}", "",
		"{\f}", "{\u00a0}", ` {"sessionName": {"model": "m"}} `, `{"sessionname": {"model": "m"}}`} {
		b := []byte(in)
		if got, want := ParseConfig(b), decoded(b); (got == nil) != (want == nil) || (got != nil && *got != *want) {
			t.Errorf("%q: got %+v, the decoding gives %+v", in, got, want)
		}
	}
	for _, in := range []string{"{}", " { } ", "{\n}\n"} {
		b := []byte(in)
		if n := testing.AllocsPerRun(10, func() { ParseConfig(b) }); n != 0 {
			t.Errorf("%q: %v allocations, want none (not decoded)", in, n)
		}
	}
}

func TestSanitize(t *testing.T) {
	cases := map[string]string{
		"  Fix\n the   bug ":             "Fix the bug",
		strings.Repeat("a", 30):          strings.Repeat("a", 30),
		strings.Repeat("a", 28) + " bcd": strings.Repeat("a", 28) + "…",
		"   ":                            "",
		strings.Repeat("修", 31):          strings.Repeat("修", 29) + "…",
		strings.Repeat("x", 28) + "😀😀":   strings.Repeat("x", 28) + "…",
	}
	for in, want := range cases {
		if got := Sanitize(in, 30); got != want {
			t.Errorf("%q: got %q want %q", in, got, want)
		}
	}
}

func TestSystemPromptGolden(t *testing.T) {
	want := "你是一个会话命名助手。根据用户给出的第一条消息内容，生成一个简洁的会话显示名。\n要求：不超过 30 个字符，概括消息主题；只输出名字本身，不要引号、标点、解释或多余说明。\n消息是中文时用中文命名，英文时用英文命名，保持原有语言。"
	if got := SystemPrompt(30); got != want {
		t.Fatalf("%q", got)
	}
}

func TestGenerate(t *testing.T) {
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Thinking: "hmm", Text: "  Refactor the   parser  "}, llmtest.Turn{Text: "   "})
	m := &llm.Model{Provider: "local", ID: "namer", API: llmtest.OpenAICompletions, BaseURL: srv.BaseURL(llmtest.OpenAICompletions), APIKey: "k"}
	p := openai.Completions{}
	name, err := Generate(context.Background(), p, m, llm.Options{}, "please refactor the parser", 30)
	if err != nil || name != "Refactor the parser" {
		t.Fatalf("%q %v", name, err)
	}
	req := srv.Requests()[0].JSON()
	if req["max_completion_tokens"] == nil && req["max_tokens"] == nil {
		t.Fatalf("no max tokens: %v", req)
	}
	if _, err := Generate(context.Background(), p, m, llm.Options{}, "x", 30); err != ErrNoContent {
		t.Fatalf("empty reply: %v", err)
	}
}

package openai

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// toLoopback sends every request to the loopback server instead of its host (api.openai.com
// stays the model's base URL, which is what makes a ChatGPT token's request different).
type toLoopback struct{ base *url.URL }

func (d toLoopback) Do(r *http.Request) (*http.Response, error) {
	r.URL.Scheme, r.URL.Host, r.Host = d.base.Scheme, d.base.Host, ""
	return http.DefaultClient.Do(r)
}

// A Sign in with ChatGPT token on the openai provider is sent as pi sends it: a bearer token
// to api.openai.com's Responses endpoint, without the fields ChatGPT tokens are refused
// (max_output_tokens, prompt_cache_retention); an API key ("sk-") keeps them. ChatGPT's
// usage-limit errors name where to look.
func TestChatGPTSignInRequests(t *testing.T) {
	srv := llmtest.New(t)
	base, _ := url.Parse(srv.URL)
	o := &llm.Options{MaxTokens: 1000, CacheRetention: "long", SessionID: "sess-1", HTTPClient: toLoopback{base}}
	model := func(key string) *llm.Model {
		return &llm.Model{Provider: "openai", ID: "gpt-5", API: ResponsesAPI, BaseURL: OpenAIBaseURL, APIKey: key,
			Input: []string{"text"}, ContextWindow: 400000, MaxTokens: 128000}
	}
	for _, tc := range []struct {
		key     string
		chatgpt bool
	}{{"chatgpt-access-token-1", true}, {"sk-proj-key", false}} {
		srv.Push(llmtest.Turn{Text: "hi"})
		msg, _ := respStream(t, model(tc.key), userCtx("x"), o)
		if msg.StopReason != llm.StopStop || msg.Text() != "hi" {
			t.Fatalf("%s: %s %q", tc.key, msg.StopReason, msg.ErrorMessage)
		}
		reqs := srv.Requests()
		r := reqs[len(reqs)-1]
		if r.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer "+tc.key {
			t.Errorf("%s: %s %q", tc.key, r.Path, r.Header.Get("Authorization"))
		}
		body := r.JSON()
		_, hasMax := body["max_output_tokens"]
		_, hasRetention := body["prompt_cache_retention"]
		if hasMax == tc.chatgpt || hasRetention == tc.chatgpt || body["prompt_cache_key"] != "sess-1" {
			t.Errorf("%s: body %v", tc.key, body)
		}
	}
	if IsChatGPTSignIn(&llm.Model{Provider: "openai", BaseURL: "http://127.0.0.1:1/v1"}, "tok") ||
		IsChatGPTSignIn(&llm.Model{Provider: "openrouter", BaseURL: OpenAIBaseURL}, "tok") || IsChatGPTSignIn(model(""), "") {
		t.Error("a ChatGPT token seen where there is none")
	}
	for code, hint := range map[string]string{
		"subscription_sharing_usage_limit_exceeded":                      "\nCheck your ChatGPT usage: https://chatgpt.com/settings/usage",
		"subscription_sharing_workplace_individual_usage_limit_exceeded": "\nYou've reached your ChatGPT workspace's usage limit.",
	} {
		srv.Push(llmtest.Turn{Raw: &llmtest.Raw{Code: 429, Header: map[string]string{"Content-Type": "application/json"},
			Body: `{"error":{"message":"Usage limit reached","type":"usage_limit","code":"` + code + `"}}`}})
		msg, evs := respStream(t, model("chatgpt-access-token-1"), userCtx("x"), o)
		if msg.StopReason != llm.StopError || !strings.Contains(msg.ErrorMessage, code) || !strings.Contains(msg.ErrorMessage, hint) {
			t.Errorf("%q", msg.ErrorMessage)
		}
		if last := evs[len(evs)-1]; last.Error == nil || last.Error.ErrorMessage != msg.ErrorMessage {
			t.Errorf("the error event differs: %+v", last)
		}
	}
}

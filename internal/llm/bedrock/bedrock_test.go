package bedrock_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/bedrock"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

const secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

// clearAWS empties the process's AWS variables and points HOME at an empty directory, so only
// what a test sets is seen.
func clearAWS(t *testing.T) string {
	for _, k := range []string{"AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AWS_BEARER_TOKEN_BEDROCK", "AWS_BEDROCK_SKIP_AUTH", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_BEDROCK_FORCE_CACHE", "PI_CACHE_RETENTION",
		"AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_STS", "AWS_ENDPOINT_URL_SSO", "AWS_ENDPOINT_URL_SSO_OIDC",
		"AWS_EC2_METADATA_SERVICE_ENDPOINT", "AWS_CONTAINER_AUTHORIZATION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"} {
		t.Setenv(k, "")
	}
	// Not on EC2: instance metadata would be asked last (and wait for its timeout).
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	bedrock.ResetCredentialCache()
	home := t.TempDir()
	t.Setenv("HOME", home)
	return home
}

func ctx1() *llm.Context {
	return &llm.Context{SystemPrompt: "Be brief.", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("hi")}, Timestamp: 1}}}
}

// A request signed with the environment's keys verifies on the server: the canonical request
// rebuilt from what arrived gives the signature sent, in the configured region, with the
// session token; configured headers are signed, the reserved ones are not replaced.
func TestSignedRequestVerifies(t *testing.T) {
	clearAWS(t)
	srv := llmtest.New(t)
	srv.Push(llmtest.Turn{Text: "Hi."})
	m := &llm.Model{Provider: "amazon-bedrock", ID: "us.anthropic.claude-sonnet-4-6:0", API: bedrock.API, BaseURL: srv.URL, MaxTokens: 8192, ContextWindow: 200000,
		Env:     map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": "session-tok", "AWS_REGION": "eu-west-3"},
		Headers: map[string]string{"X-Team": "blue", "x-amz-date": "19700101T000000Z", "Authorization": "Bearer stolen"}}
	p, _ := llm.ProviderFor(bedrock.API)
	msg := p.Stream(context.Background(), m, ctx1(), nil, nil)
	if msg.StopReason != llm.StopStop || msg.Text() != "Hi." {
		t.Fatalf("%s %q", msg.StopReason, msg.ErrorMessage)
	}
	r := srv.Requests()[0]
	creq, scope, err := r.SigV4(secret)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(scope, "/eu-west-3/bedrock/aws4_request") || r.Path != "/model/us.anthropic.claude-sonnet-4-6%3A0/converse-stream" {
		t.Errorf("scope %s path %s", scope, r.Path)
	}
	for _, want := range []string{"x-team:blue", "x-amz-security-token:session-tok", "x-amz-date:<date>", "/model/us.anthropic.claude-sonnet-4-6%253A0/converse-stream"} {
		if !strings.Contains(creq, want) {
			t.Errorf("canonical request lacks %q:\n%s", want, creq)
		}
	}
	if r.Header.Get("x-amz-date") == "19700101T000000Z" || strings.Contains(r.Header.Get("Authorization"), "stolen") {
		t.Errorf("a configured header replaced the signature's: %v", r.Header)
	}
	// A wrong secret does not verify (the check is real).
	if _, _, err := r.SigV4("other"); err == nil {
		t.Error("verified with the wrong secret")
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Endpoint, region and credential are chosen as pi 1.6 chooses them.
func TestResolve(t *testing.T) {
	std := "https://bedrock-runtime.us-east-1.amazonaws.com"
	for _, tc := range []struct {
		name        string
		id, base    string
		key         string
		env         map[string]string // the stored credential's env
		process     map[string]string
		files       map[string]string // under HOME
		url, region string
		bearer      string
		access      string
		err         string
	}{
		{name: "bearer on the catalogue endpoint", id: "amazon.nova-pro-v1:0", base: std, key: "tok",
			url: std + "/model/amazon.nova-pro-v1%3A0/converse-stream", region: "us-east-1", bearer: "tok"},
		{name: "AWS_REGION moves a standard endpoint", id: "m", base: std, process: map[string]string{"AWS_REGION": "eu-west-1", "AWS_BEARER_TOKEN_BEDROCK": "env-tok"},
			url: "https://bedrock-runtime.eu-west-1.amazonaws.com/model/m/converse-stream", region: "eu-west-1", bearer: "env-tok"},
		{name: "a custom endpoint stays", id: "m", base: "http://proxy.internal/br/", key: "tok", env: map[string]string{"AWS_DEFAULT_REGION": "ap-east-1"},
			url: "http://proxy.internal/br/model/m/converse-stream", region: "ap-east-1", bearer: "tok"},
		{name: "an inference profile ARN names the region", id: "arn:aws:bedrock:ap-south-1:123456789012:application-inference-profile/abc", base: std, key: "tok",
			process: map[string]string{"AWS_REGION": "eu-west-1"},
			url:     "https://bedrock-runtime.ap-south-1.amazonaws.com/model/arn%3Aaws%3Abedrock%3Aap-south-1%3A123456789012%3Aapplication-inference-profile%2Fabc/converse-stream", region: "ap-south-1", bearer: "tok"},
		{name: "skip auth signs with dummy keys", id: "m", base: "http://127.0.0.1:9", key: "tok", env: map[string]string{"AWS_BEDROCK_SKIP_AUTH": "1"},
			url: "http://127.0.0.1:9/model/m/converse-stream", region: "us-east-1", access: "dummy-access-key"},
		{name: "environment keys", id: "m", base: std, process: map[string]string{"AWS_ACCESS_KEY_ID": "AKENV", "AWS_SECRET_ACCESS_KEY": "s"},
			url: std + "/model/m/converse-stream", region: "us-east-1", access: "AKENV"},
		{name: "ambient profile: its region and keys", id: "m", base: std, process: map[string]string{"AWS_PROFILE": "dev"},
			files: map[string]string{".aws/config": "[default]\nregion = us-west-2\n[profile dev]\nregion = eu-north-1\n", ".aws/credentials": "[dev]\naws_access_key_id = AKDEV\naws_secret_access_key = s\n"},
			url:   "https://bedrock-runtime.eu-north-1.amazonaws.com/model/m/converse-stream", region: "eu-north-1", access: "AKDEV"},
		{name: "a stored profile wins over environment keys", id: "m", base: std, env: map[string]string{"AWS_PROFILE": "dev"},
			process: map[string]string{"AWS_ACCESS_KEY_ID": "AKENV", "AWS_SECRET_ACCESS_KEY": "s"},
			files:   map[string]string{".aws/credentials": "[dev]\naws_access_key_id = AKDEV\naws_secret_access_key = s\n"},
			url:     std + "/model/m/converse-stream", region: "us-east-1", access: "AKDEV"},
		{name: "credential_process", id: "m", base: std, env: map[string]string{"AWS_PROFILE": "proc"},
			files: map[string]string{".aws/config": "[profile proc]\ncredential_process = printf '{\"Version\":1,\"AccessKeyId\":\"AKPROC\",\"SecretAccessKey\":\"s\",\"SessionToken\":\"t\"}'\n"},
			url:   std + "/model/m/converse-stream", region: "us-east-1", access: "AKPROC"},
		{name: "default profile from the shared files", id: "m", base: std,
			files: map[string]string{".aws/credentials": "[default]\naws_access_key_id = AKDEF\naws_secret_access_key = s\n"},
			url:   std + "/model/m/converse-stream", region: "us-east-1", access: "AKDEF"},
		{name: "an SSO profile without its session", id: "m", base: std, env: map[string]string{"AWS_PROFILE": "sso"},
			files: map[string]string{".aws/config": "[profile sso]\nsso_session = corp\n"}, err: "Sso session 'corp' could not be found"},
		{name: "a missing profile", id: "m", base: std, env: map[string]string{"AWS_PROFILE": "nope"}, err: "Could not resolve credentials using profile: [nope]"},
		{name: "nothing", id: "m", base: std, err: "Could not load credentials from any providers"},
		{name: "a China region", id: "m", base: std, key: "tok", process: map[string]string{"AWS_REGION": "cn-north-1"},
			url: "https://bedrock-runtime.cn-north-1.amazonaws.com.cn/model/m/converse-stream", region: "cn-north-1", bearer: "tok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := clearAWS(t)
			for k, v := range tc.process {
				t.Setenv(k, v)
			}
			for p, body := range tc.files {
				writeFile(t, filepath.Join(home, p), body)
			}
			m := &llm.Model{Provider: "amazon-bedrock", ID: tc.id, API: bedrock.API, BaseURL: tc.base, APIKey: tc.key, Env: tc.env}
			got, err := bedrock.Resolve(context.Background(), m, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.URL != tc.url || got.Region != tc.region || got.Bearer != tc.bearer || got.Creds.AccessKeyID != tc.access {
				t.Errorf("got %+v", got)
			}
		})
	}
}

func stream(t *testing.T, m *llm.Model, c *llm.Context, o *llm.Options, turns ...llmtest.Turn) (*llm.Message, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(t)
	srv.Push(turns...)
	m.BaseURL = srv.URL
	m.API = bedrock.API
	if m.APIKey == "" {
		m.APIKey = "tok"
	}
	p, _ := llm.ProviderFor(bedrock.API)
	return p.Stream(context.Background(), m, c, o, nil), srv
}

// pi's error texts: an HTTP exception by its readable name, an unknown one by its own; an
// exception inside the stream; a corrupt frame says so.
func TestErrors(t *testing.T) {
	clearAWS(t)
	hdr := func(name string) map[string]string {
		return map[string]string{"Content-Type": "application/json", "x-amzn-errortype": name + ":http://internal.amazon.com/coral/com.amazon.bedrock/"}
	}
	good := llmtest.Render(llmtest.Bedrock, llmtest.Turn{Text: "hello there"})
	corrupt := []byte(good)
	corrupt[len(corrupt)-3] ^= 0xff
	for _, tc := range []struct {
		name string
		turn llmtest.Turn
		want string
	}{
		{"validation", llmtest.Turn{Fault: llmtest.ContextOverflow}, "Validation error: Input is too long for requested model."},
		{"throttling", llmtest.Turn{Fault: llmtest.RateLimit}, "Throttling error: Too many requests, please wait before trying again."},
		{"access denied", llmtest.Turn{Raw: &llmtest.Raw{Code: 403, Header: hdr("AccessDeniedException"), Body: `{"message":"You don't have access to the model with the specified model ID."}`}},
			"AccessDeniedException: You don't have access to the model with the specified model ID."},
		{"data retention", llmtest.Turn{Raw: &llmtest.Raw{Code: 400, Header: hdr("ValidationException"), Body: `{"message":"data retention mode 'default' is not available for this model"}`}},
			"Validation error: data retention mode 'default' is not available for this model See https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html for supported data retention modes."},
		{"in-stream exception", llmtest.Turn{Text: "a b", Fault: llmtest.StreamError}, "Throttling error: Too many tokens, please wait before trying again."},
		{"corrupt frame", llmtest.Turn{Raw: &llmtest.Raw{Code: 200, Header: map[string]string{"Content-Type": "application/vnd.amazon.eventstream"}, Body: string(corrupt)}}, "Bedrock stream: corrupt event stream: message"},
		{"no stop", llmtest.Turn{Raw: &llmtest.Raw{Code: 200, Body: llmtest.BedrockFrame("messageStart", map[string]any{"role": "assistant"})}}, "Bedrock stream ended without a stop reason"},
		{"guardrail", llmtest.Turn{Text: "x", StopReason: "guardrail_intervened"}, "Provider stopped with: guardrail_intervened"},
	} {
		msg, _ := stream(t, &llm.Model{Provider: "amazon-bedrock", ID: "m", MaxTokens: 1000}, ctx1(), nil, tc.turn)
		if msg.StopReason != llm.StopError || !strings.HasPrefix(msg.ErrorMessage, tc.want) {
			t.Errorf("%s: %s %q\n want %q", tc.name, msg.StopReason, msg.ErrorMessage, tc.want)
		}
	}
}

// Encrypted reasoning (a non-Anthropic model's redactedContent) is kept as pi keeps it — the
// placeholder text, the bytes as base64 in the signature — and sent back as redactedContent.
func TestRedactedReasoningRoundTrip(t *testing.T) {
	clearAWS(t)
	turn := llmtest.Turn{Blocks: []llmtest.Block{{Kind: "thinking", Redacted: true, Signature: llmtest.BedrockRedacted}, {Kind: "text", Text: "ok"}}}
	m := &llm.Model{Provider: "amazon-bedrock", ID: "openai.gpt-5.6", MaxTokens: 1000, Reasoning: true}
	msg, _ := stream(t, m, ctx1(), nil, turn)
	if msg.StopReason != llm.StopStop || len(msg.Content) != 2 {
		t.Fatalf("%s %q %+v", msg.StopReason, msg.ErrorMessage, msg.Content)
	}
	th := msg.Content[0]
	if !th.Redacted || th.Thinking != "[Reasoning redacted]" || th.ThinkingSignature != llmtest.BedrockRedacted {
		t.Errorf("thinking %+v", th)
	}
	c := ctx1()
	c.Messages = append(c.Messages, *msg, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("more")}, Timestamp: 3})
	body, err := bedrock.BuildBody(m, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `{"role":"assistant","content":[{"reasoningContent":{"redactedContent":"`+llmtest.BedrockRedacted+`"}},{"text":"ok"}]}`) {
		t.Errorf("body %s", body)
	}
}

// The request body: Claude's thinking fields (adaptive with an effort, or a budget with the
// interleaved-thinking beta), cache points on the system prompt and the last user message,
// tool results of one turn in one user message, placeholders for empty text, gpt-oss's flat
// effort.
func TestBody(t *testing.T) {
	clearAWS(t)
	yes := true
	c := &llm.Context{SystemPrompt: "sys", Tools: []llm.Tool{{Name: "ls", Description: "List", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("  ")}, Timestamp: 1},
			{Role: llm.RoleAssistant, API: bedrock.API, Provider: "amazon-bedrock", Model: "x", Content: []llm.Content{
				{Type: llm.TypeThinking, Thinking: "hmm", ThinkingSignature: "sig"},
				{Type: llm.TypeToolCall, ID: "tooluse:1", Name: "ls", Arguments: json.RawMessage(`{"b":1,"":2,"a":{"":3,"c":[{"":4}]}}`)},
				{Type: llm.TypeToolCall, ID: "t2", Name: "ls", Arguments: json.RawMessage(`{}`)}}, StopReason: llm.StopToolUse, Timestamp: 2},
			{Role: llm.RoleToolResult, ToolCallID: "tooluse:1", ToolName: "ls", Content: []llm.Content{llm.TextBlock("a.txt")}, Timestamp: 3},
			{Role: llm.RoleToolResult, ToolCallID: "t2", ToolName: "ls", IsError: &yes, Content: []llm.Content{{Type: llm.TypeImage, MimeType: "image/png", Data: "iVBO"}}, Timestamp: 4},
		}}
	for _, tc := range []struct {
		name, id string
		level    string
		want     []string
	}{
		{"claude 4.6 adaptive", "us.anthropic.claude-sonnet-4-6", "high", []string{
			`"system":[{"text":"sys"},{"cachePoint":{"type":"default"}}]`,
			`{"role":"user","content":[{"text":"<empty>"}]}`,
			`{"reasoningContent":{"reasoningText":{"text":"hmm","signature":"sig"}}}`,
			`{"toolUse":{"toolUseId":"tooluse:1","name":"ls","input":{"b":1,"a":{"c":[{}]}}}}`,
			`{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse:1","content":[{"text":"a.txt"}],"status":"success"}},{"toolResult":{"toolUseId":"t2","content":[{"text":"(image attached after the tool results)"}],"status":"error"}},{"text":"Images from the error result of tool call t2 (ls):"},{"image":{"format":"png","source":{"bytes":"iVBO"}}},{"cachePoint":{"type":"default"}}]}`,
			`"toolConfig":{"tools":[{"toolSpec":{"name":"ls","description":"List","inputSchema":{"json":{"type":"object"}}}}]}`,
			`"additionalModelRequestFields":{"thinking":{"type":"adaptive","display":"summarized"},"output_config":{"effort":"high"}}`,
		}},
		{"claude 3.7 budget", "anthropic.claude-3-7-sonnet-20250219-v1:0", "medium", []string{
			`"inferenceConfig":{"maxTokens":8192}`,
			`"additionalModelRequestFields":{"thinking":{"type":"enabled","budget_tokens":7168,"display":"summarized"},"anthropic_beta":["interleaved-thinking-2025-05-14"]}`,
		}},
		{"gpt-oss", "openai.gpt-oss-120b-1:0", "xhigh", []string{
			`"system":[{"text":"sys"}]`,
			`{"toolResult":{"toolUseId":"t2","content":[{"image":{"format":"png","source":{"bytes":"iVBO"}}}],"status":"error"}}]}`,
			`{"reasoningContent":{"reasoningText":{"text":"hmm"}}}`,
			`"additionalModelRequestFields":{"reasoning_effort":"high"}`,
		}},
	} {
		c.Messages[1].Model = tc.id
		m := &llm.Model{Provider: "amazon-bedrock", ID: tc.id, API: bedrock.API, Reasoning: true, MaxTokens: 8192, ContextWindow: 200000, Input: []string{"text", "image"}}
		body, err := bedrock.BuildBody(m, c, &llm.Options{ThinkingLevel: tc.level})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(body), w) {
				t.Errorf("%s: body lacks %s\n%s", tc.name, w, body)
			}
		}
	}
	// An image type Bedrock does not take is pi's error.
	c.Messages[3].Content[0].MimeType = "image/bmp"
	if _, err := bedrock.BuildBody(&llm.Model{ID: "m", Input: []string{"text", "image"}}, c, nil); err == nil || err.Error() != "Unknown image type: image/bmp" {
		t.Errorf("bmp: %v", err)
	}
}

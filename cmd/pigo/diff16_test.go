package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// The credentials differential test (issue 22): the real pi 1.6.0 and pigo run with the same
// agent dir — an auth.json holding an API key entry, a `!command` entry and an unexpired OAuth
// entry, and a models.json that points each built-in provider's baseUrl at a loopback server —
// and the request each sends is compared: the body, and the headers that carry identity and
// credentials. credentialDifferences lists where pigo differs on purpose; nothing else is
// masked.
var credentialDifferences = map[string]string{
	"User-Agent":            "pigo sends its own identity (\"pigo (<os> <release>; <arch>)\"); pi sends \"pi/1.6.0 (…; node/…)\"; Claude-subscription requests carry Claude Code's identity in both",
	"SDK headers":           "x-stainless-* (OpenAI and Anthropic SDKs), x-goog-api-client (@google/genai) and fetch's accept/sec-fetch headers are the SDKs' own and are not sent",
	"system prompt":         "pi 1.6 appends a <cwd> block to --system-prompt; pigo keeps pi 0.84's \"Current working directory:\" line (the prompt is not the credentials issue's subject); the text is masked",
	"Codex transport":       "pi 1.6 tries a WebSocket first and compresses the SSE body with zstd; pigo speaks SSE with a plain JSON body (the test runs pi with transport \"sse\" and decompresses its body)",
	"beta query":            "pi's Anthropic SDK calls /v1/messages?beta=true (its beta client); pigo calls /v1/messages with the same anthropic-beta header: the query is ignored",
	"session ids":           "each run has its own session id (prompt_cache_key, session-id, x-client-request-id): masked",
	"AWS SDK headers":       "Bedrock: the AWS SDK also sends and signs amz-sdk-invocation-id (a fresh UUID), amz-sdk-request and x-amz-user-agent; pigo sends neither. Both signatures are verified with the secret on the server, and the canonical requests are compared with those three headers, the date, the body's hash and its length left out (the body is compared on its own), and the two loopback servers' ports masked; pigo's Thread-Id (the seed's request-headers extension, which the pi run does not load) is signed like any configured header and left out too",
	"Bedrock transport":     "pi's AWS SDK speaks HTTP/2 to the endpoint unless AWS_BEDROCK_FORCE_HTTP1=1 (or a proxy) is set; the loopback server speaks HTTP/1.1, so pi runs with it set; pigo speaks HTTP/1.1 or HTTP/2 as Go's client negotiates (TLS ALPN)",
	"developer role":        "pi 1.6 gives reasoning models on openai-completions the \"developer\" role only on OpenAI's own API (\"system\" elsewhere); pigo's Completions client still follows pi 0.84's rule (developer unless the host is a known non-standard one), which the pi 0.84.3 differentials hold it to: the first message's role is compared as system when pi says system and pigo developer (noticed while adding the Azure Foundry and Kimi cases; not changed)",
	"pi-messages context":   "pi 1.6 sends its transcript's leading system message with the prompt split into sections (preamble, cwd) and its own timestamps; pigo sends the whole prompt as the system message's content (a form pi's reader accepts: content and sections are joined). The system message, the messages' timestamps and the session id are masked; everything else of {model, context, options} is compared",
	"max tokens near limit": "where the output budget is clamped to the context window, it follows the estimated prompt size, which differs by the system prompt texts above: the comparison corrects for exactly that difference (ceil(chars/3.5) of each prompt)",
}

type credScenario struct {
	name, provider, model, api string
	thinking                   string
	auth                       map[string]any
	env                        []string
	headers                    []string
	// sigv4 is the AWS secret both requests must be signed with (their canonical requests
	// are compared; see "AWS SDK headers").
	sigv4 string
}

func credScenarios() []credScenario {
	apiKey := func(key string) map[string]any { return map[string]any{"type": "api_key", "key": key} }
	oauth := func(access string, extra map[string]any) map[string]any {
		e := map[string]any{"type": "oauth", "access": access, "refresh": "refresh-token-never-used", "expires": time.Now().Add(24 * time.Hour).UnixMilli()}
		for k, v := range extra {
			e[k] = v
		}
		return e
	}
	// OpenRouter's sign-in stores a permanent key as an OAuth entry that never expires.
	oauthForever := func(key string) map[string]any {
		return map[string]any{"type": "oauth", "access": key, "refresh": "", "expires": int64(9007199254740991)}
	}
	return []credScenario{
		{name: "api key entry (openai-completions)", provider: "zai", model: "glm-5-turbo", api: llmtest.OpenAICompletions,
			auth: map[string]any{"zai": apiKey("zai-literal-key")}, headers: []string{"Authorization"}},
		{name: "!command entry (anthropic)", provider: "anthropic", model: "claude-sonnet-4-6", api: llmtest.AnthropicMessages, thinking: "medium",
			auth: map[string]any{"anthropic": apiKey("!printf %s sk-ant-api03-from-command")}, headers: []string{"x-api-key", "Authorization", "anthropic-version"}},
		{name: "oauth entry (anthropic subscription)", provider: "anthropic", model: "claude-sonnet-4-6", api: llmtest.AnthropicMessages,
			auth:    map[string]any{"anthropic": oauth("sk-ant-oat01-subscription-token", nil)},
			headers: []string{"x-api-key", "Authorization", "anthropic-version", "x-app", "anthropic-beta", "User-Agent"}},
		{name: "oauth entry (openai-codex)", provider: "openai-codex", model: "gpt-6.1-sol", api: llmtest.CodexResponses, thinking: "high",
			auth:    map[string]any{"openai-codex": oauth(llmtest.CodexToken("acct-123"), map[string]any{"accountId": "acct-123"})},
			headers: []string{"Authorization", "chatgpt-account-id", "originator", "OpenAI-Beta", "accept"}},
		{name: "oauth entry (openai, Sign in with ChatGPT)", provider: "openai", model: "gpt-5.4", api: llmtest.OpenAIResponses, thinking: "low",
			auth: map[string]any{"openai": oauth("chatgpt-access-token-signed-in", map[string]any{"clientId": "app_issued_client",
				"scopes": []string{"openid", "offline_access", "resource.invoke", "chatgpt.tokens.use.direct"}})}, headers: []string{"Authorization"}},
		{name: "api key entry (openai-responses)", provider: "openai", model: "gpt-5.4", api: llmtest.OpenAIResponses, thinking: "low",
			auth: map[string]any{"openai": apiKey("sk-openai-stored")}, headers: []string{"Authorization"}},
		{name: "environment key (google)", provider: "google", model: "gemini-2.5-flash", api: llmtest.GoogleAI, thinking: "medium",
			env: []string{"GEMINI_API_KEY=gemini-env-key"}, headers: []string{"x-goog-api-key"}},
		{name: "api key entry (google-vertex express)", provider: "google-vertex", model: "gemini-2.5-flash", api: llmtest.GoogleVertex,
			auth: map[string]any{"google-vertex": apiKey("vertex-stored-key")}, headers: []string{"x-goog-api-key"}},
		{name: "api key entry with env (azure)", provider: "azure", model: "gpt-5-mini", api: llmtest.OpenAIResponses, thinking: "medium",
			auth: map[string]any{"azure": map[string]any{"type": "api_key", "key": "azure-stored-key",
				"env": map[string]any{"AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "gpt-4o=other,gpt-5-mini=my-mini-deployment", "AZURE_OPENAI_API_VERSION": "2025-04-01-preview"}}},
			headers: []string{"api-key", "Authorization", "accept"}},
		{name: "api key entry (mistral)", provider: "mistral", model: "mistral-medium-latest", api: llmtest.Mistral, thinking: "high",
			auth: map[string]any{"mistral": apiKey("mistral-stored-key")}, headers: []string{"authorization", "accept"}},
		{name: "api key entry with env (github-copilot)", provider: "github-copilot", model: "claude-sonnet-4.6", api: llmtest.AnthropicMessages,
			auth: map[string]any{"github-copilot": apiKey("ghu_copilot_token")}, headers: []string{"Authorization", "x-api-key", "X-Initiator", "Openai-Intent", "Editor-Version", "Copilot-Integration-Id"}},
		{name: "api key entry with env (azure foundry chat completions)", provider: "azure", model: "deepseek-v4-pro", api: llmtest.OpenAICompletions, thinking: "high",
			auth: map[string]any{"azure": map[string]any{"type": "api_key", "key": "azure-foundry-key",
				"env": map[string]any{"AZURE_OPENAI_DEPLOYMENT_NAME_MAP": "deepseek-v4-pro=my-deepseek"}}},
			headers: []string{"Authorization", "api-key"}},
		{name: "oauth entry (openrouter)", provider: "openrouter", model: "amazon/nova-micro-v1", api: llmtest.OpenAICompletions,
			auth: map[string]any{"openrouter": oauthForever("sk-or-v1-signed-in-key")}, headers: []string{"Authorization"}},
		{name: "oauth entry (xai)", provider: "xai", model: "grok-4.3", api: llmtest.OpenAIResponses, thinking: "low",
			auth: map[string]any{"xai": oauth("xai-access-token-signed-in", nil)}, headers: []string{"Authorization"}},
		{name: "oauth entry (kimi-coding)", provider: "kimi-coding", model: "k3", api: llmtest.OpenAICompletions, thinking: "medium",
			auth: map[string]any{"kimi-coding": oauth("kimi-access-token-signed-in", nil)}, headers: []string{"Authorization"}},
		{name: "environment key (radius pi-messages)", provider: "radius", model: "claude-fable-5", api: llmtest.PiMessages, thinking: "low",
			env: []string{"RADIUS_API_KEY=radius-env-key"}, headers: []string{"authorization", "accept", "content-type"}},
		{name: "environment keys, SigV4 (amazon-bedrock)", provider: "amazon-bedrock", model: "us.anthropic.claude-sonnet-4-6", api: llmtest.Bedrock, thinking: "medium",
			env:     []string{"AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=" + awsSecret, "AWS_SESSION_TOKEN=session-token-example", "AWS_REGION=eu-central-1", "AWS_BEDROCK_FORCE_HTTP1=1"},
			headers: []string{"x-amz-security-token", "content-type"}, sigv4: awsSecret},
		{name: "api key entry, bearer (amazon-bedrock)", provider: "amazon-bedrock", model: "openai.gpt-oss-120b-1:0", api: llmtest.Bedrock, thinking: "high",
			auth: map[string]any{"amazon-bedrock": apiKey("bedrock-api-key-stored")}, env: []string{"AWS_BEDROCK_FORCE_HTTP1=1"},
			headers: []string{"Authorization", "content-type", "x-amz-security-token"}},
	}
}

// pigoBinary is this test binary under the name pigo (testscript.Main runs pigo's main then).
func pigoBinary(t *testing.T) string {
	dir := t.TempDir()
	p := filepath.Join(dir, "pigo")
	if err := os.Symlink(os.Args[0], p); err != nil {
		t.Fatal(err)
	}
	return p
}

func credHome(t *testing.T, sc credScenario, srv *llmtest.Server) (home, agent, cwd string) {
	home = t.TempDir()
	agent = filepath.Join(home, ".pi", "agent")
	cwd = filepath.Join(home, "work")
	for _, d := range []string{agent, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	auth := sc.auth
	if auth == nil {
		auth = map[string]any{}
	}
	writeJSONFile(t, filepath.Join(agent, "auth.json"), auth)
	writeJSONFile(t, filepath.Join(agent, "models.json"), map[string]any{"providers": map[string]any{sc.provider: map[string]any{"baseUrl": srv.BaseURL(sc.api)}}})
	writeJSONFile(t, filepath.Join(agent, "settings.json"), map[string]any{"retry": map[string]any{"enabled": false}, "transport": "sse"})
	return home, agent, cwd
}

func credEnv(home, agent string, extra []string) []string {
	var env []string
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		if strings.HasSuffix(k, "_API_KEY") || strings.HasSuffix(k, "_TOKEN") || k == "HOME" || k == "PI_CODING_AGENT_DIR" ||
			strings.HasSuffix(strings.ToUpper(k), "_PROXY") || strings.HasPrefix(k, "GOOGLE_") || strings.HasPrefix(k, "AWS_") {
			continue
		}
		env = append(env, e)
	}
	return append(append(env, "HOME="+home, "PI_CODING_AGENT_DIR="+agent, "PI_OFFLINE=1", "NO_COLOR=1"), extra...)
}

func credArgs(sc credScenario) []string {
	args := []string{"--model", sc.provider + "/" + sc.model, "--no-tools", "--system-prompt", "You are terse.", "--no-context-files", "-p", "hi there"}
	if sc.thinking != "" {
		args = append([]string{"--thinking", sc.thinking}, args...)
	}
	return args
}

// firstPost is the first model request a run made (pi's WebSocket attempt, if any, is not one).
func firstPost(t *testing.T, srv *llmtest.Server) llmtest.Request {
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPost {
			if r.Header.Get("Content-Encoding") == "zstd" {
				r.Body = unzstd(t, r.Body)
			}
			return r
		}
	}
	t.Fatalf("no request reached the server (%d requests)", len(srv.Requests()))
	return llmtest.Request{}
}

func unzstd(t *testing.T, b []byte) []byte {
	zstd, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("pi compressed its body with zstd and the zstd program is not installed")
	}
	cmd := exec.Command(zstd, "-d", "-c")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd: %v", err)
	}
	return out
}

const awsSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"

var awsSDKOnly = regexp.MustCompile(`^(amz-sdk-invocation-id|amz-sdk-request|x-amz-user-agent|content-length|x-amz-content-sha256|thread-id):`)

// sigv4Canonical verifies r's signature and returns its canonical request without the AWS
// SDK's own headers, the date, and the body's hash and length (see "AWS SDK headers").
func sigv4Canonical(t *testing.T, who string, r llmtest.Request, secret string) string {
	creq, scope, err := r.SigV4(secret)
	if err != nil {
		t.Errorf("%s: %v", who, err)
		return ""
	}
	lines := strings.Split(creq, "\n")
	var out []string
	for i, l := range lines {
		switch {
		case i == len(lines)-1 || awsSDKOnly.MatchString(l):
			continue
		case strings.HasPrefix(l, "host:127.0.0.1:"):
			l = "host:127.0.0.1:<port>"
		case i == len(lines)-2:
			var keep []string
			for _, n := range strings.Split(l, ";") {
				if !awsSDKOnly.MatchString(n + ":") {
					keep = append(keep, n)
				}
			}
			l = strings.Join(keep, ";")
		}
		out = append(out, l)
	}
	_, scope, _ = strings.Cut(scope, "/")
	return strings.Join(out, "\n") + "\nscope " + scope
}

var sessionKeys = regexp.MustCompile(`^(prompt_cache_key|session_id|user|sessionId)$`)

// normalizeCredBody masks the system prompt, the cwd and session ids.
func normalizeCredBody(body []byte, cwd string) any {
	body = bytes.ReplaceAll(body, []byte(cwd), []byte("<cwd>"))
	var v any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	_ = d.Decode(&v)
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			for k, e := range t {
				if sessionKeys.MatchString(k) {
					t[k] = "<session>"
					continue
				}
				t[k] = walk(e)
			}
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case string:
			if strings.HasPrefix(t, "You are terse.") {
				return "<system prompt>"
			}
		}
		return x
	}
	return walk(v)
}

func TestCredentialsAgainstPi16(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real pi 1.6.0")
	}
	pi := pitest.FindVersion(t, pitest.Version16)
	pigo := pigoBinary(t)
	for _, sc := range credScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			run := func(bin []string, who string) (llmtest.Request, string) {
				srv := llmtest.New(t)
				srv.Push(llmtest.Turn{Text: "Hi."})
				home, agent, cwd := credHome(t, sc, srv)
				cmd := exec.Command(bin[0], append(bin[1:], credArgs(sc)...)...)
				cmd.Dir = cwd
				cmd.Env = credEnv(home, agent, sc.env)
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Logf("%s: %v\n%s", who, err, out)
				}
				for _, secret := range []string{"refresh-token-never-used"} {
					if strings.Contains(string(out), secret) {
						t.Errorf("%s printed a secret", who)
					}
				}
				return firstPost(t, srv), cwd
			}
			piReq, piCwd := run(append([]string{pi.Node}, pi.CLI), "pi")
			pigoReq, pigoCwd := run([]string{pigo, "--no-session"}, "pigo")
			// pi's Anthropic SDK posts to the beta messages path (?beta=true); pigo does not.
			if piReq.Path != pigoReq.Path || strings.TrimPrefix(piReq.Query, "beta=true") != pigoReq.Query {
				t.Errorf("path: pi %s?%s, pigo %s?%s", piReq.Path, piReq.Query, pigoReq.Path, pigoReq.Query)
			}
			a, b := normalizeCredBody(piReq.Body, piCwd), normalizeCredBody(pigoReq.Body, pigoCwd)
			if sc.api == llmtest.PiMessages {
				maskPiMessagesContext(a)
				maskPiMessagesContext(b)
			}
			correctMaxTokens(a, b, promptTokens(piReq.Body)-promptTokens(pigoReq.Body))
			maskDeveloperRole(a, b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("bodies differ, %s\n pi:   %s\n pigo: %s", diffJSON(a, b), piReq.Body, pigoReq.Body)
			}
			var diffs []string
			for _, h := range sc.headers {
				pv, gv := piReq.Header.Values(h), pigoReq.Header.Values(h)
				sort.Strings(pv)
				sort.Strings(gv)
				if !reflect.DeepEqual(pv, gv) {
					diffs = append(diffs, fmt.Sprintf("%s: pi %q, pigo %q", h, pv, gv))
				}
			}
			if len(diffs) > 0 {
				t.Errorf("headers differ:\n %s", strings.Join(diffs, "\n "))
			}
			if sc.sigv4 != "" {
				pc, gc := sigv4Canonical(t, "pi", piReq, sc.sigv4), sigv4Canonical(t, "pigo", pigoReq, sc.sigv4)
				if pc != gc {
					t.Errorf("canonical requests differ:\n pi:\n%s\n pigo:\n%s", pc, gc)
				}
			}
		})
	}
}

// maskPiMessagesContext masks a pi-messages body's system message and timestamps (see
// "pi-messages context").
func maskPiMessagesContext(v any) {
	m, _ := v.(map[string]any)
	ctx, _ := m["context"].(map[string]any)
	msgs, _ := ctx["messages"].([]any)
	for i, x := range msgs {
		msg, _ := x.(map[string]any)
		if msg == nil {
			continue
		}
		if msg["role"] == "system" {
			msgs[i] = "<system message>"
			continue
		}
		if _, ok := msg["timestamp"]; ok {
			msg["timestamp"] = "<time>"
		}
	}
}

// maskDeveloperRole compares pigo's developer message as pi's system one (see "developer role").
func maskDeveloperRole(pi, pigo any) {
	first := func(v any) map[string]any {
		m, _ := v.(map[string]any)
		msgs, _ := m["messages"].([]any)
		if len(msgs) == 0 {
			return nil
		}
		f, _ := msgs[0].(map[string]any)
		return f
	}
	if p, g := first(pi), first(pigo); p != nil && g != nil && p["role"] == "system" && g["role"] == "developer" {
		g["role"] = "system"
	}
}

// promptTokens is pi 1.6's estimate of a body's system prompt (ceil(chars/3.5)).
func promptTokens(body []byte) int {
	i := bytes.Index(body, []byte(`"You are terse.`))
	if i < 0 {
		return 0
	}
	var s string
	if err := json.NewDecoder(bytes.NewReader(body[i:])).Decode(&s); err != nil {
		return 0
	}
	return int(math.Ceil(float64(len([]rune(s))) / 3.5))
}

var maxTokenKeys = []string{"max_tokens", "max_output_tokens", "max_completion_tokens", "maxOutputTokens", "maxTokens"}

// correctMaxTokens gives pigo's body pi's output budget when the two differ by exactly the
// prompt estimate's difference (see credentialDifferences).
func correctMaxTokens(pi, pigo any, delta int) {
	pm, ok1 := pi.(map[string]any)
	gm, ok2 := pigo.(map[string]any)
	if !ok1 || !ok2 || delta == 0 {
		return
	}
	fix := func(p, g map[string]any) {
		for _, k := range maxTokenKeys {
			pv, ok1 := p[k].(json.Number)
			gv, ok2 := g[k].(json.Number)
			if !ok1 || !ok2 {
				continue
			}
			pn, _ := pv.Int64()
			gn, _ := gv.Int64()
			if gn-pn == int64(delta) {
				g[k] = pv
			}
		}
	}
	fix(pm, gm)
	for _, nested := range []string{"generationConfig", "inferenceConfig"} {
		if pg, ok := pm[nested].(map[string]any); ok {
			if gg, ok := gm[nested].(map[string]any); ok {
				fix(pg, gg)
			}
		}
	}
}

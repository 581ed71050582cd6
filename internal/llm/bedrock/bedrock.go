// Package bedrock is pigo's client for bedrock-converse-stream, Amazon Bedrock's ConverseStream
// API (POST {endpoint}/model/{modelId}/converse-stream), on the raw wire as pi 1.6 speaks it
// through the AWS SDK: pi's request body (messages, system, inference and tool configuration,
// Claude's thinking fields and cache points), a Bedrock API key as a bearer token or the AWS
// credential chain with Signature Version 4, the event-stream framing of the reply, pi's event
// mapping and its error texts. No AWS SDK is linked (spec D17).
package bedrock

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/eventstream"
)

// API is the models.json api value this package serves.
const API = "bedrock-converse-stream"

// Provider streams bedrock-converse-stream responses.
type Provider struct{}

var (
	arnRegion    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^arn:aws(?:-[a-z0-9-]+)?:bedrock:([a-z0-9-]+):`) })
	standardHost = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$`)
	})
	emptyPlaceholder = "<empty>"
)

// Target is where a request goes and how it is authenticated.
type Target struct {
	URL, Region string
	// Bearer is a Bedrock API key sent as "Authorization: Bearer"; otherwise Creds sign.
	Bearer string
	Creds  Credentials
}

// endpointRegion is the region of a standard Bedrock runtime endpoint ("" for any other URL).
func endpointRegion(base string) string {
	u, err := url.Parse(base)
	if err != nil || base == "" {
		return ""
	}
	if m := standardHost().FindStringSubmatch(strings.ToLower(u.Hostname())); m != nil {
		return m[1]
	}
	return ""
}

// Resolve is pi 1.6's choice of endpoint, region and credential: a models.json baseUrl that is
// not a standard Bedrock endpoint is used as is, a standard one only while no region and no
// AWS_PROFILE are configured; the region comes from an inference-profile ARN, AWS_REGION,
// AWS_DEFAULT_REGION, the endpoint, us-east-1 (no profile), or the profile's config; a Bedrock
// API key (the stored or given key, else AWS_BEARER_TOKEN_BEDROCK) is a bearer token unless
// AWS_BEDROCK_SKIP_AUTH=1 (then dummy keys sign); else the environment's keys (unless the stored
// credential names a profile), else the AWS credential chain.
func Resolve(ctx context.Context, m *llm.Model, o *llm.Options) (Target, error) {
	configured := lookup(m, "AWS_REGION")
	if configured == "" {
		configured = lookup(m, "AWS_DEFAULT_REGION")
	}
	ambientProfile := lookupProcess("AWS_PROFILE") != ""
	epRegion := endpointRegion(m.BaseURL)
	explicit := epRegion == "" || (configured == "" && !ambientProfile)
	var t Target
	switch mm := arnRegion().FindStringSubmatch(m.ID); {
	case mm != nil:
		t.Region = mm[1]
	case configured != "":
		t.Region = configured
	case epRegion != "" && explicit:
		t.Region = epRegion
	case !ambientProfile:
		t.Region = "us-east-1"
	default:
		t.Region = profileRegion(m)
		if t.Region == "" {
			return t, fmt.Errorf("Region is missing")
		}
	}
	base := strings.TrimRight(m.BaseURL, "/")
	if !explicit || base == "" {
		base = "https://bedrock-runtime." + t.Region + ".amazonaws.com"
		if strings.HasPrefix(t.Region, "cn-") {
			base += ".cn"
		}
	}
	t.URL = base + "/model/" + escape(m.ID) + "/converse-stream"
	skip := lookup(m, "AWS_BEDROCK_SKIP_AUTH") == "1"
	bearer := m.APIKey
	if bearer == "" {
		bearer = lookup(m, "AWS_BEARER_TOKEN_BEDROCK")
	}
	switch {
	case bearer != "" && !skip:
		t.Bearer = bearer
	case skip:
		t.Creds = Credentials{AccessKeyID: "dummy-access-key", SecretAccessKey: "dummy-secret-key"}
	case m.Env["AWS_PROFILE"] == "" && lookup(m, "AWS_ACCESS_KEY_ID") != "" && lookup(m, "AWS_SECRET_ACCESS_KEY") != "":
		t.Creds = Credentials{lookup(m, "AWS_ACCESS_KEY_ID"), lookup(m, "AWS_SECRET_ACCESS_KEY"), lookup(m, "AWS_SESSION_TOKEN")}
	default:
		c, err := chainCredentials(ctx, m, o)
		if err != nil {
			return t, err
		}
		t.Creds = c
	}
	return t, nil
}

func lookupProcess(name string) string { return lookup(&llm.Model{}, name) }

// reserved headers are the signature's and the credential's: a configured header never
// replaces them.
func reserved(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "x-amz-") || n == "authorization" || n == "host"
}

// Headers are the request's headers, signed when the target signs.
func Headers(t Target, m *llm.Model, o *llm.Options, body []byte, now time.Time) ([]llm.Header, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, err
	}
	hs := []header{{"content-type", "application/json"}, {"content-length", fmt.Sprint(len(body))}}
	add := func(extra map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(extra)) {
			if reserved(k) {
				continue
			}
			set := false
			for i := range hs {
				if strings.EqualFold(hs[i].name, k) {
					hs[i].value, set = extra[k], true
				}
			}
			if !set {
				hs = append(hs, header{k, extra[k]})
			}
		}
	}
	add(m.Headers)
	if o != nil {
		add(o.Headers)
	}
	if t.Bearer != "" {
		hs = append(hs, header{"Authorization", "Bearer " + t.Bearer})
	} else {
		hs = SignRequest(http.MethodPost, u.Host, u.EscapedPath(), u.RawQuery, hs, body, t.Creds, t.Region, "bedrock", now)
	}
	out := []llm.Header{{Name: "User-Agent", Value: llm.UserAgent()}}
	for _, h := range hs {
		if strings.EqualFold(h.name, "content-length") {
			continue // the HTTP client sends it
		}
		out = append(out, llm.Header{Name: h.name, Value: h.value})
	}
	return out, nil
}

// Stream implements llm.Provider.
func (Provider) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	b := llm.NewBuilder(m, emit).Live(o)
	b.Msg().StopReason = "pending"
	t, err := Resolve(ctx, m, o)
	if err != nil {
		return b.Fail(ctx, err.Error())
	}
	body, err := BuildBody(m, c, o)
	if err != nil {
		return b.Fail(ctx, err.Error())
	}
	hs, err := Headers(t, m, o, body, time.Now())
	if err != nil {
		return b.Fail(ctx, err.Error())
	}
	rc, failed := llm.Open(ctx, b, o, llm.Request{URL: t.URL, Headers: hs, Body: body, HTTPErrorHeader: httpError})
	if failed != nil {
		return failed
	}
	defer rc.Close()
	return run(ctx, b, m, rc)
}

// errorPrefixes are pi's readable names of Bedrock's exceptions.
var errorPrefixes = map[string]string{
	"InternalServerException":     "Internal server error",
	"ModelStreamErrorException":   "Model stream error",
	"ValidationException":         "Validation error",
	"ThrottlingException":         "Throttling error",
	"ServiceUnavailableException": "Service unavailable",
}

const dataRetentionDocs = "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html"

func withHint(s string) string {
	if strings.Contains(strings.ToLower(s), "data retention mode") {
		s += " See " + dataRetentionDocs + " for supported data retention modes."
	}
	return s
}

// exceptionText is pi's text for a Bedrock exception: its readable name (or the exception's
// own name), then its message.
func exceptionText(name, message string) string {
	prefix, ok := errorPrefixes[name]
	if !ok {
		prefix = name
	}
	return withHint(prefix + ": " + message)
}

// httpError is the text of a failed response as the AWS SDK and pi make it: the error code
// from x-amzn-errortype (or the body's __type or code), the message from the body.
func httpError(status int, h http.Header, text string) string {
	var body map[string]any
	_ = json.Unmarshal([]byte(text), &body)
	str := func(k string) string {
		s, _ := body[k].(string)
		return s
	}
	code := h.Get("x-amzn-errortype")
	if code == "" {
		code = str("__type")
		if code == "" {
			code = str("code")
		}
		if code == "" {
			code = str("Code")
		}
	}
	if i := strings.IndexByte(code, ':'); i >= 0 {
		code = code[:i]
	}
	if i := strings.LastIndexByte(code, '#'); i >= 0 {
		code = code[i+1:]
	}
	msg := str("message")
	if msg == "" {
		msg = str("Message")
	}
	if code == "" {
		code = "Unknown"
	}
	if msg == "" {
		if t := strings.TrimSpace(text); t != "" && body == nil {
			return withHint(exceptionText(code, fmt.Sprintf("%d: %s", status, llm.TruncateJS(t, 4000))))
		}
		msg = "UnknownError"
	}
	return exceptionText(code, msg)
}

// isClaude is pi's isAnthropicClaudeModel.
func isClaude(m *llm.Model) bool {
	id, name := strings.ToLower(m.ID), strings.ToLower(m.Name)
	return strings.Contains(id, "anthropic.claude") || strings.Contains(id, "anthropic/claude") ||
		strings.Contains(name, "anthropic.claude") || strings.Contains(name, "anthropic/claude") || strings.Contains(name, "claude")
}

var matchSep = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[\s_.:]+`) })

// candidates are the model's id and name, lower-cased, as is and with separators as dashes.
func candidates(m *llm.Model) []string {
	vals := []string{m.ID}
	if m.Name != "" {
		vals = append(vals, m.Name)
	}
	var out []string
	for _, v := range vals {
		l := strings.ToLower(v)
		out = append(out, l, matchSep().ReplaceAllString(l, "-"))
	}
	return out
}

func anyContains(cs []string, subs ...string) bool {
	for _, c := range cs {
		for _, s := range subs {
			if strings.Contains(c, s) {
				return true
			}
		}
	}
	return false
}

func adaptive(m *llm.Model) bool {
	return anyContains(candidates(m), "opus-4-6", "opus-4-7", "opus-4-8", "opus-5", "sonnet-4-6", "sonnet-5", "haiku-5", "fable-5")
}

func nativeXhigh(m *llm.Model) bool {
	return anyContains(candidates(m), "opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "haiku-5", "fable-5")
}

func blockBinding(m *llm.Model) bool { return nativeXhigh(m) }

func promptCaching(m *llm.Model) bool {
	cs := candidates(m)
	if !anyContains(cs, "claude") {
		return lookup(m, "AWS_BEDROCK_FORCE_CACHE") == "1"
	}
	return anyContains(cs, "fable-5", "opus-5", "sonnet-5", "haiku-5", "-4-", "claude-3-7-sonnet", "claude-3-5-haiku")
}

func govCloud(m *llm.Model) bool {
	r := lookup(m, "AWS_REGION")
	if r == "" {
		r = lookup(m, "AWS_DEFAULT_REGION")
	}
	if strings.HasPrefix(strings.ToLower(r), "us-gov-") {
		return true
	}
	id := strings.ToLower(m.ID)
	return strings.HasPrefix(id, "us-gov.") || strings.HasPrefix(id, "arn:aws-us-gov:")
}

func effort(m *llm.Model, level string) string {
	if level == "xhigh" && nativeXhigh(m) {
		return "xhigh"
	}
	return llm.ThinkingEffort(m, level)
}

var (
	gptEffort    = map[string]string{"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "max"}
	gptOSSEffort = map[string]string{"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high"}
)

// level is the thinking level the request asks for ("" for none).
func level(m *llm.Model, o *llm.Options) string {
	if o == nil || o.ThinkingLevel == "" || o.ThinkingLevel == "off" {
		return ""
	}
	if l := m.ClampThinkingLevel(o.ThinkingLevel); l != "off" {
		return l
	}
	return ""
}

// budgets is pi's output cap and Claude thinking budget for the request.
func budgets(m *llm.Model, c *llm.Context, o *llm.Options, lvl string) (maxTokens, budget int) {
	maxTokens = llm.RequestMaxTokens(m, c, o)
	if lvl == "" || !isClaude(m) || adaptive(m) {
		if lvl != "" {
			var custom map[string]int
			if o != nil {
				custom = o.ThinkingBudgets
			}
			budget = llm.ThinkingBudget(lvl, custom)
		}
		return maxTokens, budget
	}
	var custom map[string]int
	if o != nil {
		custom = o.ThinkingBudgets
	}
	mt, b := llm.AdjustMaxTokensForThinking(maxTokens, m.MaxTokens, lvl, custom)
	maxTokens = llm.ClampMaxTokens(m, c, mt)
	return maxTokens, min(b, max(0, maxTokens-1024))
}

func additionalFields(m *llm.Model, lvl string, budget int) any {
	if lvl == "" || !m.Reasoning {
		return nil
	}
	if isClaude(m) {
		gov := govCloud(m)
		display := func(o llm.Obj) llm.Obj {
			if !gov {
				o = append(o, llm.Field{K: "display", V: "summarized"})
			}
			return o
		}
		binding := !gov && blockBinding(m)
		if adaptive(m) {
			th := display(llm.Obj{{K: "type", V: "adaptive"}})
			if binding {
				th = append(th, llm.Field{K: "block_binding", V: llm.Obj{{K: "prefix_mismatch_behavior", V: "drop_block"}}})
			}
			out := llm.Obj{{K: "thinking", V: th}, {K: "output_config", V: llm.Obj{{K: "effort", V: effort(m, lvl)}}}}
			if binding {
				out = append(out, llm.Field{K: "anthropic_beta", V: []any{"thinking-binding-controls-2026-08-01"}})
			}
			return out
		}
		return llm.Obj{{K: "thinking", V: display(llm.Obj{{K: "type", V: "enabled"}, {K: "budget_tokens", V: budget}})},
			{K: "anthropic_beta", V: []any{"interleaved-thinking-2025-05-14"}}}
	}
	cs := candidates(m)
	if anyContains(cs, "gpt-oss") {
		return llm.Obj{{K: "reasoning_effort", V: gptOSSEffort[lvl]}}
	}
	if anyContains(cs, "gpt-") {
		e := gptEffort[lvl]
		if v, present, null := m.MappedLevel(lvl); present && !null {
			e = v
		}
		return llm.Obj{{K: "reasoning", V: llm.Obj{{K: "effort", V: e}}}}
	}
	return nil
}

func cachePoint(retention string) llm.Obj {
	cp := llm.Obj{{K: "type", V: "default"}}
	if retention == "long" {
		cp = append(cp, llm.Field{K: "ttl", V: "1h"})
	}
	return llm.Obj{{K: "cachePoint", V: cp}}
}

func retention(m *llm.Model, o *llm.Options) string {
	if o != nil && o.CacheRetention != "" {
		return o.CacheRetention
	}
	if lookup(m, "PI_CACHE_RETENTION") == "long" {
		return "long"
	}
	return "short"
}

func imageBlock(mime, data string) (llm.Obj, error) {
	var format string
	switch mime {
	case "image/jpeg", "image/jpg":
		format = "jpeg"
	case "image/png":
		format = "png"
	case "image/gif":
		format = "gif"
	case "image/webp":
		format = "webp"
	default:
		return nil, fmt.Errorf("Unknown image type: %s", mime)
	}
	return llm.Obj{{K: "image", V: llm.Obj{{K: "format", V: format}, {K: "source", V: llm.Obj{{K: "bytes", V: data}}}}}}, nil
}

func textBlock(s string) llm.Obj {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return llm.Obj{{K: "text", V: s}}
}

func normalizeID(id string, _ *llm.Message) string {
	id = llm.SanitizeID(id)
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}

// document is a tool call's arguments as pi replays them: the JSON as written, object keys in
// their order, empty keys dropped at any depth (Bedrock refuses them).
func document(raw json.RawMessage) any {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	v, err := orderedValue(d)
	if err != nil {
		return llm.Obj{}
	}
	return v
}

func orderedValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := llm.Obj{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := orderedValue(d)
				if err != nil {
					return nil, err
				}
				if k == "" {
					continue
				}
				replaced := false
				for i := range o {
					if o[i].K == k {
						o[i].V, replaced = v, true
					}
				}
				if !replaced {
					o = append(o, llm.Field{K: k, V: v})
				}
			}
			_, err := d.Token()
			return o, err
		case '[':
			a := []any{}
			for d.More() {
				v, err := orderedValue(d)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := d.Token()
			return a, err
		}
	}
	return tok, nil
}

const errorImagePlaceholder = "(image attached after the tool results)"

func toolResultContent(content []llm.Content) ([]any, error) {
	var out []any
	for _, c := range content {
		if c.Type == llm.TypeImage {
			ib, err := imageBlock(c.MimeType, c.Data)
			if err != nil {
				return nil, err
			}
			out = append(out, ib)
		} else if tb := textBlock(c.Text); tb != nil {
			out = append(out, tb)
		}
	}
	if len(out) == 0 {
		out = append(out, llm.Obj{{K: "text", V: emptyPlaceholder}})
	}
	return out, nil
}

func messages(m *llm.Model, c *llm.Context, ret string) ([]any, error) {
	claude := isClaude(m)
	msgs := llm.TransformMessages(c.Messages, m, normalizeID)
	out := []any{}
	type msg struct {
		role    string
		content []any
	}
	var list []msg
	for i := 0; i < len(msgs); i++ {
		mm := &msgs[i]
		switch mm.Role {
		case llm.RoleUser:
			var content []any
			if mm.StringContent {
				t := textBlock(mm.Text())
				if t == nil {
					t = llm.Obj{{K: "text", V: emptyPlaceholder}}
				}
				content = append(content, t)
			} else {
				for _, b := range mm.Content {
					switch b.Type {
					case llm.TypeText:
						if t := textBlock(b.Text); t != nil {
							content = append(content, t)
						}
					case llm.TypeImage:
						ib, err := imageBlock(b.MimeType, b.Data)
						if err != nil {
							return nil, err
						}
						content = append(content, ib)
					}
				}
				if len(content) == 0 {
					content = append(content, llm.Obj{{K: "text", V: emptyPlaceholder}})
				}
			}
			list = append(list, msg{"user", content})
		case llm.RoleAssistant:
			var content []any
			for _, b := range mm.Content {
				switch b.Type {
				case llm.TypeText:
					if t := textBlock(b.Text); t != nil {
						content = append(content, t)
					}
				case llm.TypeToolCall:
					content = append(content, llm.Obj{{K: "toolUse", V: llm.Obj{{K: "toolUseId", V: b.ID}, {K: "name", V: b.Name}, {K: "input", V: document(b.Arguments)}}}})
				case llm.TypeThinking:
					if b.Redacted {
						if raw, err := base64.StdEncoding.DecodeString(b.ThinkingSignature); err == nil && len(raw) > 0 {
							content = append(content, llm.Obj{{K: "reasoningContent", V: llm.Obj{{K: "redactedContent", V: b.ThinkingSignature}}}})
						}
						continue
					}
					if strings.TrimSpace(b.Thinking) == "" {
						continue
					}
					switch {
					case claude && strings.TrimSpace(b.ThinkingSignature) == "":
						content = append(content, llm.Obj{{K: "text", V: b.Thinking}})
					case claude:
						content = append(content, llm.Obj{{K: "reasoningContent", V: llm.Obj{{K: "reasoningText", V: llm.Obj{{K: "text", V: b.Thinking}, {K: "signature", V: b.ThinkingSignature}}}}}})
					default:
						content = append(content, llm.Obj{{K: "reasoningContent", V: llm.Obj{{K: "reasoningText", V: llm.Obj{{K: "text", V: b.Thinking}}}}}})
					}
				}
			}
			if len(content) > 0 {
				list = append(list, msg{"assistant", content})
			}
		case llm.RoleToolResult:
			var results, images []any
			j := i
			for ; j < len(msgs) && msgs[j].Role == llm.RoleToolResult; j++ {
				tr := &msgs[j]
				blocks := tr.Content
				isErr := tr.IsError != nil && *tr.IsError
				var errImages []llm.Content
				if claude && isErr {
					for _, b := range blocks {
						if b.Type == llm.TypeImage {
							errImages = append(errImages, b)
						}
					}
					if len(errImages) > 0 {
						var replaced []llm.Content
						prevPlaceholder := false
						for _, b := range blocks {
							if b.Type == llm.TypeImage {
								if !prevPlaceholder {
									replaced = append(replaced, llm.TextBlock(errorImagePlaceholder))
								}
								prevPlaceholder = true
								continue
							}
							replaced = append(replaced, b)
							prevPlaceholder = b.Text == errorImagePlaceholder
						}
						blocks = replaced
					}
				}
				content, err := toolResultContent(blocks)
				if err != nil {
					return nil, err
				}
				status := "success"
				if isErr {
					status = "error"
				}
				results = append(results, llm.Obj{{K: "toolResult", V: llm.Obj{{K: "toolUseId", V: tr.ToolCallID}, {K: "content", V: content}, {K: "status", V: status}}}})
				if len(errImages) > 0 {
					images = append(images, llm.Obj{{K: "text", V: fmt.Sprintf("Images from the error result of tool call %s (%s):", tr.ToolCallID, tr.ToolName)}})
					for _, im := range errImages {
						ib, err := imageBlock(im.MimeType, im.Data)
						if err != nil {
							return nil, err
						}
						images = append(images, ib)
					}
				}
			}
			i = j - 1
			list = append(list, msg{"user", append(results, images...)})
		}
	}
	if ret != "none" && promptCaching(m) && len(list) > 0 && list[len(list)-1].role == "user" {
		list[len(list)-1].content = append(list[len(list)-1].content, cachePoint(ret))
	}
	for _, x := range list {
		out = append(out, llm.Obj{{K: "role", V: x.role}, {K: "content", V: x.content}})
	}
	return out, nil
}

// BuildBody is the ConverseStream body pi 1.6 sends (the model id goes in the path).
func BuildBody(m *llm.Model, c *llm.Context, o *llm.Options) ([]byte, error) {
	ret := retention(m, o)
	msgs, err := messages(m, c, ret)
	if err != nil {
		return nil, err
	}
	var messages any = msgs
	if o != nil && o.Memo != nil {
		messages = llm.MemoArray(o.Memo, msgs)
	}
	body := llm.Obj{{K: "messages", V: messages}}
	if c.SystemPrompt != "" {
		sys := []any{llm.Obj{{K: "text", V: c.SystemPrompt}}}
		if ret != "none" && promptCaching(m) {
			sys = append(sys, cachePoint(ret))
		}
		body = append(body, llm.Field{K: "system", V: sys})
	}
	lvl := level(m, o)
	maxTokens, budget := budgets(m, c, o, lvl)
	body = append(body, llm.Field{K: "inferenceConfig", V: llm.Obj{{K: "maxTokens", V: maxTokens}}})
	if len(c.Tools) > 0 && (o == nil || o.ToolChoice != "none") {
		var tools []any
		for _, t := range c.Tools {
			tools = append(tools, llm.Obj{{K: "toolSpec", V: llm.Obj{{K: "name", V: t.Name}, {K: "description", V: t.Description},
				{K: "inputSchema", V: llm.Obj{{K: "json", V: t.Parameters}}}}}})
		}
		tc := llm.Obj{{K: "tools", V: tools}}
		if o != nil {
			switch o.ToolChoice {
			case "auto":
				tc = append(tc, llm.Field{K: "toolChoice", V: llm.Obj{{K: "auto", V: llm.Obj{}}}})
			case "any":
				tc = append(tc, llm.Field{K: "toolChoice", V: llm.Obj{{K: "any", V: llm.Obj{}}}})
			}
		}
		body = append(body, llm.Field{K: "toolConfig", V: tc})
	}
	if f := additionalFields(m, lvl, budget); f != nil {
		body = append(body, llm.Field{K: "additionalModelRequestFields", V: f})
	}
	return llm.AppendJSON(nil, body), nil
}

// MapStopReason is pi's mapStopReason.
func MapStopReason(r string) (stop, errorMessage string) {
	switch r {
	case "end_turn", "stop_sequence":
		return llm.StopStop, ""
	case "max_tokens", "model_context_window_exceeded":
		return llm.StopLength, ""
	case "tool_use":
		return llm.StopToolUse, ""
	case "":
		return llm.StopError, ""
	}
	return llm.StopError, "Provider stopped with: " + r
}

const redactedPlaceholder = "[Reasoning redacted]"

type event struct {
	Role              string `json:"role"`
	ContentBlockIndex int    `json:"contentBlockIndex"`
	Start             *struct {
		ToolUse *struct {
			ToolUseID string `json:"toolUseId"`
			Name      string `json:"name"`
		} `json:"toolUse"`
	} `json:"start"`
	Delta *struct {
		Text    *string `json:"text"`
		ToolUse *struct {
			Input string `json:"input"`
		} `json:"toolUse"`
		ReasoningContent *struct {
			Text            string `json:"text"`
			Signature       string `json:"signature"`
			RedactedContent string `json:"redactedContent"`
		} `json:"reasoningContent"`
	} `json:"delta"`
	StopReason string `json:"stopReason"`
	Usage      *struct {
		InputTokens           int `json:"inputTokens"`
		OutputTokens          int `json:"outputTokens"`
		TotalTokens           int `json:"totalTokens"`
		CacheReadInputTokens  int `json:"cacheReadInputTokens"`
		CacheWriteInputTokens int `json:"cacheWriteInputTokens"`
		CacheDetails          *[]struct {
			TTL         string `json:"ttl"`
			InputTokens int    `json:"inputTokens"`
		} `json:"cacheDetails"`
	} `json:"usage"`
	Message string `json:"message"`
}

type open struct {
	index    int
	partial  *llm.PartialJSON
	redacted []byte
}

var exceptionNames = map[string]string{
	"internalServerException":     "InternalServerException",
	"modelStreamErrorException":   "ModelStreamErrorException",
	"validationException":         "ValidationException",
	"throttlingException":         "ThrottlingException",
	"serviceUnavailableException": "ServiceUnavailableException",
}

func run(ctx context.Context, b *llm.Builder, m *llm.Model, body io.Reader) *llm.Message {
	msg := b.Msg()
	blocks := map[int]*open{}
	flushRedacted := func(o *open) {
		if o.redacted != nil {
			blk := b.Block(o.index)
			blk.ThinkingSignature = base64.StdEncoding.EncodeToString(o.redacted)
			b.SetBlock(o.index, blk)
			o.redacted = nil
		}
	}
	r := eventstream.NewReader(body)
	next := func() (eventstream.Message, error) {
		em, err := r.Next()
		if errors.Is(err, eventstream.ErrCorrupt) {
			return em, llm.Failure("Bedrock stream: " + err.Error())
		}
		return em, err
	}
	err := llm.Each(ctx, b, next, func(em eventstream.Message) error {
		switch em.Headers[":message-type"] {
		case "error":
			text := em.Headers[":error-message"]
			if text == "" {
				text = "UnknownError"
			}
			return llm.Failure(text)
		case "exception":
			typ := em.Headers[":exception-type"]
			var ev event
			_ = json.Unmarshal(em.Payload, &ev)
			if name, ok := exceptionNames[typ]; ok {
				return llm.Failure(exceptionText(name, ev.Message))
			}
			return llm.Failure(withHint(string(em.Payload)))
		case "event":
		default:
			return nil
		}
		var ev event
		if err := json.Unmarshal(em.Payload, &ev); err != nil {
			return llm.Failure(fmt.Sprintf("Bedrock sent a malformed %s event: %v", em.Headers[":event-type"], err))
		}
		switch em.Headers[":event-type"] {
		case "messageStart":
			if ev.Role != "assistant" {
				return llm.Failure("Unexpected assistant message start but got user message start instead")
			}
		case "contentBlockStart":
			if ev.Start != nil && ev.Start.ToolUse != nil {
				i := b.Add(llm.Content{Type: llm.TypeToolCall, ID: ev.Start.ToolUse.ToolUseID, Name: ev.Start.ToolUse.Name, Arguments: json.RawMessage("{}")})
				blocks[ev.ContentBlockIndex] = &open{index: i, partial: &llm.PartialJSON{}}
				b.At(llm.EventToolCallStart, i)
			}
		case "contentBlockDelta":
			d := ev.Delta
			if d == nil {
				return nil
			}
			o := blocks[ev.ContentBlockIndex]
			kind := ""
			if o != nil {
				kind = b.Block(o.index).Type
			}
			switch {
			case d.Text != nil:
				if o == nil {
					i := b.Add(llm.Content{Type: llm.TypeText})
					o = &open{index: i}
					blocks[ev.ContentBlockIndex] = o
					kind = llm.TypeText
					b.At(llm.EventTextStart, i)
				}
				if kind == llm.TypeText {
					b.Append(o.index, *d.Text)
					b.Delta(llm.EventTextDelta, o.index, *d.Text)
				}
			case d.ToolUse != nil:
				if o != nil && kind == llm.TypeToolCall && o.partial != nil {
					o.partial.Feed(d.ToolUse.Input)
					blk := b.Block(o.index)
					blk.Arguments = o.partial.Snapshot()
					b.SetBlock(o.index, blk)
					b.Delta(llm.EventToolCallDelta, o.index, d.ToolUse.Input)
				}
			case d.ReasoningContent != nil:
				rc := d.ReasoningContent
				if o == nil {
					i := b.Add(llm.Content{Type: llm.TypeThinking})
					o = &open{index: i}
					blocks[ev.ContentBlockIndex] = o
					kind = llm.TypeThinking
					b.At(llm.EventThinkingStart, i)
				}
				if kind != llm.TypeThinking {
					return nil
				}
				if rc.Text != "" {
					b.Append(o.index, rc.Text)
					b.Delta(llm.EventThinkingDelta, o.index, rc.Text)
				}
				if rc.Signature != "" && !b.Block(o.index).Redacted {
					blk := b.Block(o.index)
					blk.ThinkingSignature += rc.Signature
					b.SetBlock(o.index, blk)
				}
				if rc.RedactedContent != "" {
					raw, err := base64.StdEncoding.DecodeString(rc.RedactedContent)
					if err == nil && len(raw) > 0 {
						if !b.Block(o.index).Redacted {
							blk := b.Block(o.index)
							blk.Redacted, blk.ThinkingSignature = true, ""
							b.SetBlock(o.index, blk)
							b.Append(o.index, redactedPlaceholder)
							b.Delta(llm.EventThinkingDelta, o.index, redactedPlaceholder)
						}
						if o.redacted == nil {
							o.redacted = []byte{}
						}
						o.redacted = append(o.redacted, raw...)
					}
				}
			}
		case "contentBlockStop":
			o := blocks[ev.ContentBlockIndex]
			if o == nil {
				return nil
			}
			delete(blocks, ev.ContentBlockIndex)
			switch b.Block(o.index).Type {
			case llm.TypeText, llm.TypeThinking:
				flushRedacted(o)
				b.EndText(o.index)
			case llm.TypeToolCall:
				if o.partial != nil {
					blk := b.Block(o.index)
					blk.Arguments = llm.ParseStreamingJSON(o.partial.Raw())
					b.SetBlock(o.index, blk)
				}
				b.EndToolCall(o.index)
			}
		case "messageStop":
			msg.RawStopReason = ev.StopReason
			stop, em := MapStopReason(ev.StopReason)
			msg.StopReason = stop
			if em != "" {
				msg.ErrorMessage = em
			}
		case "metadata":
			if u := ev.Usage; u != nil {
				usage := &llm.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheWriteInputTokens}
				if u.CacheDetails != nil {
					n := 0
					for _, d := range *u.CacheDetails {
						if d.TTL == "1h" {
							n += d.InputTokens
						}
					}
					usage.CacheWrite1h = &n
				}
				usage.TotalTokens = u.TotalTokens
				if usage.TotalTokens == 0 {
					usage.TotalTokens = usage.Input + usage.Output
				}
				llm.CalculateCost(m, usage)
				msg.Usage = usage
			}
		}
		return nil
	})
	flush := func() {
		for _, o := range blocks {
			flushRedacted(o)
		}
	}
	if err != nil {
		flush()
		return b.Fail(ctx, err.Error())
	}
	if ctx.Err() != nil {
		flush()
		return b.Fail(ctx, llm.StreamAborted)
	}
	switch msg.StopReason {
	case "pending":
		flush()
		return b.Fail(ctx, "Bedrock stream ended without a stop reason")
	case llm.StopError, llm.StopAborted:
		flush()
		em := msg.ErrorMessage
		if em == "" {
			em = "An unknown error occurred"
		}
		return b.Fail(ctx, em)
	}
	flush()
	return b.Done()
}

func init() { llm.Register(API, Provider{}) }

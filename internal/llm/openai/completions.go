// Chat Completions (openai-completions): POST {baseUrl}/chat/completions, streamed. The request
// body pi 0.84 builds, with its compat flags detected from the provider and base URL or given
// in models.json, and pi's parsing of the stream into assistant-message events (reasoning in
// reasoning_content / reasoning / reasoning_text, tool-call argument deltas, usage from
// chunk.usage or choices[0].usage, finish reasons, error texts).

package openai

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/sse"
)

// CompletionsAPI is the models.json api value of Chat Completions.
const CompletionsAPI = "openai-completions"

// Completions streams openai-completions responses.
type Completions struct{}

type toolDelta struct {
	Index    *int          `json:"index"`
	ID       string        `json:"id"`
	Function *toolFunction `json:"function"`
}

type toolFunction struct {
	Name      *string `json:"name"`
	Arguments string  `json:"arguments"`
}

type delta struct {
	Content          *string         `json:"content"`
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ReasoningText    json.RawMessage `json:"reasoning_text"`
	ToolCalls        []toolDelta     `json:"tool_calls"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
}

type chunk struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Usage   json.RawMessage `json:"usage"`
	Error   json.RawMessage `json:"error"`
	Choices []choice        `json:"choices"`
}

type choice struct {
	FinishReason *string         `json:"finish_reason"`
	Usage        json.RawMessage `json:"usage"`
	Delta        *delta          `json:"delta"`
}

type rawUsage struct {
	PromptTokens        int  `json:"prompt_tokens"`
	CompletionTokens    int  `json:"completion_tokens"`
	PromptCacheHit      *int `json:"prompt_cache_hit_tokens"`
	CachedTokens        *int `json:"cached_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     *int `json:"cached_tokens"`
		CacheWriteTokens int  `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func isSet(r json.RawMessage) bool {
	s := strings.TrimSpace(string(r))
	return s != "" && s != "null" && s != "false" && s != "0" && s != `""`
}

// ParseUsage is pi's parseChunkUsage: prompt tokens split into input, cache reads (OpenAI's
// prompt_tokens_details.cached_tokens, DeepSeek's prompt_cache_hit_tokens, Kimi's
// cached_tokens) and cache writes, with the cost from the model's rates.
func ParseUsage(raw json.RawMessage, m *llm.Model) *llm.Usage {
	var r rawUsage
	_ = json.Unmarshal(raw, &r)
	cacheRead := 0
	switch {
	case r.PromptTokensDetails != nil && r.PromptTokensDetails.CachedTokens != nil:
		cacheRead = *r.PromptTokensDetails.CachedTokens
	case r.PromptCacheHit != nil:
		cacheRead = *r.PromptCacheHit
	case r.CachedTokens != nil:
		cacheRead = *r.CachedTokens
	}
	cacheWrite := 0
	if r.PromptTokensDetails != nil {
		cacheWrite = r.PromptTokensDetails.CacheWriteTokens
	}
	reasoning := 0
	if r.CompletionTokensDetails != nil {
		reasoning = r.CompletionTokensDetails.ReasoningTokens
	}
	input := max(0, r.PromptTokens-cacheRead-cacheWrite)
	u := &llm.Usage{Input: input, Output: r.CompletionTokens, CacheRead: cacheRead, CacheWrite: cacheWrite,
		Reasoning: &reasoning, TotalTokens: input + r.CompletionTokens + cacheRead + cacheWrite}
	llm.CalculateCost(m, u)
	return u
}

// MapFinishReason is pi's mapStopReason for openai-completions.
func MapFinishReason(reason string) (stop, errorMessage string) {
	switch reason {
	case "stop", "end":
		return llm.StopStop, ""
	case "length":
		return llm.StopLength, ""
	case "function_call", "tool_calls":
		return llm.StopToolUse, ""
	}
	return llm.StopError, "Provider finish_reason: " + reason
}

// Headers are the request headers pi's client sends (besides the SDK's own).
func Headers(m *llm.Model, c *llm.Context, o *llm.Options, compat Compat, sessionID string) []llm.Header {
	hs := []llm.Header{{Name: "User-Agent", Value: llm.UserAgent()}}
	for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
		hs = llm.SetHeader(hs, k, m.Headers[k])
	}
	if m.Provider == "github-copilot" && c != nil {
		ch := llm.CopilotHeaders(c)
		for _, k := range slices.Sorted(maps.Keys(ch)) {
			hs = llm.SetHeader(hs, k, ch[k])
		}
	}
	if sessionID != "" && compat.SendSessionAffinityHeaders {
		hs = sessionHeaders(hs, compat.SessionAffinityFormat, sessionID, true)
	}
	if o != nil {
		for _, k := range slices.Sorted(maps.Keys(o.Headers)) {
			hs = llm.SetHeader(hs, k, o.Headers[k])
		}
	}
	return hs
}

// apiKey is pi's getClientApiKey: the key, or "unused" when an Authorization header is set.
func apiKey(m *llm.Model, o *llm.Options) (string, bool) {
	if m.APIKey != "" {
		return m.APIKey, true
	}
	var hs map[string]string
	if o != nil {
		hs = o.Headers
	}
	if llm.HasHeader(hs, "authorization") || llm.HasHeader(hs, "cf-aig-authorization") {
		return "unused", true
	}
	return "", false
}

// Stream implements llm.Provider.
func (Completions) Stream(ctx context.Context, m *llm.Model, c *llm.Context, o *llm.Options, emit func(llm.Event)) *llm.Message {
	b := llm.NewBuilder(m, emit).Live(o)
	key, ok := apiKey(m, o)
	if !ok {
		return b.Fail(ctx, "No API key for provider: "+m.Provider)
	}
	compat := ResolveCompat(m)
	p := resolveParams(m, c, o)
	params := buildParams(m, c, compat, p)
	base := strings.TrimRight(m.BaseURL, "/")
	if m.Provider == "azure" {
		// Azure AI Foundry's chat completions (the catalogue's azure models on this API): pi
		// resolves the endpoint and the deployment as for azure-openai-responses and sends the
		// request with the plain OpenAI client (bearer key, no api-version).
		b2, err := azureBaseURL(m)
		if err != nil {
			return b.Fail(ctx, err.Error())
		}
		base = b2
		params = params.Set("model", azureDeployment(m))
	}
	body := llm.AppendJSON(nil, params)
	sessionID := p.sessionID
	if p.retention == "none" {
		sessionID = ""
	}
	hs := []llm.Header{{Name: "Content-Type", Value: "application/json"}, {Name: "Accept", Value: "application/json"},
		{Name: "Authorization", Value: "Bearer " + key}}
	for _, h := range Headers(m, c, o, compat, sessionID) {
		hs = llm.SetHeader(hs, h.Name, h.Value)
	}
	rc, failed := llm.Open(ctx, b, o, llm.Request{URL: base + "/chat/completions", Headers: hs, Body: body,
		HTTPError: func(status int, text string) string { return llm.OpenAIHTTPError(status, text, "") }})
	if failed != nil {
		return failed
	}
	defer rc.Close()
	return runCompletions(ctx, b, m, compat, rc, o != nil && o.ReportedCost)
}

// reportedCost reads usage.cost: a number or an object with a numeric total.
func reportedCost(raw json.RawMessage) (float64, bool) {
	var u struct {
		Cost json.RawMessage `json:"cost"`
	}
	if json.Unmarshal(raw, &u) != nil || len(u.Cost) == 0 {
		return 0, false
	}
	var f float64
	if json.Unmarshal(u.Cost, &f) == nil {
		return f, true
	}
	var o struct {
		Total *float64 `json:"total"`
	}
	if json.Unmarshal(u.Cost, &o) == nil && o.Total != nil {
		return *o.Total, true
	}
	return 0, false
}

// checkChunk, set by the package's tests, sees every chunk's data (they check the fast decoder
// against encoding/json on all of them).
var checkChunk func(data string)

type state struct {
	text, thinking int // content indexes, -1 = none
	byIndex        map[int]int
	byID           map[string]int
	indexOf        map[int]int // content index → the stream index it was given

	partial    map[int]*llm.PartialJSON // tool-call arguments
	details    []llm.Obj
	hasDetails bool
}

// eachSSE reads the stream's events, their data borrowed (a test compares it with
// llm.EachSSE, which copies).
var eachSSE = llm.EachSSEBorrowed

func runCompletions(ctx context.Context, b *llm.Builder, m *llm.Model, compat Compat, body io.Reader, useReportedCost bool) *llm.Message {
	cost, haveCost := 0.0, false
	st := &state{text: -1, thinking: -1, byIndex: map[int]int{}, byID: map[string]int{}, indexOf: map[int]int{}, partial: map[int]*llm.PartialJSON{}}
	msg := b.Msg()
	msg.StopReason = "pending"
	hasFinish := false
	done := false
	// The seed writes the reported cost into the final message only (its done or error
	// event), so the updates before it keep the prices' cost.
	applyReported := func() {
		if useReportedCost && haveCost {
			msg.Usage.Cost = llm.Cost{Total: cost}
		}
	}
	fail := func(s string) *llm.Message {
		st.applyDetails(b)
		applyReported()
		return b.Fail(ctx, s)
	}
	// The events' data is borrowed from the reader's buffer (a 100 MB reply's events were as
	// many bytes of fresh strings): st.chunk copies what it keeps of a chunk (D25.24).
	err := eachSSE(ctx, b, body, func(ev sse.Event) error {
		if done {
			return nil
		}
		if strings.HasPrefix(ev.Data, "[DONE]") {
			done = true
			return nil
		}
		if checkChunk != nil {
			checkChunk(strings.Clone(ev.Data))
		}
		var ch chunk
		if !fastChunk(ev.Data, &ch) {
			ch = chunk{}
			if err := json.Unmarshal([]byte(ev.Data), &ch); err != nil {
				return llm.Failure(jsonError(ev.Data, err))
			}
		}
		if isSet(ch.Error) {
			return llm.Failure(llm.StreamErrorMessage(ch.Error))
		}
		st.chunk(b, m, &ch, &cost, &haveCost, &hasFinish)
		return nil
	})
	if err != nil {
		return fail(err.Error())
	}
	for i := 0; i < b.Len(); i++ {
		switch blk := b.Block(i); blk.Type {
		case llm.TypeText:
			b.EndText(i)
		case llm.TypeThinking:
			if i == st.thinking {
				st.applyDetails(b)
			}
			b.EndText(i)
		case llm.TypeToolCall:
			pb := st.partial[i]
			blk.Arguments = llm.ParseStreamingJSON(pb.Raw())
			b.SetBlock(i, blk)
			b.EndToolCall(i)
		}
	}
	if ctx.Err() != nil {
		return fail(llm.StreamAborted)
	}
	if !hasFinish && !compat.SupportsFinishReason {
		msg.StopReason = llm.StopStop
		if len(msg.ToolCalls()) > 0 {
			msg.StopReason = llm.StopToolUse
		}
	}
	if msg.StopReason == llm.StopError {
		em := msg.ErrorMessage
		if em == "" {
			em = "Provider returned an error stop reason"
		}
		return fail(em)
	}
	if (compat.SupportsFinishReason && !hasFinish) || msg.StopReason == "pending" {
		return fail("Stream ended without finish_reason")
	}
	applyReported()
	return b.Done()
}

// chunk applies one streamed chunk to the message. The chunk's strings may be views of the
// stream reader's buffer: what the message, the state or an event keeps is copied.
func (st *state) chunk(b *llm.Builder, m *llm.Model, ch *chunk, cost *float64, haveCost, hasFinish *bool) {
	msg := b.Msg()
	if msg.ResponseID == "" {
		msg.ResponseID = strings.Clone(ch.ID)
	}
	if ch.Model != "" && ch.Model != m.ID && msg.ResponseModel == "" {
		msg.ResponseModel = strings.Clone(ch.Model)
	}
	if isSet(ch.Usage) {
		msg.Usage = ParseUsage(ch.Usage, m)
		if c, ok := reportedCost(ch.Usage); ok {
			*cost, *haveCost = c, true
		}
	}
	for _, chc := range ch.Choices {
		if isSet(chc.Usage) {
			if c, ok := reportedCost(chc.Usage); ok {
				*cost, *haveCost = c, true
			}
		}
	}
	if len(ch.Choices) == 0 {
		return
	}
	choice := ch.Choices[0]
	if !isSet(ch.Usage) && isSet(choice.Usage) {
		msg.Usage = ParseUsage(choice.Usage, m)
	}
	if choice.FinishReason != nil && *choice.FinishReason != "" {
		msg.RawStopReason = strings.Clone(*choice.FinishReason)
		stop, em := MapFinishReason(*choice.FinishReason)
		msg.StopReason = stop
		if em != "" {
			msg.ErrorMessage = em
		}
		*hasFinish = true
	}
	d := choice.Delta
	if d == nil {
		return
	}
	if d.Content != nil && *d.Content != "" {
		if st.text < 0 {
			st.text = b.Add(llm.Content{Type: llm.TypeText})
			b.At(llm.EventTextStart, st.text)
		}
		b.Delta(llm.EventTextDelta, st.text, b.Append(st.text, *d.Content))
	}
	field, text := "", ""
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"reasoning_content", d.ReasoningContent}, {"reasoning", d.Reasoning}, {"reasoning_text", d.ReasoningText}} {
		if len(f.raw) == 0 {
			continue // no string to decode into (it was three allocations a chunk)
		}
		var s string
		if json.Unmarshal(f.raw, &s) == nil && s != "" {
			field, text = f.name, s
			break
		}
	}
	if field != "" {
		sig := field
		if m.Provider == "opencode-go" && field == "reasoning" {
			sig = "reasoning_content"
		}
		st.ensureThinking(b, sig)
		b.Append(st.thinking, text)
		b.Delta(llm.EventThinkingDelta, st.thinking, text)
	}
	for _, tc := range d.ToolCalls {
		tc.ID = strings.Clone(tc.ID)
		if f := tc.Function; f != nil { // the chunk's own: each chunk is decoded afresh
			if f.Name != nil {
				*f.Name = strings.Clone(*f.Name)
			}
			f.Arguments = strings.Clone(f.Arguments)
		}
		i := st.ensureToolCall(b, tc)
		blk := b.Block(i)
		if blk.ID == "" && tc.ID != "" {
			blk.ID = tc.ID
			st.byID[tc.ID] = i
		}
		if blk.Name == "" && tc.Function != nil && tc.Function.Name != nil && *tc.Function.Name != "" {
			blk.Name = *tc.Function.Name
		}
		dl := ""
		if tc.Function != nil && tc.Function.Arguments != "" {
			dl = tc.Function.Arguments
			st.partial[i].Feed(dl)
			blk.Arguments = st.partial[i].Snapshot()
		}
		b.SetBlock(i, blk)
		b.Delta(llm.EventToolCallDelta, i, dl)
	}
	if len(d.ReasoningDetails) > 0 && d.ReasoningDetails[0] == '[' {
		st.addDetails(b, d.ReasoningDetails)
	}
}

func (st *state) ensureThinking(b *llm.Builder, sig string) {
	if st.thinking < 0 {
		st.thinking = b.Add(llm.Content{Type: llm.TypeThinking, ThinkingSignature: sig})
		b.At(llm.EventThinkingStart, st.thinking)
	}
}

func (st *state) ensureToolCall(b *llm.Builder, tc toolDelta) int {
	i, ok := -1, false
	if tc.Index != nil {
		i, ok = st.byIndex[*tc.Index]
	}
	if !ok && tc.ID != "" {
		i, ok = st.byID[tc.ID]
		// A chunk with a new stream index is a new call even when a hostile or broken server
		// reuses an earlier call's id (pi would merge the two calls' arguments).
		if ok && tc.Index != nil {
			if prev, has := st.indexOf[i]; has && prev != *tc.Index {
				ok = false
			}
		}
	}
	if !ok {
		name := ""
		if tc.Function != nil && tc.Function.Name != nil {
			name = *tc.Function.Name
		}
		i = b.Add(llm.Content{Type: llm.TypeToolCall, ID: tc.ID, Name: name, Arguments: json.RawMessage("{}")})
		st.partial[i] = &llm.PartialJSON{}
		b.At(llm.EventToolCallStart, i)
	}
	if tc.Index != nil {
		st.byIndex[*tc.Index] = i
		if _, has := st.indexOf[i]; !has {
			st.indexOf[i] = *tc.Index
		}
	}
	if tc.ID != "" {
		st.byID[tc.ID] = i
	}
	return i
}

// addDetails merges streamed OpenRouter reasoning_details: consecutive text or summary
// pieces join into one entry; encrypted entries stay whole.
func (st *state) addDetails(b *llm.Builder, raw json.RawMessage) {
	v, err := llm.DecodeOrdered(raw)
	arr, _ := v.([]any)
	if err != nil {
		return
	}
	for _, e := range arr {
		d, ok := e.(llm.Obj)
		if !ok || !validDetail(d) {
			continue
		}
		st.ensureThinking(b, "")
		st.hasDetails = true
		typ, _ := d.Get("type")
		if n := len(st.details); n > 0 {
			last := st.details[n-1]
			lt, _ := last.Get("type")
			if typ == lt && (typ == "reasoning.text" || typ == "reasoning.summary") {
				k := "text"
				if typ == "reasoning.summary" {
					k = "summary"
				}
				a, _ := last.Get(k)
				x, _ := d.Get(k)
				last = last.Set(k, a.(string)+x.(string))
				if typ == "reasoning.text" {
					if s, _ := last.Get("signature"); s == nil || s == "" {
						if ns, ok := d.Get("signature"); ok && ns != nil && ns != "" {
							last = last.Set("signature", ns)
						}
					}
				}
				for _, f := range []string{"id", "format", "index"} {
					if cur, ok := last.Get(f); !ok || cur == nil || (f == "format" && cur == "") {
						if nv, ok := d.Get(f); ok && nv != nil {
							last = last.Set(f, nv)
						}
					}
				}
				st.details[n-1] = last
				continue
			}
		}
		st.details = append(st.details, append(llm.Obj(nil), d...))
	}
}

func validDetail(d llm.Obj) bool {
	typ, _ := d.Get("type")
	field := map[any]string{"reasoning.summary": "summary", "reasoning.encrypted": "data", "reasoning.text": "text"}[typ]
	if field == "" {
		return false
	}
	v, _ := d.Get(field)
	_, ok := v.(string)
	return ok
}

func (st *state) applyDetails(b *llm.Builder) {
	if !st.hasDetails || st.thinking < 0 {
		return
	}
	blk := b.Block(st.thinking)
	ds := make([]any, len(st.details))
	for i, d := range st.details {
		ds[i] = d
	}
	blk.ThinkingSignature = string(llm.AppendJSON(nil, ds))
	b.SetBlock(st.thinking, blk)
}

// jsonError approximates the SyntaxError text node's JSON.parse gives for a chunk that is not
// JSON.
func jsonError(data string, err error) string {
	short := data
	if len(short) > 32 {
		short = short[:32] + "..."
	}
	return "Unexpected token in JSON: \"" + short + "\" is not valid JSON (" + err.Error() + ")"
}

func init() { llm.Register(CompletionsAPI, Completions{}) }

// sessionHeaders adds pi's session-affinity headers for the compat's format: OpenRouter's
// x-session-id; otherwise x-client-request-id, with session_id first for "openai", and (Chat
// Completions only) x-session-affinity.
func sessionHeaders(hs []llm.Header, format, id string, affinity bool) []llm.Header {
	if format == "openrouter" {
		return llm.SetHeader(hs, "x-session-id", id)
	}
	if format == "openai" {
		hs = llm.SetHeader(hs, "session_id", id)
	}
	hs = llm.SetHeader(hs, "x-client-request-id", id)
	if affinity {
		hs = llm.SetHeader(hs, "x-session-affinity", id)
	}
	return hs
}

package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

func (t *Turn) blocks() []Block {
	if t.Blocks != nil {
		return t.Blocks
	}
	var bs []Block
	if t.Thinking != "" {
		bs = append(bs, Block{Kind: "thinking", Text: t.Thinking})
	}
	if t.Text != "" {
		bs = append(bs, Block{Kind: "text", Text: t.Text})
	}
	for _, tc := range t.ToolCalls {
		bs = append(bs, Block{Kind: "tool", ToolCall: tc})
	}
	return bs
}

func (t *Turn) stop() string {
	if t.StopReason != "" {
		return t.StopReason
	}
	for _, b := range t.blocks() {
		if b.Kind == "tool" {
			return "toolUse"
		}
	}
	return "stop"
}

func toolID(api string, i int, tc ToolCall, turnID string) string {
	if tc.ID != "" {
		return tc.ID
	}
	switch api {
	case AnthropicMessages:
		return fmt.Sprintf("toolu_%s_%d", turnID, i)
	}
	return fmt.Sprintf("call_%s_%d", turnID, i)
}

// Pieces splits s the way models stream: at word starts (a space begins a new piece). Args
// JSON is cut every few bytes instead. Pieces never split a UTF-8 sequence.
func Pieces(s string) []string {
	var out []string
	start := 0
	for i := 1; i < len(s); i++ {
		if s[i] == ' ' && s[i-1] != ' ' {
			out = append(out, s[start:i])
			start = i
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func argPieces(s string) []string {
	var out []string
	for len(s) > 0 {
		n := min(7, len(s))
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func dataEvent(v any) string               { return "data: " + js(v) + "\n\n" }
func namedEvent(name string, v any) string { return "event: " + name + "\ndata: " + js(v) + "\n\n" }

type obj = map[string]any

func render(api string, t *Turn) []string {
	switch api {
	case AnthropicMessages:
		return renderAnthropic(t)
	case OpenAIResponses, CodexResponses:
		return renderResponses(t)
	case GoogleAI, GoogleVertex:
		return renderGoogle(t)
	case Bedrock:
		return renderBedrock(t)
	case Mistral:
		return renderCompletions(&Turn{Text: t.Text, Thinking: t.Thinking, ToolCalls: t.ToolCalls, Blocks: t.Blocks, StopReason: t.StopReason, Usage: t.Usage,
			ID: t.ID, Model: t.Model, ReasoningField: mistralThinking, Fault: t.Fault})
	}
	return renderCompletions(t)
}

const mistralThinking = "mistral:thinking"

func renderCompletions(t *Turn) []string {
	id := "chatcmpl-" + t.ID
	chunk := func(delta obj, finish any, extra obj) string {
		c := obj{"id": id, "object": "chat.completion.chunk", "created": 1764576000, "model": t.Model,
			"choices": []obj{{"index": 0, "delta": delta, "finish_reason": finish}}}
		for k, v := range extra {
			if k == "choiceUsage" {
				c["choices"].([]obj)[0]["usage"] = v
				continue
			}
			c[k] = v
		}
		return dataEvent(c)
	}
	field := t.ReasoningField
	if field == "" {
		field = "reasoning_content"
	}
	evs := []string{chunk(obj{"role": "assistant", "content": ""}, nil, nil)}
	tools := 0
	for _, b := range t.blocks() {
		switch b.Kind {
		case "thinking":
			for _, p := range Pieces(b.Text) {
				if field == mistralThinking {
					// Mistral streams thinking as content chunks.
					evs = append(evs, chunk(obj{"content": []obj{{"type": "thinking", "thinking": []obj{{"type": "text", "text": p}}}}}, nil, nil))
					continue
				}
				evs = append(evs, chunk(obj{field: p}, nil, nil))
			}
		case "text":
			for _, p := range Pieces(b.Text) {
				evs = append(evs, chunk(obj{"content": p}, nil, nil))
			}
		case "tool":
			idx := tools
			tools++
			evs = append(evs, chunk(obj{"tool_calls": []obj{{"index": idx, "id": toolID(OpenAICompletions, idx, b.ToolCall, t.ID), "type": "function",
				"function": obj{"name": b.Name, "arguments": ""}}}}, nil, nil))
			for _, p := range argPieces(b.Args) {
				evs = append(evs, chunk(obj{"tool_calls": []obj{{"index": idx, "function": obj{"arguments": p}}}}, nil, nil))
			}
		}
	}
	finish := map[string]string{"stop": "stop", "length": "length", "toolUse": "tool_calls"}[t.stop()]
	if finish == "" {
		finish = t.stop()
	}
	u := t.Usage
	usage := obj{"prompt_tokens": u.Input + u.CacheRead + u.CacheWrite, "completion_tokens": u.Output,
		"total_tokens":              u.Input + u.CacheRead + u.CacheWrite + u.Output,
		"prompt_tokens_details":     obj{"cached_tokens": u.CacheRead},
		"completion_tokens_details": obj{"reasoning_tokens": u.Reasoning}}
	if t.Fault == StreamError {
		evs = append(evs, dataEvent(obj{"error": obj{"message": "The server had an error while processing your request. Sorry about that!", "type": "server_error"}}))
		return evs
	}
	if t.UsageInChoice {
		evs = append(evs, chunk(obj{}, finish, obj{"choiceUsage": usage}))
	} else {
		evs = append(evs, chunk(obj{}, finish, nil))
		evs = append(evs, dataEvent(obj{"id": id, "object": "chat.completion.chunk", "created": 1764576000, "model": t.Model, "choices": []obj{}, "usage": usage}))
	}
	return append(evs, "data: [DONE]\n\n")
}

func renderAnthropic(t *Turn) []string {
	u := t.Usage
	evs := []string{namedEvent("message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_" + t.ID, "type": "message", "role": "assistant", "model": t.Model, "content": []obj{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": obj{"input_tokens": u.Input, "cache_creation_input_tokens": u.CacheWrite, "cache_read_input_tokens": u.CacheRead, "output_tokens": 1}}})}
	tools := 0
	for i, b := range t.blocks() {
		start := func(cb obj) {
			evs = append(evs, namedEvent("content_block_start", obj{"type": "content_block_start", "index": i, "content_block": cb}))
		}
		delta := func(d obj) {
			evs = append(evs, namedEvent("content_block_delta", obj{"type": "content_block_delta", "index": i, "delta": d}))
		}
		switch b.Kind {
		case "thinking":
			if b.Redacted {
				start(obj{"type": "redacted_thinking", "data": b.Signature})
				break
			}
			start(obj{"type": "thinking", "thinking": "", "signature": ""})
			for _, p := range Pieces(b.Text) {
				delta(obj{"type": "thinking_delta", "thinking": p})
			}
			sig := b.Signature
			if sig == "" {
				sig = "sig-" + t.ID
			}
			delta(obj{"type": "signature_delta", "signature": sig})
		case "text":
			start(obj{"type": "text", "text": ""})
			for _, p := range Pieces(b.Text) {
				delta(obj{"type": "text_delta", "text": p})
			}
		case "tool":
			start(obj{"type": "tool_use", "id": toolID(AnthropicMessages, tools, b.ToolCall, t.ID), "name": b.Name, "input": obj{}})
			tools++
			delta(obj{"type": "input_json_delta", "partial_json": ""})
			for _, p := range argPieces(b.Args) {
				delta(obj{"type": "input_json_delta", "partial_json": p})
			}
		}
		evs = append(evs, namedEvent("content_block_stop", obj{"type": "content_block_stop", "index": i}))
	}
	if t.Fault == StreamError {
		return append(evs, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
	}
	stop := map[string]string{"stop": "end_turn", "length": "max_tokens", "toolUse": "tool_use"}[t.stop()]
	if stop == "" {
		stop = t.stop()
	}
	evs = append(evs, namedEvent("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": stop, "stop_sequence": nil},
		"usage": obj{"input_tokens": u.Input, "cache_creation_input_tokens": u.CacheWrite, "cache_read_input_tokens": u.CacheRead, "output_tokens": u.Output}}))
	return append(evs, namedEvent("message_stop", obj{"type": "message_stop"}))
}

func renderResponses(t *Turn) []string {
	seq := 0
	var evs []string
	ev := func(typ string, v obj) {
		v["type"] = typ
		v["sequence_number"] = seq
		seq++
		evs = append(evs, namedEvent(typ, v))
	}
	respID := "resp_" + t.ID
	resp := func(status string, output []obj) obj {
		r := obj{"id": respID, "object": "response", "created_at": 1764576000, "status": status, "model": t.Model, "output": output}
		return r
	}
	ev("response.created", obj{"response": resp("in_progress", []obj{})})
	ev("response.in_progress", obj{"response": resp("in_progress", []obj{})})
	var output []obj
	tools := 0
	for i, b := range t.blocks() {
		switch b.Kind {
		case "thinking":
			id := fmt.Sprintf("rs_%s_%d", t.ID, i)
			ev("response.output_item.added", obj{"output_index": i, "item": obj{"id": id, "type": "reasoning", "summary": []obj{}}})
			ev("response.reasoning_summary_part.added", obj{"item_id": id, "output_index": i, "summary_index": 0, "part": obj{"type": "summary_text", "text": ""}})
			for _, p := range Pieces(b.Text) {
				ev("response.reasoning_summary_text.delta", obj{"item_id": id, "output_index": i, "summary_index": 0, "delta": p})
			}
			ev("response.reasoning_summary_text.done", obj{"item_id": id, "output_index": i, "summary_index": 0, "text": b.Text})
			ev("response.reasoning_summary_part.done", obj{"item_id": id, "output_index": i, "summary_index": 0, "part": obj{"type": "summary_text", "text": b.Text}})
			item := obj{"id": id, "type": "reasoning", "summary": []obj{{"type": "summary_text", "text": b.Text}}}
			if b.Signature != "" {
				item["encrypted_content"] = b.Signature
			}
			ev("response.output_item.done", obj{"output_index": i, "item": item})
			output = append(output, item)
		case "text":
			id := fmt.Sprintf("msg_%s_%d", t.ID, i)
			ev("response.output_item.added", obj{"output_index": i, "item": obj{"id": id, "type": "message", "status": "in_progress", "content": []obj{}, "role": "assistant"}})
			ev("response.content_part.added", obj{"item_id": id, "output_index": i, "content_index": 0, "part": obj{"type": "output_text", "annotations": []obj{}, "text": ""}})
			for _, p := range Pieces(b.Text) {
				ev("response.output_text.delta", obj{"item_id": id, "output_index": i, "content_index": 0, "delta": p})
			}
			ev("response.output_text.done", obj{"item_id": id, "output_index": i, "content_index": 0, "text": b.Text})
			part := obj{"type": "output_text", "annotations": []obj{}, "text": b.Text}
			ev("response.content_part.done", obj{"item_id": id, "output_index": i, "content_index": 0, "part": part})
			item := obj{"id": id, "type": "message", "status": "completed", "content": []obj{part}, "role": "assistant"}
			ev("response.output_item.done", obj{"output_index": i, "item": item})
			output = append(output, item)
		case "tool":
			id := fmt.Sprintf("fc_%s_%d", t.ID, i)
			callID := toolID(OpenAIResponses, tools, b.ToolCall, t.ID)
			tools++
			ev("response.output_item.added", obj{"output_index": i, "item": obj{"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": callID, "name": b.Name}})
			for _, p := range argPieces(b.Args) {
				ev("response.function_call_arguments.delta", obj{"item_id": id, "output_index": i, "delta": p})
			}
			ev("response.function_call_arguments.done", obj{"item_id": id, "output_index": i, "arguments": b.Args})
			item := obj{"id": id, "type": "function_call", "status": "completed", "arguments": b.Args, "call_id": callID, "name": b.Name}
			ev("response.output_item.done", obj{"output_index": i, "item": item})
			output = append(output, item)
		}
	}
	if t.Fault == StreamError {
		ev("error", obj{"code": "server_error", "message": "The server had an error while processing your request.", "param": nil})
		return evs
	}
	if output == nil {
		output = []obj{}
	}
	u := t.Usage
	r := resp("completed", output)
	r["usage"] = obj{"input_tokens": u.Input + u.CacheRead + u.CacheWrite, "input_tokens_details": obj{"cached_tokens": u.CacheRead},
		"output_tokens": u.Output, "output_tokens_details": obj{"reasoning_tokens": u.Reasoning},
		"total_tokens": u.Input + u.CacheRead + u.CacheWrite + u.Output}
	switch st := t.stop(); st {
	case "stop", "toolUse":
		ev("response.completed", obj{"response": r})
	default:
		reason := st
		if st == "length" {
			reason = "max_output_tokens"
		}
		r["status"] = "incomplete"
		r["incomplete_details"] = obj{"reason": reason}
		ev("response.incomplete", obj{"response": r})
	}
	return evs
}

func renderGoogle(t *Turn) []string {
	u := t.Usage
	usage := obj{"promptTokenCount": u.Input + u.CacheRead, "candidatesTokenCount": u.Output - u.Reasoning, "totalTokenCount": u.Input + u.CacheRead + u.Output,
		"thoughtsTokenCount": u.Reasoning, "cachedContentTokenCount": u.CacheRead}
	chunk := func(parts []obj, finish string, withUsage bool) string {
		cand := obj{"content": obj{"parts": parts, "role": "model"}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		c := obj{"candidates": []obj{cand}, "modelVersion": t.Model, "responseId": "resp-" + t.ID}
		if withUsage {
			c["usageMetadata"] = usage
		}
		return dataEvent(c)
	}
	var evs []string
	for _, b := range t.blocks() {
		switch b.Kind {
		case "thinking":
			for _, p := range Pieces(b.Text) {
				evs = append(evs, chunk([]obj{{"text": p, "thought": true}}, "", false))
			}
		case "text":
			for _, p := range Pieces(b.Text) {
				evs = append(evs, chunk([]obj{{"text": p}}, "", false))
			}
		case "tool":
			fc := obj{"name": b.Name, "args": json.RawMessage(b.Args)}
			if b.ID != "" {
				fc["id"] = b.ID
			}
			evs = append(evs, chunk([]obj{{"functionCall": fc}}, "", false))
		}
	}
	if t.Fault == StreamError {
		return append(evs, dataEvent(obj{"error": obj{"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}}))
	}
	finish := map[string]string{"stop": "STOP", "toolUse": "STOP", "length": "MAX_TOKENS"}[t.stop()]
	if finish == "" {
		finish = t.stop()
	}
	return append(evs, chunk([]obj{{"text": ""}}, finish, true))
}

// faultResponse renders an HTTP-level fault: status, headers and body as the provider sends
// them. code 0 means the turn streams normally.
func faultResponse(api string, t *Turn) (int, map[string]string, string) {
	jsonHdr := map[string]string{"Content-Type": "application/json"}
	anth := api == AnthropicMessages
	if api == Bedrock {
		return bedrockFault(t)
	}
	if api == GoogleAI || api == GoogleVertex {
		switch t.Fault {
		case RateLimit:
			return 429, jsonHdr, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`
		case ServerError:
			return 500, jsonHdr, `{"error":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}`
		case Overloaded:
			return 503, jsonHdr, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`
		case ContextOverflow:
			return 400, jsonHdr, `{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`
		case Unauthorized:
			return 401, jsonHdr, `{"error":{"code":401,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}`
		}
		return 0, nil, ""
	}
	switch t.Fault {
	case RateLimit:
		if anth {
			return 429, jsonHdr, `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute."}}`
		}
		return 429, jsonHdr, `{"error":{"message":"Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	case ServerError:
		if anth {
			return 500, jsonHdr, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`
		}
		return 500, jsonHdr, `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`
	case Overloaded:
		if anth {
			return 529, jsonHdr, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
		}
		return 503, jsonHdr, `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`
	case Unauthorized:
		if anth {
			return 401, jsonHdr, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`
		}
		return 401, jsonHdr, `{"error":{"message":"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	case ContextOverflow:
		switch api {
		case AnthropicMessages:
			return 400, jsonHdr, `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 213462 tokens > 200000 maximum"}}`
		case OpenAIResponses, CodexResponses:
			return 400, jsonHdr, `{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}`
		}
		return 400, jsonHdr, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130011 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`
	}
	return 0, nil, ""
}

// Render returns the SSE body the server streams for turn t under api (without faults,
// chunking or noise), for benchmarks and direct parser tests.
func Render(api string, t Turn) string {
	if t.ID == "" {
		t.ID = "1"
	}
	if t.Model == "" {
		t.Model = "m"
	}
	return strings.Join(render(api, &t), "")
}

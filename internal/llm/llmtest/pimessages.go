package llmtest

import (
	"fmt"
	"strings"
)

// PiMessages is pi's own message protocol (the Radius gateway's): POST {baseUrl}/messages,
// answered with pi's assistant-message events as server-sent events. llmtest serves it under
// /pi (BaseURL gives URL+"/pi"), apart from Anthropic's /v1/messages.
const PiMessages = "pi-messages"

func piMessagesPath(path string) bool {
	return strings.HasPrefix(path, "/pi/") && strings.HasSuffix(path, "/messages")
}

func renderPiMessages(t *Turn) []string {
	evs := []string{dataEvent(obj{"type": "start"})}
	tools := 0
	for i, b := range t.blocks() {
		switch b.Kind {
		case "thinking":
			evs = append(evs, dataEvent(obj{"type": "thinking_start", "contentIndex": i}))
			for _, p := range Pieces(b.Text) {
				evs = append(evs, dataEvent(obj{"type": "thinking_delta", "contentIndex": i, "delta": p}))
			}
			end := obj{"type": "thinking_end", "contentIndex": i, "content": b.Text}
			if b.Signature != "" {
				end["contentSignature"] = b.Signature
			}
			evs = append(evs, dataEvent(end))
		case "text":
			evs = append(evs, dataEvent(obj{"type": "text_start", "contentIndex": i}))
			for _, p := range Pieces(b.Text) {
				evs = append(evs, dataEvent(obj{"type": "text_delta", "contentIndex": i, "delta": p}))
			}
			evs = append(evs, dataEvent(obj{"type": "text_end", "contentIndex": i, "content": b.Text}))
		case "tool":
			id := toolID(OpenAICompletions, tools, b.ToolCall, t.ID)
			tools++
			evs = append(evs, dataEvent(obj{"type": "toolcall_start", "contentIndex": i, "id": id, "toolName": b.Name}))
			for _, p := range argPieces(b.Args) {
				evs = append(evs, dataEvent(obj{"type": "toolcall_delta", "contentIndex": i, "delta": p}))
			}
			evs = append(evs, dataEvent(obj{"type": "toolcall_end", "contentIndex": i}))
		}
	}
	u := t.Usage
	// The gateway prices the request itself (at $3/$15/$0.30/$3.75 per million tokens here).
	ci, co, cr, cw := float64(u.Input)*3/1e6, float64(u.Output)*15/1e6, float64(u.CacheRead)*0.3/1e6, float64(u.CacheWrite)*3.75/1e6
	usage := obj{"input": u.Input, "output": u.Output, "cacheRead": u.CacheRead, "cacheWrite": u.CacheWrite,
		"totalTokens": u.Input + u.Output + u.CacheRead + u.CacheWrite, "cost": obj{"input": ci, "output": co, "cacheRead": cr, "cacheWrite": cw, "total": ci + co + cr + cw}}
	if t.Fault == StreamError {
		return append(evs, dataEvent(obj{"type": "error", "reason": "error", "errorMessage": "upstream provider overloaded", "usage": usage, "responseId": "pm-" + t.ID}))
	}
	return append(evs, dataEvent(obj{"type": "done", "reason": t.stop(), "usage": usage, "responseId": "pm-" + t.ID}))
}

func piMessagesFault(t *Turn) (int, map[string]string, string) {
	hdr := map[string]string{"Content-Type": "application/json"}
	e := func(msg, code string) string { return fmt.Sprintf(`{"error":{"message":%q,"code":%q}}`, msg, code) }
	switch t.Fault {
	case RateLimit:
		return 429, hdr, e("Rate limit exceeded", "rate_limited")
	case ServerError:
		return 500, hdr, e("Internal error", "internal")
	case Overloaded:
		return 503, hdr, e("Upstream unavailable", "unavailable")
	case ContextOverflow:
		return 400, hdr, e("prompt is too long: 213462 tokens > 200000 maximum", "context_length_exceeded")
	case Unauthorized:
		return 401, hdr, e("Invalid API key", "unauthorized")
	}
	return 0, nil, ""
}

package agent

import (
	"regexp"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/llm"
)

// pi 0.84.3's classification of provider errors (pi-ai utils/retry.js and utils/overflow.js).
// The lists are pi's, in pi's order. They are compiled on first use: every pigo process links
// the loop, few of them classify an error.
var errorPatterns = sync.OnceValue(func() (p struct {
	nonRetryable, retryable *regexp.Regexp
	overflow, nonOverflow   []*regexp.Regexp
}) {
	p.nonRetryable = regexp.MustCompile("(?i)" + strings.Join([]string{
		"GoUsageLimitError", "FreeUsageLimitError", "Monthly usage limit reached", "available balance",
		"insufficient_quota", "out of budget", "quota exceeded", "billing",
	}, "|"))
	p.retryable = regexp.MustCompile("(?i)" + strings.Join([]string{
		"overloaded", "rate.?limit", "too many requests", "429", "500", "502", "503", "504", "524",
		"service.?unavailable", "server.?error", "internal.?error",
		"provider.?returned.?error", "exceeded request buffer limit while retrying upstream",
		"network.?error", "connection.?error", "connection.?refused", "connection.?lost",
		"other side closed", "fetch failed", "getaddrinfo", "ENOTFOUND", "EAI_AGAIN",
		"upstream.?connect", "reset before headers", "socket hang up", "socket connection was closed",
		"timed? out", "timeout", "terminated",
		"websocket.?closed", "websocket.?error",
		"ended without", "stream ended before message_stop", "stream ended before a terminal response event",
		"http2 request did not get a response",
		"retry delay",
		"you can retry your request", "try your request again", "please retry your request",
		"ResourceExhausted",
	}, "|"))
	p.overflow = compileAll(
		`prompt is too long`,
		`request_too_large`,
		`input is too long for requested model`,
		`exceeds the context window`,
		`exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))`,
		`input token count.*exceeds the maximum`,
		`maximum prompt length is \d+`,
		`reduce the length of the messages`,
		`maximum context length is \d+ tokens`,
		`exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?`,
		`input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)`,
		`exceeds the limit of \d+`,
		`exceeds the available context size`,
		`greater than the context length`,
		`context window exceeds limit`,
		`exceeded model token limit`,
		`too large for model with \d+ maximum context length`,
		`prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?`,
		`model_context_window_exceeded`,
		`prompt too long; exceeded (?:max )?context length`,
		`range of input length should be`,
		`context[_ ]length[_ ]exceeded`,
		`too many tokens`,
		`token limit exceeded`,
		`^4(?:00|13)\s*(?:status code)?\s*\(no body\)`,
	)
	p.nonOverflow = compileAll(
		`^(Throttling error|Service unavailable):`,
		`rate limit`,
		`too many requests`,
	)
	return p
})

func compileAll(ps ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(ps))
	for i, p := range ps {
		out[i] = regexp.MustCompile("(?i)" + p)
	}
	return out
}

func anyMatch(rs []*regexp.Regexp, s string) bool {
	for _, r := range rs {
		if r.MatchString(s) {
			return true
		}
	}
	return false
}

// IsRetryableError is pi's isRetryableAssistantError: an error stop whose message names a
// transient provider or transport failure, and not a quota or billing limit.
func IsRetryableError(m *llm.Message) bool {
	if m.StopReason != llm.StopError || m.ErrorMessage == "" {
		return false
	}
	if errorPatterns().nonRetryable.MatchString(m.ErrorMessage) {
		return false
	}
	return errorPatterns().retryable.MatchString(m.ErrorMessage)
}

// IsContextOverflow is pi's isContextOverflow: an overflow error text, a silent overflow
// (usage above the window), or a length stop with no output and a full window.
func IsContextOverflow(m *llm.Message, contextWindow int) bool {
	if m.StopReason == llm.StopError && m.ErrorMessage != "" {
		if !anyMatch(errorPatterns().nonOverflow, m.ErrorMessage) && anyMatch(errorPatterns().overflow, m.ErrorMessage) {
			return true
		}
	}
	if contextWindow > 0 && m.Usage != nil {
		in := m.Usage.Input + m.Usage.CacheRead
		if m.StopReason == llm.StopStop && in > contextWindow {
			return true
		}
		if m.StopReason == llm.StopLength && m.Usage.Output == 0 && float64(in) >= float64(contextWindow)*0.99 {
			return true
		}
	}
	return false
}

// IsRecoverableLength is pi's isRecoverableLength: a length stop below the model's own
// output limit.
func IsRecoverableLength(m *llm.Message, desiredMaxOutput int) bool {
	out := 0
	if m.Usage != nil {
		out = m.Usage.Output
	}
	return m.StopReason == llm.StopLength && desiredMaxOutput > 0 && out < desiredMaxOutput
}

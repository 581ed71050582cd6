package llmtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm/bedrock"
	"github.com/pigo-agent/pigo/internal/llm/eventstream"
)

// Bedrock is Amazon Bedrock's ConverseStream API (POST {baseUrl}/model/{id}/converse-stream),
// answered in AWS's binary event-stream framing.
const Bedrock = "bedrock-converse-stream"

func bedrockPath(path string) bool {
	return strings.Contains(path, "/model/") && strings.HasSuffix(path, "/converse-stream")
}

// bedrockFrame is one event-stream message: an event, or an exception when typ starts with
// "exception:".
func bedrockFrame(typ string, payload any) string {
	if name, ok := strings.CutPrefix(typ, "exception:"); ok {
		return string(eventstream.Encode([]eventstream.Header{{Name: ":exception-type", Value: name}, {Name: ":content-type", Value: "application/json"},
			{Name: ":message-type", Value: "exception"}}, []byte(js(payload))))
	}
	return string(eventstream.Encode([]eventstream.Header{{Name: ":event-type", Value: typ}, {Name: ":content-type", Value: "application/json"},
		{Name: ":message-type", Value: "event"}}, []byte(js(payload))))
}

// BedrockFrame frames one event (or "exception:<name>") for tests that build streams by hand.
func BedrockFrame(typ string, payload any) string { return bedrockFrame(typ, payload) }

func renderBedrock(t *Turn) []string {
	pad := func(o obj) obj { o["p"] = "abcdefghij"; return o }
	evs := []string{bedrockFrame("messageStart", pad(obj{"role": "assistant"}))}
	tools := 0
	for i, b := range t.blocks() {
		delta := func(d obj) {
			evs = append(evs, bedrockFrame("contentBlockDelta", pad(obj{"contentBlockIndex": i, "delta": d})))
		}
		switch b.Kind {
		case "thinking":
			if b.Redacted {
				delta(obj{"reasoningContent": obj{"redactedContent": b.Signature}})
				break
			}
			for _, p := range Pieces(b.Text) {
				delta(obj{"reasoningContent": obj{"text": p}})
			}
			sig := b.Signature
			if sig == "" {
				sig = "sig-" + t.ID
			}
			delta(obj{"reasoningContent": obj{"signature": sig}})
		case "text":
			for _, p := range Pieces(b.Text) {
				delta(obj{"text": p})
			}
		case "tool":
			id := b.ID
			if id == "" {
				id = fmt.Sprintf("tooluse_%s_%d", t.ID, tools)
			}
			tools++
			evs = append(evs, bedrockFrame("contentBlockStart", pad(obj{"contentBlockIndex": i, "start": obj{"toolUse": obj{"toolUseId": id, "name": b.Name}}})))
			for _, p := range argPieces(b.Args) {
				delta(obj{"toolUse": obj{"input": p}})
			}
		}
		evs = append(evs, bedrockFrame("contentBlockStop", pad(obj{"contentBlockIndex": i})))
	}
	if t.Fault == StreamError {
		return append(evs, bedrockFrame("exception:throttlingException", obj{"message": "Too many tokens, please wait before trying again."}))
	}
	stop := map[string]string{"stop": "end_turn", "length": "max_tokens", "toolUse": "tool_use"}[t.stop()]
	if stop == "" {
		stop = t.stop()
	}
	evs = append(evs, bedrockFrame("messageStop", pad(obj{"stopReason": stop})))
	u := t.Usage
	usage := obj{"inputTokens": u.Input, "outputTokens": u.Output, "totalTokens": u.Input + u.CacheRead + u.CacheWrite + u.Output,
		"cacheReadInputTokens": u.CacheRead, "cacheWriteInputTokens": u.CacheWrite}
	return append(evs, bedrockFrame("metadata", pad(obj{"usage": usage, "metrics": obj{"latencyMs": 321}})))
}

// bedrockFault is an HTTP-level fault as Bedrock answers it: the exception's name in
// x-amzn-errortype, its message in the JSON body.
func bedrockFault(t *Turn) (int, map[string]string, string) {
	hdr := func(name string) map[string]string {
		return map[string]string{"Content-Type": "application/json", "x-amzn-errortype": name + ":http://internal.amazon.com/coral/com.amazon.bedrock/", "x-amzn-requestid": "7d1c9e4a-0000-4000-8000-000000000000"}
	}
	switch t.Fault {
	case RateLimit:
		return 429, hdr("ThrottlingException"), `{"message":"Too many requests, please wait before trying again."}`
	case ServerError:
		return 500, hdr("InternalServerException"), `{"message":"The system encountered an unexpected error during processing. Try your request again."}`
	case Overloaded:
		return 503, hdr("ServiceUnavailableException"), `{"message":"Bedrock is unable to process your request."}`
	case ContextOverflow:
		return 400, hdr("ValidationException"), `{"message":"Input is too long for requested model."}`
	case Unauthorized:
		return 401, hdr("UnrecognizedClientException"), `{"message":"The security token included in the request is invalid."}`
	}
	return 0, nil, ""
}

// BedrockRedacted is base64 bytes standing for encrypted reasoning in scripted streams.
var BedrockRedacted = base64.StdEncoding.EncodeToString([]byte("opaque reasoning bytes"))

// SigV4 checks a request's AWS Signature Version 4 against secret: it rebuilds the canonical
// request from what arrived (the headers the Authorization header names, the body's hash) and
// compares the signature. It returns the canonical request with the date's line masked (two
// runs signed at different times compare equal), the credential scope, and an error when the
// request is not signed or the signature does not match.
func (r Request) SigV4(secret string) (canonical, scope string, err error) {
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return "", "", fmt.Errorf("not signed (Authorization %q)", auth)
	}
	fields := map[string]string{}
	for _, f := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(f), "=")
		fields[k] = v
	}
	cred := strings.Split(fields["Credential"], "/")
	if len(cred) != 5 {
		return "", "", fmt.Errorf("bad credential %q", fields["Credential"])
	}
	scope = strings.Join(cred[1:], "/")
	names := strings.Split(fields["SignedHeaders"], ";")
	hs := map[string]string{}
	for _, n := range names {
		if n == "host" {
			hs[n] = r.Host
			continue
		}
		hs[n] = strings.Join(r.Header.Values(n), ",")
	}
	sum := sha256.Sum256(r.Body)
	payload := hex.EncodeToString(sum[:])
	if h := r.Header.Get("x-amz-content-sha256"); h != "" && h != payload {
		return "", "", fmt.Errorf("x-amz-content-sha256 %s is not the body's %s", h, payload)
	}
	date := r.Header.Get("x-amz-date")
	if len(date) < 8 || date[:8] != cred[1] {
		return "", "", fmt.Errorf("x-amz-date %q outside the credential's day %s", date, cred[1])
	}
	creq := bedrock.CanonicalRequest(r.Method, r.Path, r.Query, hs, names, payload)
	if got := bedrock.Signature(creq, date, cred[2], cred[3], secret); got != fields["Signature"] {
		return "", "", fmt.Errorf("signature %s, computed %s over\n%s", fields["Signature"], got, creq)
	}
	var lines []string
	for _, l := range strings.Split(creq, "\n") {
		if strings.HasPrefix(l, "x-amz-date:") {
			l = "x-amz-date:<date>"
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n"), scope, nil
}

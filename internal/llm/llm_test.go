package llm

import (
	"encoding/json"
	"testing"
)

func TestMessageRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"role":"user","content":"hi","timestamp":1}`,
		`{"role":"user","content":[{"type":"text","text":""}],"timestamp":1}`,
		`{"role":"assistant","content":[{"type":"thinking","thinking":"x","thinkingSignature":"s"},{"type":"toolCall","id":"c1","name":"ls","arguments":{"path":"."}}],"api":"openai-completions","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":2}`,
		`{"role":"toolResult","content":[{"type":"text","text":"a.txt"}],"toolCallId":"c1","toolName":"ls","details":{},"isError":false,"timestamp":3}`,
	} {
		var m Message
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != in {
			t.Errorf("round trip:\n got %s\nwant %s", out, in)
		}
	}
}

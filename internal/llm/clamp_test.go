package llm

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// clampEstimated is ClampMaxTokens as pi writes it: the exact estimate, then the room.
func clampEstimated(m *Model, c *Context, maxTokens int) int {
	if m.ContextWindow <= 0 {
		return max(1, maxTokens)
	}
	input := EstimateRequestTokens(c)
	margin := max(4096, int(math.Ceil(float64(input)*0.15)))
	room := m.ContextWindow - input - margin
	if room < 32768 {
		room = min(32768, m.ContextWindow-input-4096)
	}
	return min(maxTokens, max(1, room))
}

// randomTools are tools with names, descriptions and schemas of every kind the length
// counts: escapes, astral, invalid and control bytes, numbers JSON.stringify writes longer
// (1e20's 21 digits), broken and empty schemas.
func randomTools(r *rand.Rand) []Tool {
	pieces := []string{"a", "read", "é", "😀", "\u2028", "\n", "\"", "\\", "\x00", "\x01", "\xff", "<&>", "abcdefghijklmnop", "\U0010FFFF", "\xed\xa0\x80"}
	str := func() string {
		var sb strings.Builder
		for range r.IntN(12) {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		return sb.String()
	}
	schemas := append([]string{"", "{", `1e20`, `[1e20,-1E20,9e20,1e9,1e19]`, `{"a":1e20,"b":[1e+20]}`, `{"a":1,"a":2}`}, stringifySeeds...)
	ts := make([]Tool, r.IntN(6))
	for i := range ts {
		ts[i] = Tool{Name: str(), Description: str()}
		if s := schemas[r.IntN(len(schemas))]; s != "" || r.IntN(2) == 0 {
			ts[i].Parameters = json.RawMessage(s)
		}
	}
	return ts
}

// TestToolsLenBound: the bound is never below the length, counted or built, with the
// stringified schemas counted in place and not.
func TestToolsLenBound(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	// The longest rewrites, at length: control bytes (six characters each) and 1e20 (21).
	worst := [][]Tool{{{Name: strings.Repeat("\x01", 300)}}, {{Description: strings.Repeat("\x1f", 500)}},
		{{Parameters: json.RawMessage("[" + strings.Repeat("1e20,", 300) + "1e20]")}}}
	for _, off := range []bool{false, true} {
		stringifiedOff = off
		for i := range 3000 + len(worst) {
			ts := randomTools(r)
			if i < len(worst) {
				ts = worst[i]
			}
			if b, n, built := toolsLenBound(ts), toolsJSLen(ts), toolsJSLenBuilt(ts); b < n || b < built {
				t.Fatalf("stringifiedOff=%v %+v: bound %d below the length %d (built %d)", off, ts, b, n, built)
			}
		}
	}
	stringifiedOff = false
}

// TestClampMaxTokensAsEstimated: the clamp is pi's, computed from the exact estimate, for
// random contexts (with and without a usage), windows from none to large and caps from
// below one to above any window.
func TestClampMaxTokensAsEstimated(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	big := strings.Repeat("x", 50000)
	for i := range 4000 {
		c := &Context{Tools: randomTools(r)}
		if r.IntN(3) > 0 {
			c.SystemPrompt = big[:r.IntN(len(big))]
		}
		for j := range r.IntN(4) {
			msg := Message{Role: RoleUser, Content: []Content{{Type: TypeText, Text: big[:r.IntN(len(big))]}}, Timestamp: int64(j)}
			if r.IntN(3) == 0 {
				msg.Role = RoleAssistant
				msg.Usage = &Usage{Input: r.IntN(200000), Output: r.IntN(1000)}
			}
			c.Messages = append(c.Messages, msg)
		}
		m := &Model{ContextWindow: []int{0, -1, 1000, 8192, 32768, 40000, 65536, 128000, 200000, 1000000}[r.IntN(10)]}
		for _, mt := range []int{-3, 0, 1, 4096, 16384, 32000, 64000, 128000, 10000000, r.IntN(300000)} {
			if got, want := ClampMaxTokens(m, c, mt), clampEstimated(m, c, mt); got != want {
				t.Fatalf("case %d: window %d, max %d: %d, estimated %d", i, m.ContextWindow, mt, got, want)
			}
		}
	}
}

// TestClampMaxTokensNotCounted: with room to spare, a request's clamp does not count its tools
// (the memo stays without them); with little room it does.
func TestClampMaxTokensNotCounted(t *testing.T) {
	tools := []Tool{{Name: fmt.Sprint("clamp-", rand.Int64()), Description: "d", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}}
	c := &Context{SystemPrompt: "s", Tools: tools, Messages: []Message{{Role: RoleUser, Content: []Content{{Type: TypeText, Text: "hi"}}}}}
	if got := ClampMaxTokens(&Model{ContextWindow: 128000}, c, 16384); got != 16384 || ToolsLenKnown(tools) {
		t.Errorf("128000 window: %d, counted %v; want 16384, not counted", got, ToolsLenKnown(tools))
	}
	if got, want := ClampMaxTokens(&Model{ContextWindow: 20000}, c, 16384), clampEstimated(&Model{ContextWindow: 20000}, c, 16384); got != want || !ToolsLenKnown(tools) {
		t.Errorf("20000 window: %d (want %d), counted %v", got, want, ToolsLenKnown(tools))
	}
}

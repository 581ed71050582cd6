package chat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/termui"
)

// frameAnswer has what the renderer must lay out at any width: a table with CJK and an emoji
// family, fenced code, a long paragraph, a quote and a nested list.
const frameAnswer = "# Report 📋\n\nThe **build** passed; `go vet` is *clean* and ~~nothing~~ everything is fine. " +
	"A long sentence follows so that narrow terminals must wrap it at word boundaries without cutting words.\n\n" +
	"| 名前 | Status | Note |\n|------|:------:|------|\n| 中文 | ✅ ok | 👨‍👩‍👧 family emoji |\n| beta | ❌ failed | a longer note that wraps in narrow tables |\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"héllo, 世界\") // comment\n}\n```\n\n> Quoted **advice**\n> on two lines.\n\n1. first\n2. second\n   - nested 👍🏽\n"

// TestFrames draws the same conversation at 40, 80 and 200 columns: golden frames, no line
// wider than the terminal, a frame exactly as tall as it.
func TestFrames(t *testing.T) {
	for _, sz := range [][2]int{{40, 30}, {80, 40}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := newTestModel(Options{Session: &fakeSession{state: app.State{Model: "local/m", ContextWindow: 200000}}}, sz[0], sz[1])
			m.Update(ev(agent.Event{Type: agent.EventMessageStart, Message: &llm.Message{Role: llm.RoleUser,
				Content: []llm.Content{llm.TextBlock("make a report 中文 👨‍👩‍👧")}}}))
			a := assistant(frameAnswer, "", &llm.Usage{Input: 2000, Output: 300})
			m.Update(ev(agent.Event{Type: agent.EventMessageStart, Message: a}))
			m.Update(ev(agent.Event{Type: agent.EventMessageEnd, Message: a}))
			// The whole transcript (fullscreen's top would hide the start).
			var b strings.Builder
			for _, l := range m.transcript(sz[0]) {
				if w := termui.Width(l); w > sz[0] {
					t.Fatalf("transcript line %d wide, more than %d: %q", w, sz[0], l)
				}
				b.WriteString(strings.TrimRight(ansi.Strip(l), " ") + "\n")
			}
			golden(t, fmt.Sprintf("frame-%dx%d", sz[0], sz[1]), b.String())
			v := m.View()
			lines := strings.Split(v, "\n")
			if len(lines) != sz[1] {
				t.Fatalf("the frame has %d lines, want %d", len(lines), sz[1])
			}
			for _, l := range lines {
				if w := termui.Width(l); w > sz[0] {
					t.Fatalf("a frame line is %d wide (> %d): %q", w, sz[0], l)
				}
			}
		})
	}
}

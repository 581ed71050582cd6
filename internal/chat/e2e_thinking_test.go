package chat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Ctrl+T hides or shows the thinking blocks and saves hideThinkingBlock to the global
// settings.json, as pi does, so the next start keeps the choice.
func TestE2EThinkingToggleSaved(t *testing.T) {
	tm := newTerm(t, 120, 30, textTurn("ok"))
	tm.ready()
	settings := filepath.Join(tm.home, ".pi", "agent", "settings.json")
	waitSetting := func(want string) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			b, _ := os.ReadFile(settings)
			if strings.Contains(strings.Join(strings.Fields(string(b)), ""), `"hideThinkingBlock":`+want) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("settings.json never had hideThinkingBlock %s:\n%s", want, b)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	tm.keys("C-t")
	tm.waitFor("Thinking blocks: hidden")
	waitSetting("true")
	tm.keys("C-t")
	tm.waitFor("Thinking blocks: visible")
	waitSetting("false")
	b, _ := os.ReadFile(settings)
	if !strings.Contains(string(b), `"defaultModel"`) {
		t.Errorf("the other settings were lost:\n%s", b)
	}
}

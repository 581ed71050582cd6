package session

import (
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

// TestDirectEntriesMatchStringify: the header and the model and thinking-level changes are
// written directly; they must be the bytes the reflection encoding gave, as JSON.stringify
// writes them (JSONStringify of the old bytes: the same except an invalid UTF-8 byte, which
// encoding/json wrote as the escape \ufffd and JSON.stringify as the character).
func TestDirectEntriesMatchStringify(t *testing.T) {
	tricky := []string{"", "p", "a<b>&c", "line\nsep\u2028\u2029", `q"\`, "\x01\x7f", "é😀", "bad\xff"}
	check := func(what string, got []byte, err error, old any) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		ob, err := marshal(old)
		if err != nil {
			t.Fatalf("%s: old: %v", what, err)
		}
		want, err := llm.JSONStringify(ob)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s:\n got  %s\n want %s", what, got, want)
		}
	}
	for _, s := range tricky {
		for _, parent := range []string{"", "abcd1234"} {
			e := &Entry{Type: TypeModelChange, ID: "0123abcd", ParentID: parent, Timestamp: "2026-12-03T05:00:00.000Z" + s,
				EntryData: &EntryData{Provider: s, ModelID: s + "m"}}
			got, err := e.MarshalJSON()
			check("model_change", got, err, struct {
				Type      string   `json:"type"`
				ID        string   `json:"id"`
				ParentID  nullable `json:"parentId"`
				Timestamp string   `json:"timestamp"`
				Provider  string   `json:"provider"`
				ModelID   string   `json:"modelId"`
			}{e.Type, e.ID, nullable(parent), e.Timestamp, s, s + "m"})
			e = &Entry{Type: TypeThinkingLevelChange, ID: s, ParentID: parent, Timestamp: "t", EntryData: &EntryData{ThinkingLevel: s}}
			got, err = e.MarshalJSON()
			check("thinking_level_change", got, err, struct {
				Type          string   `json:"type"`
				ID            string   `json:"id"`
				ParentID      nullable `json:"parentId"`
				Timestamp     string   `json:"timestamp"`
				ThinkingLevel string   `json:"thinkingLevel"`
			}{e.Type, e.ID, nullable(parent), e.Timestamp, s})
		}
		for _, parentSession := range []string{"", "/p/" + s + ".jsonl"} {
			h := &Header{Type: "session", Version: 3, ID: s, Timestamp: "ts" + s, Cwd: "/home/u/" + s, ParentSession: parentSession}
			got, err := h.MarshalJSON()
			type plain Header
			check("header", got, err, (*plain)(h))
		}
	}
	// No thinking level, no data at all: the keys are still written.
	got, _ := (&Entry{Type: TypeThinkingLevelChange, ID: "i", Timestamp: "t"}).MarshalJSON()
	if string(got) != `{"type":"thinking_level_change","id":"i","parentId":null,"timestamp":"t","thinkingLevel":""}` {
		t.Errorf("empty thinking level: %s", got)
	}
}

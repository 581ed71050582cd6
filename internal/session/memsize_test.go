package session

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/pigo-agent/pigo/internal/llm"
)

// TestMessageEntrySize: an LLM message entry is one 416-byte allocation (its entry, session
// message and LLM message; D25.18, D25.23). llm.Message grew to 280 bytes when status was an
// int after StringContent, and the three then made 456 bytes, a 480-byte class; with the
// entry's line as a slice (24 bytes), its parent as a pointer and the session message's
// bytes inline they made 448.
func TestMessageEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(llm.Message{}); n > 272 {
		t.Errorf("llm.Message is %d bytes, want at most 272", n)
	}
	if n := unsafe.Sizeof(Message{}); n > 48 {
		t.Errorf("Message is %d bytes, want at most 48", n)
	}
	if n := unsafe.Sizeof(llmEntry{}); n > 416 {
		t.Errorf("an LLM message entry is %d bytes, want at most 416", n)
	}
	line := []byte(`{"type":"message","id":"a1","parentId":"a0","timestamp":"t","message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false,"timestamp":5}}`)
	e, err := decodeEntry(line)
	if err != nil {
		t.Fatal(err)
	}
	p := (*llmEntry)(unsafe.Pointer(e))
	if e.Message != &p.Message || e.Message.LLM != &p.m {
		t.Error("the entry, its message and its LLM message are not one allocation")
	}
	if e.ID != "a1" || e.ParentID != "a0" || e.Type != TypeMessage || e.Message.LLM.ToolCallID != "c" || string(e.raw()) != string(line) {
		t.Errorf("decoded %+v", e)
	}
	// A role pigo does not know keeps its message's bytes (behind a pointer), written back
	// as they were, as is the line.
	unknown := `{"type":"message","id":"f","parentId":"e","timestamp":"t","message":{"role":"somethingNew","content":[],"x":{"odd":true}}}`
	if e, err := decodeEntry([]byte(unknown)); err != nil || e.Message == nil || e.Message.Role != "somethingNew" {
		t.Errorf("unknown role: %+v, %v", e, err)
	} else {
		mb, _ := e.Message.MarshalJSON()
		eb, _ := e.MarshalJSON()
		e.setRaw(nil)
		rb, _ := e.MarshalJSON()
		if string(mb) != `{"role":"somethingNew","content":[],"x":{"odd":true}}` || string(eb) != unknown || string(rb) != unknown {
			t.Errorf("unknown role written as %s, %s, %s", mb, eb, rb)
		}
	}
	// A repeated message key keeps the last one, whatever role the first had.
	for _, l := range []string{
		`{"type":"message","id":"a","message":{"role":"user","content":"one"},"parentId":null,"message":{"role":"bashExecution","command":"ls","output":"","timestamp":1},"timestamp":"t"}`,
		`{"type":"message","id":"a","message":{"role":"bashExecution","command":"ls","output":"","timestamp":1},"parentId":null,"message":{"role":"user","content":"two"},"timestamp":"t"}`,
	} {
		e, err := decodeEntry([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if e.ID != "a" || e.Timestamp != "t" || e.ParentID != "" || string(e.raw()) != l {
			t.Errorf("%s: entry %+v", l, e)
		}
		if m := e.Message; m.LLM != nil && (m.LLM.Text() != "two" || m.Bash != nil) || m.LLM == nil && (m.Bash == nil || m.Bash.Command != "ls") {
			t.Errorf("%s: message %+v", l, m)
		}
	}
}

// TestThinkingLevelShared: thinking level changes of the same level share one EntryData;
// one with any other field set, or another level, keeps its own; the lines are written
// back as they were.
func TestThinkingLevelShared(t *testing.T) {
	dec := func(l string) *Entry {
		e, err := decodeEntry([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := e.MarshalJSON(); string(b) != l {
			t.Errorf("written back as %s", b)
		}
		return e
	}
	a := dec(`{"type":"thinking_level_change","id":"a","parentId":null,"timestamp":"t","thinkingLevel":"high"}`)
	b := dec(`{"type":"thinking_level_change","id":"b","parentId":"a","timestamp":"t","thinkingLevel":"high"}`)
	c := dec(`{"type":"thinking_level_change","id":"c","parentId":"b","timestamp":"t","thinkingLevel":"low"}`)
	if a.EntryData != b.EntryData || a.ThinkingLevel != "high" || c.ThinkingLevel != "low" || c.EntryData == a.EntryData {
		t.Errorf("levels not shared: %p %p %p", a.EntryData, b.EntryData, c.EntryData)
	}
	for _, l := range []string{
		`{"type":"thinking_level_change","id":"d","parentId":null,"timestamp":"t","thinkingLevel":"ultra"}`,
		`{"type":"thinking_level_change","id":"d","parentId":null,"timestamp":"t","thinkingLevel":"high","name":"x"}`,
		`{"type":"thinking_level_change","id":"d","parentId":null,"timestamp":"t","thinkingLevel":"high","details":{}}`,
		`{"type":"thinking_level_change","id":"d","parentId":null,"timestamp":"t"}`,
	} {
		e := dec(l)
		for i := range thinkingLevels {
			if e.EntryData == &thinkingLevels[i] {
				t.Errorf("%s: shared", l)
			}
		}
	}
	for i, l := range []string{"off", "minimal", "low", "medium", "high", "xhigh"} {
		if !reflect.DeepEqual(thinkingLevels[i], EntryData{ThinkingLevel: l}) {
			t.Errorf("shared level %d changed: %+v", i, thinkingLevels[i])
		}
	}
	// Appending a change makes its own EntryData.
	s := InMemory(t.TempDir())
	s.AppendThinkingLevelChange("high")
	if e := s.Entries()[len(s.Entries())-1]; e.EntryData == a.EntryData || e.ThinkingLevel != "high" {
		t.Errorf("appended: %+v", e)
	}
}

// TestSharedLevelKeepsEveryField: sharedLevel lists EntryData's fields by hand; an entry with
// any field but ThinkingLevel set keeps its own EntryData. Each field is set in turn (by
// reflection, so a field added to EntryData and not to sharedLevel's list fails here).
func TestSharedLevelKeepsEveryField(t *testing.T) {
	typ := reflect.TypeFor[EntryData]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Name == "ThinkingLevel" {
			continue
		}
		d := &EntryData{ThinkingLevel: "high"}
		v := reflect.ValueOf(d).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Int:
			v.SetInt(1)
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
		default:
			t.Fatalf("EntryData.%s: kind %s not covered by this test", f.Name, v.Kind())
		}
		if got := sharedLevel(d); got != d {
			t.Errorf("EntryData.%s set: sharedLevel gave the shared value", f.Name)
		}
	}
	if d := (&EntryData{ThinkingLevel: "high"}); sharedLevel(d) == d {
		t.Error("a bare thinking level is not shared")
	}
}

package session

import (
	"testing"
	"unsafe"

	"github.com/pigo-agent/pigo/internal/llm"
)

// TestDecodedConstants: an entry's type, a message's role, a block's type and a stop reason
// read from a line are the package's constants themselves (their bytes in the binary, not
// the line's), so that the passes over a long session compare them without reading the
// file's block; other values are read as they are.
func TestDecodedConstants(t *testing.T) {
	same := func(what, got, want string) {
		t.Helper()
		if got != want || unsafe.StringData(got) != unsafe.StringData(want) {
			t.Fatalf("%s %q is not the constant %q", what, got, want)
		}
	}
	for _, role := range []string{llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult} {
		for _, bt := range []string{llm.TypeText, llm.TypeThinking, llm.TypeToolCall, llm.TypeImage} {
			for _, stop := range []string{llm.StopStop, llm.StopToolUse, llm.StopLength, llm.StopError, llm.StopAborted} {
				line := `{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"` + role +
					`","content":[{"type":"` + bt + `"}],"stopReason":"` + stop + `","timestamp":1}}`
				e, err := decodeEntry([]byte(line))
				if err != nil {
					t.Fatal(err)
				}
				same("entry type", e.Type, TypeMessage)
				same("role", e.Message.LLM.Role, role)
				same("session role", e.Message.Role, role)
				same("block type", e.Message.LLM.Content[0].Type, bt)
				same("stop reason", e.Message.LLM.StopReason, stop)
			}
		}
	}
	for _, typ := range []string{TypeModelChange, TypeThinkingLevelChange, TypeCompaction, TypeBranchSummary, TypeCustom,
		TypeCustomMessage, TypeLabel, TypeSessionInfo} {
		e, err := decodeEntry([]byte(`{"type":"` + typ + `","id":"a1","parentId":null,"timestamp":"t"}`))
		if err != nil {
			t.Fatal(err)
		}
		same("entry type", e.Type, typ)
	}
	for _, role := range []string{RoleBashExecution, RoleCustom, RoleBranchSummary, RoleCompactionSummary} {
		e, err := decodeEntry([]byte(`{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"` + role + `","timestamp":1}}`))
		if err != nil {
			t.Fatal(err)
		}
		same("role", e.Message.Role, role)
	}
	e, err := decodeEntry([]byte(`{"type":"other","id":"a1","parentId":null,"timestamp":"t","message":{"role":"robot","content":[{"type":"video"}],"stopReason":"tired"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if e.Type != "other" || e.Message.Role != "robot" {
		t.Fatalf("unknown values read as %q, %q", e.Type, e.Message.Role)
	}
}

package lsp

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDocumentBudget(t *testing.T) {
	tm := PlanTimeouts{DocumentWaitMs: 5000, SilentWaitMs: 1500}
	if got := documentBudget(nil, tm); got != 5*time.Second {
		t.Errorf("first open: %v", got)
	}
	if got := documentBudget(&publish{seq: 1}, tm); got != 1500*time.Millisecond {
		t.Errorf("after an empty push: %v", got)
	}
	if got := documentBudget(&publish{seq: 1, diagnostics: []lspDiagnostic{{Message: "x"}}}, tm); got != 5*time.Second {
		t.Errorf("after a non-empty push: %v", got)
	}
}

func TestLocations(t *testing.T) {
	one := `{"uri":"file:///a/b.go","range":{"start":{"line":2,"character":3},"end":{"line":2,"character":4}}}`
	if got := locations(json.RawMessage(one)); len(got) != 1 || got[0] != (Location{"/a/b.go", 2, 3}) {
		t.Errorf("one: %+v", got)
	}
	links := `[{"targetUri":"file:///x.go","targetSelectionRange":{"start":{"line":1,"character":5}},"targetRange":{"start":{"line":0,"character":0}}}]`
	if got := locations(json.RawMessage(links)); len(got) != 1 || got[0] != (Location{"/x.go", 1, 5}) {
		t.Errorf("links: %+v", got)
	}
	if got := locations(json.RawMessage(`null`)); len(got) != 0 {
		t.Errorf("null: %+v", got)
	}
	if got := locations(json.RawMessage(`[{"uri":"untitled:1","range":{"start":{"line":0,"character":0}}}]`)); len(got) != 0 {
		t.Errorf("non-file uri kept: %+v", got)
	}
}

package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// /import of a session whose stored working directory is gone asks as pi 1.6 does; each
// answer comes back as the command's argument: cancel imports nothing, fork continues a copy
// made for this folder (nothing imported), continue imports the file.
func TestImportMissingCwd(t *testing.T) {
	h := newHarness(t)
	s, _ := h.open(Options{})
	src := filepath.Join(h.root, "elsewhere", "gone.jsonl")
	const text = `{"type":"session","version":3,"id":"0192d4e5-1b2c-7d3e-8f40-123456789abc","timestamp":"2026-11-01T10:00:00.000Z","cwd":"/nonexistent/gone-project"}
{"type":"message","id":"a0000001","parentId":null,"timestamp":"2026-11-01T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"the earlier question"}],"timestamp":1793527201000}}
`
	h.write(src, text)
	ctx := context.Background()
	r, err := s.Run(ctx, "import", src)
	if err != nil || r.Ask == nil || r.Reset {
		t.Fatalf("import: %+v, %v", r, err)
	}
	if r.Ask.Title != "Session cwd does not exist: /nonexistent/gone-project" || len(r.Ask.Items) != 3 ||
		r.Ask.Items[0].Label != "Continue in "+h.proj+" (asks again next time)" ||
		r.Ask.Items[1].Label != "Fork into "+h.proj+" (new session ID, original kept)" ||
		r.Ask.Items[2].Label != "Cancel" || r.Ask.Cancel != r.Ask.Items[2].Arg {
		t.Fatalf("the question: %+v", r.Ask)
	}
	dir := s.File().Dir()
	imported := filepath.Join(dir, "gone.jsonl")

	r, err = s.Run(ctx, "import", r.Ask.Cancel)
	if err != nil || r.Text != "Import cancelled" || r.Reset {
		t.Fatalf("cancel: %+v, %v", r, err)
	}
	if _, err := os.Stat(imported); err == nil {
		t.Fatal("cancel imported the file")
	}

	first := s.File().ID()
	r, _ = s.Run(ctx, "import", src)
	r, err = s.Run(ctx, "import", r.Ask.Items[1].Arg)
	if err != nil || !strings.HasPrefix(r.Text, "Forked into new session "+s.File().ID()+" in "+h.proj) || !r.Reset {
		t.Fatalf("fork: %+v, %v", r, err)
	}
	if id := s.File().ID(); id == first || id == "0192d4e5-1b2c-7d3e-8f40-123456789abc" || s.File().Cwd() != h.proj {
		t.Errorf("the fork: id %s, cwd %s", id, s.File().Cwd())
	}
	if _, err := os.Stat(imported); err == nil {
		t.Error("fork imported the file")
	}
	if b, _ := os.ReadFile(src); string(b) != text {
		t.Errorf("the source changed:\n%s", b)
	}

	r, _ = s.Run(ctx, "import", src)
	r, err = s.Run(ctx, "import", r.Ask.Items[0].Arg)
	if err != nil || r.Text != "Session imported from: "+src || !r.Reset {
		t.Fatalf("continue: %+v, %v", r, err)
	}
	if s.File().ID() != "0192d4e5-1b2c-7d3e-8f40-123456789abc" || s.File().Path() != imported {
		t.Errorf("continue: %s %s", s.File().ID(), s.File().Path())
	}

	// A typed argument is never taken for an answer.
	if _, err := s.Run(ctx, "import", "cancel"); err == nil || strings.Contains(err.Error(), "cancelled") {
		t.Errorf("a typed word was read as an answer: %v", err)
	}
}

// The seed decides the tools at every session start by that session's model; /model inside a
// session changes none. A /new after /model starts with the new model's tools.
func TestToolsPerSessionModel(t *testing.T) {
	h := newHarness(t)
	h.write(filepath.Join(h.agent, "settings.json"), `{"retry": {"enabled": false},
  "personalExtensions": {"disabledTools": [{"tools": ["ls"], "models": ["big"]}]}}`)
	s, _ := h.open(Options{}, "read", "ls")
	ctx := context.Background()
	has := func(name string) bool {
		t.Helper()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, tl := range s.runner.LLMTools() {
			if tl.Name == name {
				return true
			}
		}
		return false
	}
	if !has("ls") || !has("read") {
		t.Fatal("ls and read are not bound at the start")
	}
	if _, err := s.Run(ctx, "model", "local/big"); err != nil {
		t.Fatal(err)
	}
	if !has("ls") {
		t.Fatal("/model changed the tools of the running session")
	}
	if _, err := s.Run(ctx, "new", ""); err != nil {
		t.Fatal(err)
	}
	if has("ls") || !has("read") {
		t.Fatal("/new after /model local/big kept ls, which disabledTools turns off for big")
	}
	if _, err := s.Run(ctx, "model", "local/small"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, "new", ""); err != nil {
		t.Fatal(err)
	}
	if !has("ls") {
		t.Fatal("/new on local/small did not bring ls back")
	}
}

package app

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	namer "github.com/pigo-agent/pigo/internal/naming"
)

// session-name in the chat: the seed's three warnings (no sessionName, the model unavailable,
// the call failed) and its notice for a name given reach the person; print mode (no person)
// hears none of them.
func TestNamingNotices(t *testing.T) {
	for _, c := range []struct {
		name, settings string
		fault          llmtest.Fault
		want           string
	}{
		{"no config", `{}`, 0, "warning: " + namer.WarnNoConfig},
		{"no model", `{"sessionName": {"provider": "names"}}`, 0, "warning: " + namer.WarnNoConfig},
		{"unavailable", `{"sessionName": {"provider": "names", "model": "nope"}}`, 0, "warning: " + namer.WarnUnavailable},
		{"failed", `{"sessionName": {"provider": "names", "model": "n"}}`, llmtest.ServerError, "warning: " + namer.WarnFailed},
		{"named", `{"sessionName": {"provider": "names", "model": "n"}}`, 0, namer.Named("Cats")},
	} {
		for _, interactive := range []bool{true, false} {
			h := newHarness(t)
			names := llmtest.New(t)
			h.write(filepath.Join(h.agent, "models.json"), `{"providers": {
  "local": {"baseUrl": "`+h.srv.BaseURL(llmtest.OpenAICompletions)+`", "api": "openai-completions", "apiKey": "k", "models": [{"id": "small"}]},
  "names": {"baseUrl": "`+names.BaseURL(llmtest.OpenAICompletions)+`", "api": "openai-completions", "apiKey": "k", "models": [{"id": "n"}]}}}`)
			h.write(filepath.Join(h.agent, "settings.json"), c.settings[:len(c.settings)-1]+sep(c.settings)+`"retry": {"enabled": false}}`)
			names.Push(llmtest.Turn{Text: "Cats", Fault: c.fault})
			h.srv.Push(llmtest.Turn{Text: "ok"})
			ev := &events{}
			o := Options{Frontend: ev}
			if interactive {
				o.Approver = approve.Headless()
			}
			s, _ := h.open(o)
			if _, err := s.Prompt(context.Background(), "tell me about cats", nil); err != nil {
				t.Fatal(err)
			}
			s.Close()
			var got []string
			for _, n := range ev.notices {
				got = append(got, n.Text)
			}
			if interactive && !slices.Contains(got, c.want) {
				t.Errorf("%s: notices %q, want %q", c.name, got, c.want)
			}
			if !interactive && len(got) != 0 {
				t.Errorf("%s, print mode: notices %q", c.name, got)
			}
		}
	}
}

// sep is the comma that joins settings' own fields to the ones the test adds.
func sep(settings string) string {
	if settings == "{}" {
		return ""
	}
	return ", "
}

// Each session is named from its own first prompt, as the seed's extension is rebuilt per
// session: after /new the new session gets its name, and the first keeps its own.
func TestNamingPerSession(t *testing.T) {
	h := newHarness(t)
	names := llmtest.New(t)
	h.write(filepath.Join(h.agent, "models.json"), `{"providers": {
  "local": {"baseUrl": "`+h.srv.BaseURL(llmtest.OpenAICompletions)+`", "api": "openai-completions", "apiKey": "k", "models": [{"id": "small"}]},
  "names": {"baseUrl": "`+names.BaseURL(llmtest.OpenAICompletions)+`", "api": "openai-completions", "apiKey": "k", "models": [{"id": "n"}]}}}`)
	h.write(filepath.Join(h.agent, "settings.json"), `{"sessionName": {"provider": "names", "model": "n"}, "retry": {"enabled": false}}`)
	names.Push(llmtest.Turn{Text: "Cats"}, llmtest.Turn{Text: "Dogs"})
	h.srv.Push(llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "ok"}, llmtest.Turn{Text: "ok"})
	ev := &events{}
	s, _ := h.open(Options{Frontend: ev, Approver: approve.Headless()})
	ctx := context.Background()
	if _, err := s.Prompt(ctx, "tell me about cats", nil); err != nil {
		t.Fatal(err)
	}
	s.naming.wait()
	first := s.File()
	if err := s.NewSession(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"tell me about dogs", "and more"} {
		if _, err := s.Prompt(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	s.naming.wait()
	if first.Name() != "Cats" || s.File().Name() != "Dogs" {
		t.Errorf("names: first %q, second %q", first.Name(), s.File().Name())
	}
	if n := len(names.Requests()); n != 2 {
		t.Errorf("naming requests: %d", n)
	}
}

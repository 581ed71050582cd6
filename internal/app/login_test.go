package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// scriptedDialog answers a session's questions: select requests with the option whose ID is
// choose, text and secret requests with answer; it keeps what it was asked and shown.
type scriptedDialog struct {
	mu             sync.Mutex
	choose, answer string
	asked, shown   []string
}

func (d *scriptedDialog) Input(_ context.Context, r InputRequest) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, r.Kind+": "+r.Message)
	if r.Kind == "select" {
		for _, o := range r.Options {
			if o.ID == d.choose {
				return o.ID, nil
			}
		}
		return "", ErrCancelled
	}
	if d.answer == "" {
		return "", ErrCancelled
	}
	return d.answer, nil
}

func (d *scriptedDialog) Show(text string) {
	d.mu.Lock()
	d.shown = append(d.shown, text)
	d.mu.Unlock()
}

// /login saves the key the person types into auth.json (0600) and the session's model uses it
// at once; /logout removes it and the session says the model has no credential again. Without
// a Dialog neither command is offered.
func TestLoginLogout(t *testing.T) {
	h := newHarness(t)
	h.write(filepath.Join(h.agent, "models.json"), `{"providers": {"local": {"baseUrl": "`+h.srv.BaseURL("openai-completions")+`",
  "api": "openai-completions", "models": [{"id": "small"}]}}}`)
	ev := &events{}
	d := &scriptedDialog{answer: "typed-secret-key"}
	s, _ := h.open(Options{Frontend: ev, Dialog: d})
	if err := s.MissingCredential(); err == nil {
		t.Fatal("no credential, but none reported")
	}
	p, err := s.Pick(context.Background(), "login")
	if err != nil || len(p.Items) == 0 {
		t.Fatalf("login picker: %v %+v", err, p)
	}
	found := false
	for _, it := range p.Items {
		found = found || it.Arg == "local"
	}
	if !found {
		t.Errorf("the picker does not offer models.json's provider: %+v", p.Items)
	}
	res, err := s.Run(context.Background(), "login", "local")
	if err != nil || !strings.Contains(res.Text, "Saved API key for local") {
		t.Fatalf("login: %v %q (asked %v)", err, res.Text, d.asked)
	}
	file := filepath.Join(h.agent, "auth.json")
	data, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(data), `"key": "typed-secret-key"`) {
		t.Fatalf("auth.json: %v %s", err, data)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("auth.json mode %v", fi.Mode().Perm())
	}
	if err := s.MissingCredential(); err != nil {
		t.Errorf("after /login: %v", err)
	}
	if strings.Contains(res.Text, "typed-secret-key") || strings.Contains(strings.Join(d.shown, "\n"), "typed-secret-key") {
		t.Error("the key was shown")
	}
	h.srv.Push(llmtest.Turn{Text: "ok"})
	if _, err := s.Prompt(context.Background(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 1 || reqs[0].Header.Get("Authorization") != "Bearer typed-secret-key" {
		t.Fatalf("the request did not use the new key: %d requests %v", len(reqs), reqs)
	}
	lp, err := s.Pick(context.Background(), "logout")
	if err != nil || len(lp.Items) != 1 || lp.Items[0].Arg != "local" {
		t.Fatalf("logout picker: %v %+v", err, lp)
	}
	res, err = s.Run(context.Background(), "logout", "local")
	if err != nil || !strings.Contains(res.Text, "Removed stored API key for local") {
		t.Fatalf("logout: %v %q", err, res.Text)
	}
	if data, _ := os.ReadFile(file); strings.Contains(string(data), "typed-secret-key") {
		t.Errorf("auth.json still holds the key: %s", data)
	}
	if err := s.MissingCredential(); err == nil {
		t.Error("after /logout the model still has a credential")
	}
	said := false
	for _, n := range ev.notices {
		said = said || strings.Contains(n.Text, "No API key found for local")
	}
	if !said {
		t.Errorf("the logout's missing credential was not said: %+v", ev.notices)
	}
	// Cancelled: nothing stored.
	d.answer = ""
	if res, err := s.Run(context.Background(), "login", "local"); err != nil || res.Text != "Login cancelled." {
		t.Errorf("cancelled login: %v %q", err, res.Text)
	}
	if data, _ := os.ReadFile(file); strings.Contains(string(data), `"local"`) {
		t.Errorf("a cancelled login stored something: %s", data)
	}
	if _, err := s.Run(context.Background(), "login", "no-such-provider"); err == nil || !strings.Contains(err.Error(), "Unknown provider") {
		t.Errorf("unknown provider: %v", err)
	}
	// openai signs in with the ChatGPT account (pi's /login openai): the authorize URL is
	// shown and what is pasted must be the callback URL; a typed key is refused as one.
	d.answer = "sk-openai-typed"
	_, err = s.Run(context.Background(), "login", "openai")
	if err == nil || !(strings.Contains(err.Error(), "Paste the full callback URL from the browser") || strings.Contains(err.Error(), "Port 1455 is in use")) {
		t.Errorf("openai: %v, shown %q", err, d.shown)
	}
	bare, _ := h.open(Options{Frontend: &events{}})
	if _, ok := bare.Lookup("login"); ok {
		t.Error("/login offered without a dialog")
	}
}

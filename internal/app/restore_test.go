package app

import (
	"context"
	"strings"
	"testing"
)

// A continued session keeps the model it was switched to (pi restores the session's model
// when the command line names none); with RestoreModel false (a --model flag) the
// configured model wins. A model that no longer resolves is a notice.
func TestContinueRestoresModel(t *testing.T) {
	h := newHarness(t)
	s, _ := h.open(Options{})
	conversation(t, s, "hello")
	if _, err := s.Run(context.Background(), "model", "local/big"); err != nil {
		t.Fatal(err)
	}
	loc := s.o.Session.Location
	s.Close()

	again := func(restore bool) (*Session, *events) {
		ev := &events{}
		s, _ := h.open(Options{Frontend: ev, RestoreModel: restore, Session: SessionSpec{Location: loc, Continue: true}})
		return s, ev
	}
	s2, _ := again(true)
	if st := s2.State(); st.Model != "local/big" || st.ContextWindow != 9000 {
		t.Fatalf("-c continued with %+v, want local/big", st)
	}
	s2.Close()
	s3, _ := again(false)
	if st := s3.State(); st.Model != "local/small" {
		t.Fatalf("with a model flag -c continued with %+v, want local/small", st)
	}
	if _, err := s3.Run(context.Background(), "model", "local/big"); err != nil {
		t.Fatal(err)
	}
	s3.Close()
	h.write(h.agent+"/models.json", `{"providers": {"local": {"baseUrl": "`+h.srv.URL+`/v1", "api": "openai-completions", "apiKey": "k",
  "models": [{"id": "small", "contextWindow": 1000}]}}}`)
	s4, ev := again(true)
	if st := s4.State(); st.Model != "local/small" {
		t.Fatalf("an unresolvable session model: %+v", st)
	}
	if len(ev.notices) == 0 || !strings.HasPrefix(ev.notices[0].Text, "Could not restore model local/big") {
		t.Fatalf("notices %+v", ev.notices)
	}
}

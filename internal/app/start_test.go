package app

import (
	"path/filepath"
	"testing"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/tools/aft"
)

// TestStartNoticesOnlyWhereAPersonIs: the toolsets' start notices (looking for gh walks
// PATH) are asked for and shown when a person is there (the chat), and not even asked for
// by a session nobody watches (print mode shows none).
func TestStartNoticesOnlyWhereAPersonIs(t *testing.T) {
	for _, interactive := range []bool{false, true} {
		h := newHarness(t)
		c := &testConfig{h: h, tools: []string{"read"}}
		st, err := c.load("local/small")
		if err != nil {
			t.Fatal(err)
		}
		asked := 0
		st.StartNotices = func() []aft.Notice {
			asked++
			return []aft.Notice{{Level: "error", Code: "gh-missing", Text: "gh is not installed"}}
		}
		ev := &events{}
		o := Options{Config: c, Setup: st, Frontend: ev,
			Session: SessionSpec{Location: session.Locate(h.agent, h.proj, filepath.Join(h.root, "sessions"), "")}}
		if interactive {
			o.Approver = approve.Headless()
		}
		s, err := Open(o)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		var shown []Notice
		for _, n := range ev.notices {
			if n.Text == "error: gh is not installed" {
				shown = append(shown, n)
			}
		}
		switch {
		case !interactive && (asked != 0 || len(shown) != 0):
			t.Errorf("print mode: asked %d times, shown %v", asked, shown)
		case interactive && (asked != 1 || len(shown) != 1 || !shown[0].Error):
			t.Errorf("chat: asked %d times, shown %v", asked, shown)
		}
	}
}

package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// Issue 21: the chat rebuilt its agent in nine places from its own copy of the construction,
// which lacked the Thread-Id header -p sends (the seed's request-headers). The session builds
// its agent in one place: every request carries the current session's id, in the chat as in
// -p, after /new and /model too.
func TestOneAgentConstruction(t *testing.T) {
	h := newHarness(t)
	s, _ := h.open(Options{Approver: approve.Func(func(context.Context, approve.Request) (approve.Decision, error) {
		return approve.Decision{Choice: approve.Allow}, nil
	})})
	ctx := context.Background()
	prompt := func() {
		t.Helper()
		h.srv.Push(llmtest.Turn{Text: "ok"})
		if _, err := s.Prompt(ctx, "hi", nil); err != nil {
			t.Fatal(err)
		}
	}
	prompt()
	first := s.Header().ID
	if _, err := s.Run(ctx, "new", ""); err != nil {
		t.Fatal(err)
	}
	prompt()
	if _, err := s.Run(ctx, "model", "local/big"); err != nil {
		t.Fatal(err)
	}
	prompt()
	reqs := h.srv.Requests()
	want := []string{first, s.Header().ID, s.Header().ID}
	if len(reqs) != 3 || first == want[1] {
		t.Fatalf("%d requests, ids %q", len(reqs), want)
	}
	for i, r := range reqs {
		if got := r.Header.Get("Thread-Id"); got != want[i] {
			t.Errorf("request %d: Thread-Id %q, want %q", i, got, want[i])
		}
	}
}

// Issue 21: "always allow" was written to sandbox.json inside Bubble Tea's Update, and the
// running approval rules were reassigned from the UI goroutine without a lock while tool
// calls read them. Now the approvals' hook saves on the asking tool's goroutine and swaps the
// rules under their lock: escalations keep evaluating the rules while one of them ticks a
// rule, race-free under -race (the same shape against the old wiring, persistAllow beside
// tools.Escalate, reports DATA RACE); the rule is saved once, reported, and applies at once.
func TestAlwaysAllowWhileToolsRun(t *testing.T) {
	h := newHarness(t)
	var asked atomic.Int32
	ui := approve.Func(func(_ context.Context, r approve.Request) (approve.Decision, error) {
		asked.Add(1)
		if strings.HasPrefix(r.Command, "git push") {
			return approve.Decision{Choice: approve.Allow, Persist: []string{"git push *"}}, nil
		}
		return approve.Decision{Choice: approve.Allow}, nil
	})
	ev := &events{}
	s, c := h.open(Options{Approver: ui, Frontend: ev})
	ctx := context.Background()
	var wg sync.WaitGroup
	var stop atomic.Bool
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if _, err := toolkit.Escalate(ctx, s.tools, "Bash", fmt.Sprintf("make target%d", i)); err != nil {
					t.Errorf("make: %v", err)
					return
				}
			}
		}()
	}
	if _, err := toolkit.Escalate(ctx, s.tools, "Bash", "git push origin main"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the other calls go on with the new rules
	stop.Store(true)
	wg.Wait()
	if len(c.saved) != 1 || c.saved[0][0] != "git push *" {
		t.Fatalf("saved %q", c.saved)
	}
	if len(ev.notices) != 1 || ev.notices[0].Text != "Saved allow rules: git push *" {
		t.Fatalf("notices %+v", ev.notices)
	}
	n := asked.Load()
	if _, err := toolkit.Escalate(ctx, s.tools, "Bash", "git push origin other"); err != nil || asked.Load() != n {
		t.Fatalf("the saved rule does not apply at once: %v, asked %d times", err, asked.Load()-n)
	}
}

// Issue 21: describe_image and spawn-agent called config.Load per call (re-reading and
// re-validating every file, with other trust flags than the session's). What they need is
// resolved once per session: changing the files under a running session changes nothing
// until /reload.
func TestToolsTakeValues(t *testing.T) {
	h := newHarness(t)
	h.write(filepath.Join(h.agent, "settings.json"), `{"retry": {"enabled": false}, "visionConfig": {"provider": "local", "model": "eyes"}}`)
	h.write(filepath.Join(h.agent, "agents", "helper.md"), "---\nname: helper\ndescription: helps\n---\nHelp.\n")
	h.write(filepath.Join(h.proj, "a.png"), "\x89PNG\r\n\x1a\n fake png body")
	s, _ := h.open(Options{}, "describe_image", "spawn-agent")
	h.write(filepath.Join(h.agent, "settings.json"), `{"visionConfig": {"provider": "local", "model": "nope"}}`)
	if err := os.Remove(filepath.Join(h.agent, "agents", "helper.md")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h.srv.Push(llmtest.Turn{Text: "a cat"})
	r, err := s.RunTool(ctx, toolrun.Call{ID: "c1", Name: "describe_image", Arguments: []byte(`{"path": "a.png"}`)})
	if err != nil || r.IsError || !strings.Contains(contentText(r), "a cat") || !strings.Contains(contentText(r), "[模型: eyes") {
		t.Fatalf("describe_image: %s %v", contentText(r), err)
	}
	r, _ = s.RunTool(ctx, toolrun.Call{ID: "c2", Name: "spawn-agent", Arguments: []byte(`{"agent": "nope", "task": "x"}`)})
	if want := `unknown agent "nope" (available: helper: helps)`; contentText(r) != want {
		t.Fatalf("spawn-agent: %q, want %q", contentText(r), want)
	}
	// /reload reads them again.
	if _, err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	r, _ = s.RunTool(ctx, toolrun.Call{ID: "c3", Name: "describe_image", Arguments: []byte(`{"path": "a.png"}`)})
	if !strings.Contains(contentText(r), "local/nope") {
		t.Fatalf("after /reload: %s", contentText(r))
	}
}

func contentText(r toolrun.Result) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// The dispatcher: pi's built-ins run only where a person is; `pigo -p` sends "/name x" to
// the model as text, as pi's print mode does. /talk* exist only while talk runs.
func TestCommandsNeedAPerson(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	headless, _ := h.open(Options{})
	h.srv.Push(llmtest.Turn{Text: "ok"})
	r, err := headless.Prompt(ctx, "/name my work", nil)
	if err != nil || r.Handled || r.Message == nil {
		t.Fatalf("headless /name: %+v %v", r, err)
	}
	if body := string(h.srv.Requests()[0].Body); !strings.Contains(body, "/name my work") {
		t.Fatalf("the model did not get the text: %s", body)
	}
	if n, _ := headless.Name(""); n != "" {
		t.Fatalf("headless /name named the session %q", n)
	}
	chat, _ := h.open(Options{Approver: approve.Headless()})
	var out strings.Builder
	r, err = chat.Prompt(ctx, "/name my work", &out)
	if err != nil || !r.Handled || out.String() != "Session name set: my work\n" {
		t.Fatalf("chat /name: %+v %v %q", r, err, out.String())
	}
	if _, ok := chat.Lookup("talk"); ok {
		t.Fatal("/talk without talk")
	}
	if c, ok := chat.Lookup("tree"); !ok || !c.Interactive || c.Pick == nil {
		t.Fatalf("/tree: %+v %v", c, ok)
	}
}

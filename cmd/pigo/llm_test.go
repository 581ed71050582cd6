package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// cleanupTB lets llmtest.New run outside a *testing.T: a testscript command owns the server
// for the rest of its script and closes it through ts.Defer.
type cleanupTB struct {
	testing.TB
	cleanups []func()
}

func (c *cleanupTB) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }
func (c *cleanupTB) Helper()          {}

// scriptTurn is one scripted model response in a testscript's turns file: llmtest.Turn's
// fields (Text, Thinking, ToolCalls [{id, name, args}], StopReason, Usage …) plus readable
// names for faults and delays.
type scriptTurn struct {
	llmtest.Turn
	FaultName string `json:"fault"`
	DelayMs   int    `json:"delay_ms"`
}

var faultNames = map[string]llmtest.Fault{
	"rate-limit": llmtest.RateLimit, "server-error": llmtest.ServerError, "overloaded": llmtest.Overloaded,
	"context-overflow": llmtest.ContextOverflow, "disconnect": llmtest.Disconnect, "stream-error": llmtest.StreamError,
	"truncated": llmtest.Truncated,
}

// servers are the running llmtest servers by script work dir (for llmreqs).
// Scripts run in parallel: serversMu guards the map.
var (
	serversMu sync.Mutex
	servers   = map[string]*llmtest.Server{}
)

// cmdLLMServe is `llmserve [-api API] [-model JSON] TURNS.json`: start a scripted model server
// on 127.0.0.1 answering the turns in order, and write $HOME/.pi/agent/models.json with the
// provider "local" (api key "k") and model "m" pointing at it. $LLM_URL is its base URL.
func cmdLLMServe(ts *testscript.TestScript, neg bool, args []string) {
	api := llmtest.OpenAICompletions
	model := `{"id":"m"}`
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-api":
			api = args[1]
		case "-model":
			model = args[1]
		default:
			ts.Fatalf("llmserve: unknown flag %s", args[0])
		}
		args = args[2:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: llmserve [-api API] [-model JSON] TURNS.json")
	}
	var turns []scriptTurn
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &turns); err != nil {
		ts.Fatalf("llmserve: %s: %v", args[0], err)
	}
	tb := &cleanupTB{}
	srv := llmtest.New(tb)
	ts.Defer(func() {
		for _, f := range tb.cleanups {
			f()
		}
	})
	for _, t := range turns {
		turn := t.Turn
		if t.FaultName != "" {
			f, ok := faultNames[t.FaultName]
			if !ok {
				ts.Fatalf("llmserve: unknown fault %q", t.FaultName)
			}
			turn.Fault = f
		}
		turn.Delay = time.Duration(t.DelayMs) * time.Millisecond
		srv.Push(turn)
	}
	serversMu.Lock()
	servers[ts.Getenv("WORK")] = srv
	serversMu.Unlock()
	ts.Setenv("LLM_URL", srv.BaseURL(api))
	var m map[string]any
	if err := json.Unmarshal([]byte(model), &m); err != nil {
		ts.Fatalf("llmserve: -model: %v", err)
	}
	doc := map[string]any{"providers": map[string]any{"local": map[string]any{
		"baseUrl": srv.BaseURL(api), "api": api, "apiKey": "k", "models": []any{m}}}}
	b, _ := json.MarshalIndent(doc, "", "  ")
	dir := filepath.Join(ts.Getenv("HOME"), ".pi", "agent")
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(os.WriteFile(filepath.Join(dir, "models.json"), b, 0o644))
}

// cmdLLMReqs is `llmreqs OUT`: write the request bodies the server received, one compact JSON
// line each, to OUT (for grep and cmp); `llmreqs -n N` checks that N requests were made.
func cmdLLMReqs(ts *testscript.TestScript, neg bool, args []string) {
	serversMu.Lock()
	srv := servers[ts.Getenv("WORK")]
	serversMu.Unlock()
	if srv == nil {
		ts.Fatalf("llmreqs: no llmserve in this script")
	}
	reqs := srv.Requests()
	if len(args) == 2 && args[0] == "-n" {
		if got := len(reqs); (got == atoi(ts, args[1])) == neg {
			ts.Fatalf("llmreqs: %d requests, want %s", got, args[1])
		}
		return
	}
	if len(args) != 1 {
		ts.Fatalf("usage: llmreqs OUT | llmreqs -n N")
	}
	var out bytes.Buffer
	for _, r := range reqs {
		var b bytes.Buffer
		if err := json.Compact(&b, r.Body); err != nil {
			b.Write(r.Body)
		}
		out.Write(b.Bytes())
		out.WriteByte('\n')
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), out.Bytes(), 0o644))
}

func atoi(ts *testscript.TestScript, s string) int {
	var n int
	if _, err := jsonNumber(s, &n); err != nil {
		ts.Fatalf("not a number: %q", s)
	}
	return n
}

func jsonNumber(s string, n *int) (int, error) { return *n, json.Unmarshal([]byte(s), n) }

// cmdSleep is `sleep DURATION` (a Go duration): lets a background command get going.
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

// cmdMkfifo is "mkfifo PATH": a named pipe, as a hostile model's bash leaves in the
// workspace.
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
}

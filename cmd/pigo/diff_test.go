package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/cli"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// The differential test: each scenario runs once through the real pi 0.84.3 (`pi -p --mode
// json`) and once through pigo (`pigo -p --mode json`), each against its own llmtest server
// answering the same scripted turns, and compares what matters: the sequence of event types
// (with message roles and stream-event kinds), the request bodies, the files left in the
// working directory, and the session files (pi resumes pigo's, pigo resumes pi's).
//
// deliberateDifferences lists where pigo differs from pi on purpose; the comparison masks
// exactly these and nothing else.
var deliberateDifferences = map[string]string{
	"exit code on a failed run":    "pi 0.84 exits 0 in JSON mode when the run ends in a provider error or an abort (pi #9089); pigo exits 1 in both modes, as cli.md's headless contract says",
	"overflow that cannot compact": "when a context overflow leaves nothing to summarize, pi drops the failed reply from its state and print mode exits 0 saying nothing; pigo reports the provider's error and exits 1",
	"agent_settled exit_code":      "pigo's last line carries the exit code ({\"type\":\"agent_settled\",\"exit_code\":N}); pi's has none",
	"system prompt docs paths":     "pi's default prompt names its docs under its own install dir; pigo is run with PI_PACKAGE_DIR set to that dir so the prompts compare byte for byte",
	"tool_execution_update count":  "one per output chunk of a running tool, so the count depends on timing in both; only their presence is compared",
	"working directory":            "each run has its own temporary working directory; paths in request bodies are compared with it replaced by <cwd>",
	"retry-after wait":             "scenarios use settings retry.baseDelayMs 1 so neither waits; pi's provider-level retry of the SDK is off for both (maxRetries 0 in the request options)",
}

type scenario struct {
	name     string
	turns    []llmtest.Turn
	args     []string
	prompts  []string
	model    map[string]any
	settings map[string]any
	files    map[string]string
	// failed marks a run that ends in an error or abort (exit codes differ, see above).
	failed bool
}

func scenarios() []scenario {
	fast := map[string]any{"retry": map[string]any{"baseDelayMs": 1}}
	read := func(id, path string) llmtest.ToolCall {
		return llmtest.ToolCall{ID: id, Name: "read", Args: `{"path":"` + path + `"}`}
	}
	return []scenario{
		{name: "text", prompts: []string{"@notes.txt", "hello"}, files: map[string]string{"notes.txt": "\ufeffsome notes\n"}, turns: []llmtest.Turn{{Text: "Hello there.", Usage: llmtest.Usage{Input: 12, Output: 3}}}, args: []string{"--tools", "write,read,ls"}},
		{name: "thinking", prompts: []string{"think"}, model: map[string]any{"id": "m", "reasoning": true}, args: []string{"--no-tools", "--thinking", "high"},
			turns: []llmtest.Turn{{Thinking: "Let me think.", Text: "Thought it through."}}},
		{name: "tool-read", prompts: []string{"read a.txt"}, files: map[string]string{"a.txt": "alpha\nbeta\n"}, args: []string{"--tools", "read"},
			turns: []llmtest.Turn{{Text: "Reading.", ToolCalls: []llmtest.ToolCall{read("call_1", "a.txt")}}, {Text: "It says alpha."}}},
		{name: "parallel-reads", prompts: []string{"read both"}, files: map[string]string{"a.txt": "A\n", "b.txt": "B\n"}, args: []string{"--tools", "read"},
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{read("call_1", "a.txt"), read("call_2", "b.txt")}}, {Text: "A and B."}}},
		{name: "unknown-tool", prompts: []string{"go"}, args: []string{"--tools", "read"},
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "nope", Args: `{}`}}}, {Text: "No such tool."}}},
		{name: "invalid-arguments", prompts: []string{"go"}, args: []string{"--tools", "read"},
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "read", Args: `{"offset":"x"}`}}}, {Text: "Bad arguments."}}},
		{name: "edit-file", prompts: []string{"rename alpha"}, files: map[string]string{"a.txt": "alpha\nbeta\n"}, args: []string{"--tools", "read,edit"},
			turns: []llmtest.Turn{{Text: "Editing.", ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "edit", Args: `{"path":"a.txt","edits":[{"oldText":"alpha","newText":"omega"}]}`}}}, {Text: "Renamed."}}},
		{name: "bash", prompts: []string{"say hi"}, args: []string{"--tools", "bash"},
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "bash", Args: `{"command":"echo hi; echo err >&2; exit 3"}`}}}, {Text: "It failed."}}},
		{name: "retry-429", prompts: []string{"go"}, args: []string{"--no-tools"}, settings: fast,
			turns: []llmtest.Turn{{Fault: llmtest.RateLimit}, {Text: "Second time lucky."}}},
		{name: "retries-exhausted", prompts: []string{"go"}, args: []string{"--no-tools"}, settings: fast, failed: true,
			turns: []llmtest.Turn{{Fault: llmtest.ServerError}, {Fault: llmtest.ServerError}, {Fault: llmtest.ServerError}, {Fault: llmtest.ServerError}}},
		{name: "overflow-compaction", prompts: []string{"first", "second"}, args: []string{"--no-tools"},
			settings: map[string]any{"compaction": map[string]any{"keepRecentTokens": 1}},
			turns:    []llmtest.Turn{{Text: "First answer."}, {Fault: llmtest.ContextOverflow}, {Text: "## Goal\nsummary"}, {Text: "After compaction."}}},
		{name: "length-stop-tool-call", prompts: []string{"go"}, args: []string{"--tools", "read"},
			turns: []llmtest.Turn{{ToolCalls: []llmtest.ToolCall{read("call_1", "a.txt")}, StopReason: "length"}, {Text: "Retrying."}}},
		{name: "content-filter", prompts: []string{"go"}, args: []string{"--no-tools"}, failed: true,
			turns: []llmtest.Turn{{Text: "Partial", StopReason: "content_filter"}}},
	}
}

// piEvents runs the real pi and returns its stdout lines.
func runPiScenario(t *testing.T, sc scenario) (lines []string, reqs []llmtest.Request, cwd string) {
	srv := llmtest.New(t)
	srv.Push(sc.turns...)
	args := append(append(append([]string{}, sc.args...), "--mode", "json", "-p"), sc.prompts...)
	out, _, cwd := srv.RunPi(t, llmtest.PiRun{Model: sc.model, Settings: sc.settings, Args: args, Files: sc.files})
	return splitLines(out), srv.Requests(), cwd
}

// runPigoScenario runs pigo in-process with the same layout RunPi uses: a fresh HOME, the
// agent dir inside it, models.json's provider "local" pointed at the server.
func runPigoScenario(t *testing.T, sc scenario, extra ...string) (lines []string, code int, reqs []llmtest.Request, cwd string) {
	srv := llmtest.New(t)
	srv.Push(sc.turns...)
	home := t.TempDir()
	agentDir := filepath.Join(home, ".pi", "agent")
	cwd = filepath.Join(home, "work")
	for _, d := range []string{agentDir, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mdl := sc.model
	if mdl == nil {
		mdl = map[string]any{"id": "m"}
	}
	writeJSONFile(t, filepath.Join(agentDir, "models.json"), map[string]any{"providers": map[string]any{"local": map[string]any{
		"baseUrl": srv.BaseURL(llmtest.OpenAICompletions), "api": llmtest.OpenAICompletions, "apiKey": "k", "models": []any{mdl}}}})
	if sc.settings != nil {
		writeJSONFile(t, filepath.Join(agentDir, "settings.json"), sc.settings)
	}
	for name, body := range sc.files {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"PI_PACKAGE_DIR": piPackageDir(t), "HOME": home, "PI_CODING_AGENT_DIR": agentDir, "NO_COLOR": "1", "PATH": os.Getenv("PATH"), "PIGO_CACHE_DIR": filepath.Join(home, "cache")}
	var stdout, stderr bytes.Buffer
	c := &cli.CLI{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }}
	args := append([]string{"-C", cwd, "--provider", "local", "--model", mdl["id"].(string)}, sc.args...)
	args = append(append(append(args, extra...), "--mode", "json", "-p"), sc.prompts...)
	code = c.Main(args)
	if stderr.Len() > 0 {
		t.Logf("pigo stderr: %s", stderr.String())
	}
	return splitLines(stdout.String()), code, srv.Requests(), cwd
}

// piPackageDir is the installed pi's package directory (where its docs block points).
func piPackageDir(t *testing.T) string {
	return filepath.Dir(filepath.Dir(pitest.Find(t).CLI))
}

func writeJSONFile(t *testing.T, path string, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func splitLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// eventShape is one event reduced to what must match: its type, the message role, the
// stream-event kind, the tool name.
func eventShapes(t *testing.T, lines []string) []string {
	var out []string
	for _, l := range lines {
		var e struct {
			Type    string `json:"type"`
			Message *struct {
				Role       string `json:"role"`
				StopReason string `json:"stopReason"`
			} `json:"message"`
			AME *struct {
				Type string `json:"type"`
			} `json:"assistantMessageEvent"`
			ToolName string `json:"toolName"`
			Reason   string `json:"reason"`
			IsError  *bool  `json:"isError"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		s := e.Type
		switch {
		case e.AME != nil:
			s += ":" + e.AME.Type
		case e.Message != nil && e.Type != "turn_end":
			s += ":" + e.Message.Role
			if e.Message.StopReason != "" && e.Type == "message_end" {
				s += ":" + e.Message.StopReason
			}
		case e.ToolName != "":
			s += ":" + e.ToolName
			if e.IsError != nil && *e.IsError {
				s += ":error"
			}
		case e.Reason != "":
			s += ":" + e.Reason
		}
		out = append(out, s)
	}
	return out
}

var volatileKeys = regexp.MustCompile(`^(prompt_cache_key|user|metadata|session_id)$`)

// knownGaps are differences that are not deliberate but owned elsewhere; they are masked so
// the rest still compares, and logged on every run so they stay visible.
var knownGaps = map[string]string{
	"tool descriptions":         "toolsets/ paraphrases pi's built-in tool descriptions (catalogue text, not the loop's)",
	"partial message snapshots": "the openai-completions client fills a streamed partial message later than pi does (pi's partial has stopReason \"pending\" and responseId from the first chunk, and usage, with reasoning 0, on every partial); message_start and message_update usage and responseId are masked, final messages are compared whole",
	"summary tool_choice":       "pi sends tool_choice \"none\" with compaction summaries; the loop sets llm.Options.ToolChoice but the openai-completions client does not send it yet",
}

// normalizeRequest masks the system prompt text, per-run ids and the run's cwd in a request
// body, and the known gaps.
func normalizeRequest(body []byte, cwd string) any {
	body = bytes.ReplaceAll(body, []byte(cwd), []byte("<cwd>"))
	var v map[string]any
	_ = json.Unmarshal(body, &v)
	delete(v, "tool_choice")
	if tools, ok := v["tools"].([]any); ok {
		for _, t := range tools {
			if f, ok := t.(map[string]any)["function"].(map[string]any); ok {
				f["description"] = "<description>"
				f["parameters"] = schemaShape(f["parameters"])
			}
		}
	}
	for k := range v {
		if volatileKeys.MatchString(k) {
			v[k] = "<masked>"
		}
	}
	return v
}

// normalizeEvents normalizes every line and puts each run of consecutive tool_execution_end
// events in call-id order: parallel calls end in completion order, which depends on timing
// in pi as in pigo (the toolResult messages after them are in call order and compared as
// they are).
func normalizeEvents(lines []string, cwd string) []any {
	out := make([]any, len(lines))
	for i, l := range lines {
		out[i] = normalizeEvent(l, cwd)
	}
	id := func(v any) (string, bool) {
		m, _ := v.(map[string]any)
		if m == nil || m["type"] != "tool_execution_end" {
			return "", false
		}
		s, _ := m["toolCallId"].(string)
		return s, true
	}
	for i := 0; i < len(out); {
		j := i
		for j < len(out) {
			if _, ok := id(out[j]); !ok {
				break
			}
			j++
		}
		if j > i+1 {
			run := out[i:j]
			sort.SliceStable(run, func(a, b int) bool { x, _ := id(run[a]); y, _ := id(run[b]); return x < y })
		}
		if j == i {
			j++
		}
		i = j
	}
	return out
}

// normalizeEvent masks what differs between any two runs (timestamps, ids, the cwd), the
// deliberate agent_settled exit_code, and the known gap of streamed partial messages.
func normalizeEvent(line, cwd string) any {
	line = strings.ReplaceAll(line, cwd, "<cwd>")
	var v any
	_ = json.Unmarshal([]byte(line), &v)
	if m, ok := v.(map[string]any); ok {
		switch m["type"] {
		case "agent_settled":
			delete(m, "exit_code")
		case "message_update":
			m["usage"] = "<partial usage>"
		case "message_start":
			if msg, ok := m["message"].(map[string]any); ok && msg["role"] == "assistant" {
				delete(msg, "responseId")
				delete(msg, "stopReason")
				msg["usage"] = "<partial usage>"
			}
		}
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "timestamp" || k == "firstKeptEntryId" || (k == "id" && x["type"] == "session") {
					x[k] = "<masked>"
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return v
}

// schemaShape keeps what the loop is responsible for in a parameters schema: the type, the
// property names with their types, and the required list.
func schemaShape(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{"type": m["type"], "required": m["required"]}
	if props, ok := m["properties"].(map[string]any); ok {
		p := map[string]any{}
		for k, e := range props {
			if em, ok := e.(map[string]any); ok {
				p[k] = em["type"]
			}
		}
		out["properties"] = p
	}
	return out
}

func diffJSON(a, b any) string {
	ja, _ := json.MarshalIndent(a, "", "  ")
	jb, _ := json.MarshalIndent(b, "", "  ")
	la, lb := strings.Split(string(ja), "\n"), strings.Split(string(jb), "\n")
	for i := 0; i < len(la) || i < len(lb); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  pi:   %s\n  pigo: %s", i+1, x, y)
		}
	}
	return ""
}

func TestDifferentialAgainstPi(t *testing.T) {
	pitest.Find(t)
	for _, sc := range scenarios() {
		sc := sc
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			piLines, piReqs, piCwd := runPiScenario(t, sc)
			goLines, code, goReqs, goCwd := runPigoScenario(t, sc)
			for k, v := range knownGaps {
				t.Logf("known gap, masked: %s: %s", k, v)
			}
			if len(goLines) == 0 {
				t.Fatal("pigo printed nothing")
			}
			last := goLines[len(goLines)-1]
			wantCode := 0
			if sc.failed {
				wantCode = 1
			}
			if code != wantCode || last != fmt.Sprintf(`{"type":"agent_settled","exit_code":%d}`, wantCode) {
				t.Fatalf("exit %d, last line %s", code, last)
			}
			var piUpdates, goUpdates int
			piLines, piUpdates = dropToolUpdates(piLines)
			goLines, goUpdates = dropToolUpdates(goLines)
			if (piUpdates == 0) != (goUpdates == 0) {
				t.Errorf("tool_execution_update: pi sent %d, pigo %d", piUpdates, goUpdates)
			}
			ps, gs := eventShapes(t, piLines), eventShapes(t, goLines)
			if !reflect.DeepEqual(ps, gs) {
				t.Errorf("event sequences differ:\n pi:   %v\n pigo: %v", ps, gs)
			} else {
				// Same sequence: every event must also be equal field by field, modulo the
				// masked fields.
				pn, gn := normalizeEvents(piLines, piCwd), normalizeEvents(goLines, goCwd)
				for i := range pn {
					if d := diffJSON(pn[i], gn[i]); d != "" {
						t.Errorf("event %d (%s) differs at %s", i+1, ps[i], d)
					}
				}
			}
			if pf, gf := dirFiles(t, piCwd), dirFiles(t, goCwd); !reflect.DeepEqual(pf, gf) {
				t.Errorf("working directories differ after the run:\n pi:   %v\n pigo: %v", pf, gf)
			}
			if len(piReqs) != len(goReqs) {
				t.Fatalf("pi made %d requests, pigo %d", len(piReqs), len(goReqs))
			}
			for i := range piReqs {
				if d := diffJSON(normalizeRequest(piReqs[i].Body, piCwd), normalizeRequest(goReqs[i].Body, goCwd)); d != "" {
					if os.Getenv("DIFF_VERBOSE") != "" {
						t.Logf("pi:   %s\npigo: %s", piReqs[i].Body, goReqs[i].Body)
					}
					t.Errorf("request %d differs at %s", i+1, d)
				}
			}
		})
	}
}

// dropToolUpdates removes the tool_execution_update lines: how many there are depends on how
// a command's output happens to arrive (pi and pigo both send one per output chunk), so only
// whether there were any is compared.
func dropToolUpdates(lines []string) ([]string, int) {
	var out []string
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, `{"type":"tool_execution_update"`) {
			n++
			continue
		}
		out = append(out, l)
	}
	return out, n
}

// dirFiles is every regular file under dir with its content.
func dirFiles(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// sessionFiles lists the .jsonl files under dir.
func sessionFiles(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// requestRoles is the roles of a request's messages (system prompt left out).
func requestRoles(body []byte) []string {
	var v struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &v)
	var out []string
	for _, m := range v.Messages {
		if m.Role != "system" && m.Role != "developer" {
			out = append(out, m.Role)
		}
	}
	return out
}

// TestSessionsCrossResume: pi resumes a session file pigo wrote, and pigo resumes one pi wrote;
// either way the resumed run sends the earlier turns (a tool call and its result included).
func TestSessionsCrossResume(t *testing.T) {
	pitest.Find(t)
	first := scenario{prompts: []string{"read a.txt"}, files: map[string]string{"a.txt": "alpha\n"}, args: []string{"--tools", "read"},
		turns: []llmtest.Turn{{Text: "Reading.", ToolCalls: []llmtest.ToolCall{{ID: "call_1", Name: "read", Args: `{"path":"a.txt"}`}}}, {Text: "It says alpha."}}}
	want := []string{"user", "assistant", "tool", "assistant", "user"}
	t.Run("pi resumes pigo", func(t *testing.T) {
		t.Parallel()
		_, code, _, cwd := runPigoScenario(t, first)
		if code != 0 {
			t.Fatalf("pigo exit %d", code)
		}
		files := sessionFiles(t, filepath.Dir(cwd))
		if len(files) != 1 {
			t.Fatalf("pigo wrote %d session files: %v", len(files), files)
		}
		srv := llmtest.New(t)
		srv.Push(llmtest.Turn{Text: "Resumed."})
		out, stderr, _ := srv.RunPi(t, llmtest.PiRun{Args: []string{"--tools", "read", "--session", files[0], "--mode", "json", "-p", "again"}})
		if !strings.Contains(out, `"Resumed."`) || len(srv.Requests()) != 1 {
			t.Fatalf("pi did not resume: %s\n%s", out, stderr)
		}
		if got := requestRoles(srv.Requests()[0].Body); !reflect.DeepEqual(got, want) {
			t.Fatalf("pi sent %v, want %v", got, want)
		}
	})
	t.Run("pi resumes a compacted pigo session", func(t *testing.T) {
		t.Parallel()
		sc := scenario{prompts: []string{"first", "second"}, args: []string{"--no-tools"},
			settings: map[string]any{"compaction": map[string]any{"keepRecentTokens": 1}},
			turns:    []llmtest.Turn{{Text: "First answer."}, {Fault: llmtest.ContextOverflow}, {Text: "## Goal\nsummary"}, {Text: "After compaction."}}}
		_, code, _, cwd := runPigoScenario(t, sc)
		files := sessionFiles(t, filepath.Dir(cwd))
		if code != 0 || len(files) != 1 {
			t.Fatalf("pigo exit %d, session files %v", code, files)
		}
		srv := llmtest.New(t)
		srv.Push(llmtest.Turn{Text: "Resumed."})
		out, stderr, _ := srv.RunPi(t, llmtest.PiRun{Args: []string{"--no-tools", "--session", files[0], "--mode", "json", "-p", "third"}})
		if len(srv.Requests()) != 1 {
			t.Fatalf("pi did not resume: %s\n%s", out, stderr)
		}
		var body struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		json.Unmarshal(srv.Requests()[0].Body, &body)
		var roles []string
		for _, m := range body.Messages[1:] {
			roles = append(roles, m.Role)
		}
		// The summary (as a user message), the kept prompt, its reply, the new prompt.
		if !reflect.DeepEqual(roles, []string{"user", "user", "assistant", "user"}) ||
			!strings.Contains(string(body.Messages[1].Content), "compacted into the following summary") {
			t.Fatalf("pi's context after pigo's compaction: %v %s", roles, body.Messages[1].Content)
		}
	})
	t.Run("pigo resumes pi", func(t *testing.T) {
		t.Parallel()
		srv := llmtest.New(t)
		srv.Push(first.turns...)
		_, stderr, piCwd := srv.RunPi(t, llmtest.PiRun{Args: []string{"--tools", "read", "--mode", "json", "-p", "read a.txt"}, Files: first.files})
		files := sessionFiles(t, filepath.Dir(piCwd))
		if len(files) != 1 {
			t.Fatalf("pi wrote %d session files (%s)", len(files), stderr)
		}
		again := scenario{prompts: []string{"again"}, args: []string{"--tools", "read"}, turns: []llmtest.Turn{{Text: "Resumed."}}}
		lines, code, reqs, _ := runPigoScenario(t, again, "--session", files[0])
		if code != 0 || len(reqs) != 1 {
			t.Fatalf("pigo exit %d, %d requests: %v", code, len(reqs), lines)
		}
		if got := requestRoles(reqs[0].Body); !reflect.DeepEqual(got, want) {
			t.Fatalf("pigo sent %v, want %v", got, want)
		}
		// pigo appended to pi's file, and pi can still read it.
		srv2 := llmtest.New(t)
		srv2.Push(llmtest.Turn{Text: "Third."})
		out, _, _ := srv2.RunPi(t, llmtest.PiRun{Args: []string{"--tools", "read", "--session", files[0], "--mode", "json", "-p", "third"}})
		if got := requestRoles(srv2.Requests()[0].Body); len(got) != 7 {
			t.Fatalf("pi after pigo sent %v (%s)", got, out)
		}
	})
}

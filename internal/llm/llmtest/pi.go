package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// PiRun describes one run of the real pi against a Server.
type PiRun struct {
	// API is the models.json api of the "local" provider (default openai-completions).
	API string
	// Model is the models.json model entry (default {"id":"m"}); it is given the api's base
	// URL through the provider entry.
	Model map[string]any
	// Provider adds fields to the "local" provider entry (apiKey defaults to "k").
	Provider map[string]any
	// Settings is written as settings.json in the agent dir when set.
	Settings map[string]any
	// Args are pi's arguments after --provider local --model <id>, e.g. "--tools", "ls",
	// "--no-session", "-p", "list files".
	Args []string
	// Files are created in the working directory before the run.
	Files map[string]string
	// BaseURL replaces the provider's baseUrl (for example a real provider's URL reached
	// through Env HTTP_PROXY=<server URL>, which pi honours, to exercise detection by URL).
	BaseURL string
	// Env adds environment variables.
	Env []string
}

// BaseURL is the base URL pi's providers are given for api: URL+"/v1" (the Anthropic SDK adds
// /v1 itself, so anthropic-messages gets URL).
func (s *Server) BaseURL(api string) string {
	switch api {
	case AnthropicMessages:
		return s.URL
	case CodexResponses:
		return s.URL + "/backend-api"
	case GoogleAI:
		return s.URL + "/v1beta"
	case GoogleVertex, Bedrock:
		return s.URL
	case Mistral:
		return s.URL + "/mistral"
	}
	return s.URL + "/v1"
}

// RunPi runs the real pi 0.84.3 (skipping when it is not installed) with a fresh agent dir
// and HOME, and returns its stdout, its stderr and the working directory used. The model is
// provider "local" in models.json, pointed at the server.
func (s *Server) RunPi(t testing.TB, run PiRun) (stdout, stderr string, cwd string) {
	t.Helper()
	pi := pitest.Find(t)
	api := run.API
	if api == "" {
		api = OpenAICompletions
	}
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	cwd = filepath.Join(home, "work")
	for _, d := range []string{agent, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mdl := run.Model
	if mdl == nil {
		mdl = map[string]any{"id": "m"}
	}
	base := run.BaseURL
	if base == "" {
		base = s.BaseURL(api)
	}
	prov := map[string]any{"baseUrl": base, "api": api, "apiKey": "k", "models": []any{mdl}}
	for k, v := range run.Provider {
		prov[k] = v
	}
	writeJSON(t, filepath.Join(agent, "models.json"), map[string]any{"providers": map[string]any{"local": prov}})
	if run.Settings != nil {
		writeJSON(t, filepath.Join(agent, "settings.json"), run.Settings)
	}
	for name, body := range run.Files {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"--provider", "local", "--model", mdl["id"].(string)}, run.Args...)
	cmd := pi.Command(args...)
	cmd.Dir = cwd
	var env []string
	for _, e := range os.Environ() {
		if k, _, _ := strings.Cut(e, "="); strings.HasSuffix(k, "_API_KEY") || k == "HOME" || k == "PI_CODING_AGENT_DIR" || strings.HasSuffix(k, "_proxy") || strings.HasSuffix(k, "_PROXY") {
			continue
		}
		env = append(env, e)
	}
	cmd.Env = append(append(env, "HOME="+home, "PI_CODING_AGENT_DIR="+agent, "PI_OFFLINE=1", "NO_COLOR=1"), run.Env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	return out.String(), errb.String(), cwd
}

func writeJSON(t testing.TB, path string, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// PiAssistant is one assistant message of a pi --mode json run: the assistantMessageEvent
// types of its message_update lines, in order, and the message of its message_end.
type PiAssistant struct {
	Events  []string
	Message json.RawMessage
}

// PiAssistants picks the assistant messages out of pi's --mode json output.
func PiAssistants(stdout string) []PiAssistant {
	var out []PiAssistant
	var cur *PiAssistant
	for _, line := range strings.Split(stdout, "\n") {
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				Role string `json:"role"`
			} `json:"message"`
			AssistantMessageEvent struct {
				Type string `json:"type"`
			} `json:"assistantMessageEvent"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || (ev.Message.Role != "assistant" && ev.Type != "message_update") {
			continue
		}
		switch ev.Type {
		case "message_start":
			out = append(out, PiAssistant{})
			cur = &out[len(out)-1]
		case "message_update":
			if cur != nil {
				cur.Events = append(cur.Events, ev.AssistantMessageEvent.Type)
			}
		case "message_end":
			if cur != nil {
				var full struct {
					Message json.RawMessage `json:"message"`
				}
				_ = json.Unmarshal([]byte(line), &full)
				cur.Message = full.Message
				cur = nil
			}
		}
	}
	return out
}

// DiffAssistant says how pigo's stream of one assistant message (its events and final
// message) differs from pi's, timestamps aside; "" when they agree. The message is compared
// as JSON values, so key order does not matter.
func DiffAssistant(pi PiAssistant, events []llm.Event, msg *llm.Message) string {
	var types []string
	for _, e := range events {
		if e.Type != llm.EventDone && e.Type != llm.EventError && e.Type != llm.EventStart {
			types = append(types, e.Type)
		}
	}
	// pi's JSON mode shows "start" as message_start, the rest as message_update lines (0.84
	// prints no partial message in them), and done/error as message_end.
	var piTypes []string
	for _, t := range pi.Events {
		if t != llm.EventDone && t != llm.EventError && t != llm.EventStart {
			piTypes = append(piTypes, t)
		}
	}
	var diffs []string
	if strings.Join(types, " ") != strings.Join(piTypes, " ") {
		diffs = append(diffs, fmt.Sprintf("events:\n pigo %s\n pi   %s", strings.Join(types, " "), strings.Join(piTypes, " ")))
	}
	mine, _ := json.Marshal(msg)
	var a, b map[string]any
	_ = json.Unmarshal(mine, &a)
	_ = json.Unmarshal(pi.Message, &b)
	delete(a, "timestamp")
	delete(b, "timestamp")
	if !reflect.DeepEqual(a, b) {
		diffs = append(diffs, fmt.Sprintf("message:\n pigo %s\n pi   %s", mine, pi.Message))
	}
	return strings.Join(diffs, "\n")
}

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pigo-agent/pigo/internal/cli"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// The MCP differential test: the same mcp.json (the real server-everything from npm) and the
// same scripted model, once through the real pi 1.6.0 and once through pigo. What the model
// sees must match: the MCP tools in the tools array (names, descriptions, parameter schemas)
// and the tool-result messages sent back after MCP calls, modulo mcpDeliberate.
var mcpDeliberate = map[string]string{
	"temporary file names": "a result over 20 KB names the file with its full text: pi writes /tmp/pi-mcp-<hex>.txt, pigo /tmp/pigo-mcp-<hex>.txt; both are masked as <output-file>",
	"stdio sandbox":        "pigo runs the server inside bwrap (D25); the server's answers are the same, its environment is not (get-env is not compared)",
	"validation details":   "pigo's argument validation texts are pi 0.84.3's (D23: the seed era's tool texts); pi 1.6 words the per-field lines differently. The first line and the echoed arguments are compared, the field lines masked",
	"codemode line":        "pi 1.6's codemode (not the seed's, which pigo has: D21) appends \"Codemode: `tools.<name>(args)` resolves to …\" to the description of every declared tool a script can call; pigo's codemode declares its own call() overloads instead. The line is dropped before comparing",
	"server clock":         "server-everything writes the time a resource was created into its text; it is masked as <time>",
	"strict":               "pigo's openai-completions wire is pi 0.84.3's, which sends \"strict\":false in every function; pi 1.6 leaves it out for every tool (not an MCP difference): the key is dropped before comparing",
}

type mcpScenario struct {
	name    string
	servers map[string]any
	args    []string
	prompt  string
	turns   []llmtest.Turn
}

func mcpScenarios(every string) []mcpScenario {
	call := func(id, name, args string) llmtest.ToolCall { return llmtest.ToolCall{ID: id, Name: name, Args: args} }
	turn := func(calls ...llmtest.ToolCall) llmtest.Turn { return llmtest.Turn{ToolCalls: calls} }
	// The timeout bounds initialize too (pi's as pigo's), and node starting the server inside
	// bwrap on a loaded machine can take over a second: 3 s, with progress every 0.5 s.
	direct := map[string]any{"every": map[string]any{"command": every, "exposure": "direct", "timeout": 3}}
	return []mcpScenario{
		// Every kind of result a direct tool can give: text, structured content, an image,
		// resource links, a resource reference, an isError result with an image, a validation
		// error, and a long operation whose progress outlasts the 3 s timeout.
		{name: "direct-results", servers: direct, args: []string{"--tools", "read,mcp__every__*"}, prompt: "results",
			turns: []llmtest.Turn{
				turn(call("call_1", "mcp__every__echo", `{"message":"hi"}`), call("call_2", "mcp__every__get_sum", `{"a":2,"b":3}`)),
				turn(call("call_3", "mcp__every__get_structured_content", `{"location":"New York"}`), call("call_4", "mcp__every__get_tiny_image", `{}`)),
				turn(call("call_5", "mcp__every__get_resource_links", `{"count":2}`), call("call_6", "mcp__every__get_resource_reference", `{"resourceType":"Text","resourceId":9999}`)),
				turn(call("call_7", "mcp__every__get_annotated_message", `{"messageType":"error","includeImage":true}`), call("call_8", "mcp__every__get_sum", `{"a":"x"}`)),
				turn(call("call_9", "mcp__every__trigger_long_running_operation", `{"duration":5,"steps":10}`)),
				{Text: "Done."}}},
		// Exposure: a hidden server exposing some tools directly and deferring others, and a
		// server with the default (codemode) exposure, whose tools are not declared.
		{name: "exposure", servers: map[string]any{
			"every": map[string]any{"command": every, "exposure": "hidden", "toolExposure": map[string]any{"echo": "direct", "get-*": "deferred", "get-sum": "direct"}},
			"quiet": map[string]any{"command": every}},
			prompt: "exposure", turns: []llmtest.Turn{{Text: "Done."}}},
		// tool_search loads a deferred tool, which is declared from the next request on.
		{name: "deferred-tool-search", servers: map[string]any{"every": map[string]any{"command": every, "exposure": "deferred"}},
			args: []string{"--tools", "read,tool_search"}, prompt: "search",
			turns: []llmtest.Turn{turn(call("call_1", "tool_search", `{"query":"sum of two numbers","limit":1}`)), turn(call("call_2", "mcp__every__get_sum", `{"a":1,"b":2}`)), {Text: "Done."}}},
		// The resource tools of a direct server.
		{name: "resources", servers: map[string]any{"every": map[string]any{"command": every, "exposure": "direct"}},
			args: []string{"--tools", "read,list_mcp_resources,list_mcp_resource_templates,read_mcp_resource"}, prompt: "resources",
			turns: []llmtest.Turn{turn(call("call_1", "read_mcp_resource", `{"server":"every","uri":"demo://resource/static/document/architecture.md"}`),
				call("call_2", "list_mcp_resource_templates", `{"server":"every"}`)), {Text: "Done."}}},
	}
}

// mcpWorld is one run's HOME, agent dir and working directory.
type mcpWorld struct {
	home, agent, cwd string
}

func newMCPWorld(t *testing.T, srv *llmtest.Server, servers map[string]any) mcpWorld {
	home := t.TempDir()
	w := mcpWorld{home: home, agent: filepath.Join(home, ".pi", "agent"), cwd: filepath.Join(home, "work")}
	for _, d := range []string{w.agent, w.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeJSONFile(t, filepath.Join(w.agent, "models.json"), map[string]any{"providers": map[string]any{"local": map[string]any{
		"baseUrl": srv.BaseURL(llmtest.OpenAICompletions), "api": llmtest.OpenAICompletions, "apiKey": "k", "models": []any{map[string]any{"id": "m"}}}}})
	writeJSONFile(t, filepath.Join(w.agent, "mcp.json"), map[string]any{"mcpServers": servers})
	return w
}

func runPi16MCP(t *testing.T, pi pitest.Pi, sc mcpScenario) []llmtest.Request {
	srv := llmtest.New(t)
	srv.Push(sc.turns...)
	w := newMCPWorld(t, srv, sc.servers)
	args := append(append([]string{"--provider", "local", "--model", "m", "--no-session"}, sc.args...), "--mode", "json", "-p", sc.prompt)
	cmd := pi.Command(args...)
	cmd.Dir = w.cwd
	var env []string
	for _, e := range os.Environ() {
		if k, _, _ := strings.Cut(e, "="); strings.HasSuffix(k, "_API_KEY") || k == "HOME" || k == "PI_CODING_AGENT_DIR" || k == "PATH" || strings.HasSuffix(k, "_proxy") || strings.HasSuffix(k, "_PROXY") {
			continue
		}
		env = append(env, e)
	}
	cmd.Env = append(env, "HOME="+w.home, "PI_CODING_AGENT_DIR="+w.agent, "PI_OFFLINE=1", "NO_COLOR=1",
		"PATH="+pitest.NodeDir()+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Logf("pi: %v\n%s", err, errb.String())
	}
	return srv.Requests()
}

func runPigoMCP(t *testing.T, sc mcpScenario) []llmtest.Request {
	srv := llmtest.New(t)
	srv.Push(sc.turns...)
	w := newMCPWorld(t, srv, sc.servers)
	env := map[string]string{"HOME": w.home, "PI_CODING_AGENT_DIR": w.agent, "NO_COLOR": "1",
		"PATH": pitest.NodeDir() + string(os.PathListSeparator) + os.Getenv("PATH"), "PIGO_CACHE_DIR": filepath.Join(w.home, "cache")}
	var stdout, stderr bytes.Buffer
	c := &cli.CLI{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }}
	args := append(append([]string{"-C", w.cwd, "--provider", "local", "--model", "m", "--no-session"}, sc.args...), "--mode", "json", "-p", sc.prompt)
	if code := c.Main(args); code != 0 {
		t.Logf("pigo exit %d: %s", code, stderr.String())
	}
	return srv.Requests()
}

var validationRe = regexp.MustCompile(`(Validation failed for tool \\"[^\\]*\\":)(?:\\n  - [^\\]*(?:\\.[^\\]*)*?)+(\\n\\nReceived arguments)`)

// codemodeLineRe is pi 1.6's codemode note at the end of a declared tool's description.
var codemodeLineRe = regexp.MustCompile("\\\\n\\\\nCodemode: `tools\\.[A-Za-z0-9_]+\\(args\\)` resolves to [^\"]*")

// clockRe is a time of day a server writes into its answers (server-everything's resources).
var clockRe = regexp.MustCompile(`\d{1,2}:\d{2}:\d{2} [AP]M`)

var outputFileRe = regexp.MustCompile(`/tmp/pig?o?-mcp-[0-9a-f]{16}\.txt|/tmp/pi-mcp-[0-9a-f]{16}\.txt`)

// mcpView is what the comparison looks at in one request: the MCP tools declared, and the
// tool-result messages.
type mcpView struct {
	Tools   []json.RawMessage
	Results []json.RawMessage
}

func isMCPName(n string) bool {
	return strings.HasPrefix(n, "mcp__") || n == "list_mcp_resources" || n == "list_mcp_resource_templates" || n == "read_mcp_resource" || n == "tool_search"
}

func viewOf(t *testing.T, r llmtest.Request) mcpView {
	var body struct {
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(r.Body, &raw)
	var v mcpView
	for i, tl := range body.Tools {
		if isMCPName(tl.Function.Name) {
			tl := bytes.ReplaceAll(raw.Tools[i], []byte(`,"strict":false`), nil)
			v.Tools = append(v.Tools, json.RawMessage(codemodeLineRe.ReplaceAll(tl, nil)))
		}
	}
	for _, m := range body.Messages {
		var role struct {
			Role string `json:"role"`
		}
		_ = json.Unmarshal(m, &role)
		if role.Role == "tool" || role.Role == "user" && bytes.Contains(m, []byte(`"image_url"`)) {
			m = outputFileRe.ReplaceAll(m, []byte("<output-file>"))
			m = validationRe.ReplaceAll(m, []byte("$1<field lines>$2"))
			m = clockRe.ReplaceAll(m, []byte("<time>"))
			v.Results = append(v.Results, json.RawMessage(m))
		}
	}
	return v
}

func TestMCPDifferentialPi16(t *testing.T) {
	if !mcpServersInstalled() {
		t.Skip("the MCP servers are not installed: run scripts/install-pi.sh (needs the npm registry)")
	}
	pi := pitest.FindVersion(t, pitest.Version16)
	every := filepath.Join(pitest.Dir(), "tools", "node_modules", ".bin", "mcp-server-everything")
	for _, sc := range mcpScenarios(every) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			piReqs := runPi16MCP(t, pi, sc)
			pigoReqs := runPigoMCP(t, sc)
			if len(piReqs) != len(pigoReqs) {
				t.Fatalf("pi made %d requests, pigo %d", len(piReqs), len(pigoReqs))
			}
			for i := range piReqs {
				a, b := viewOf(t, piReqs[i]), viewOf(t, pigoReqs[i])
				if d := cmp.Diff(jsonStrings(a.Tools), jsonStrings(b.Tools)); d != "" {
					t.Errorf("request %d: MCP tools (-pi +pigo):\n%s", i, d)
				}
				if d := cmp.Diff(jsonStrings(a.Results), jsonStrings(b.Results)); d != "" {
					t.Errorf("request %d: tool results (-pi +pigo):\n%s", i, d)
				}
			}
		})
	}
}

func jsonStrings(list []json.RawMessage) []string {
	out := make([]string, len(list))
	for i, r := range list {
		out[i] = string(r)
	}
	return out
}

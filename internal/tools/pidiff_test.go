package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/pitest"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// diffCall is one tool call both pi and pigo run.
type diffCall struct{ name, args string }

// diffCalls cover pi's built-ins (find is left out: pi needs fd, which it would download).
// They run in order on one fixture, so later calls see earlier edits.
var diffCalls = []diffCall{
	{"read", `{"path":"a.txt"}`},
	{"read", `{"path":"a.txt","offset":2,"limit":1}`},
	{"read", `{"path":"a.txt","offset":"0","limit":"2"}`},
	{"read", `{"path":"a.txt","offset":10}`},
	{"read", `{"path":"a.txt","limit":0}`},
	{"read", `{"path":"big.txt"}`},
	{"read", `{"path":"big.txt","offset":2400}`},
	{"read", `{"path":"wide.txt"}`},
	{"read", `{"path":"bytes.txt"}`},
	{"read", `{"path":"missing.txt"}`},
	{"read", `{"path":"dir"}`},
	{"read", `{"path":"latin1.txt"}`},
	{"read", `{"path":"bom.txt"}`},
	{"read", `{"path":"crlf.txt"}`},
	{"read", `{"path":"tabs.go","offset":2}`},
	{"read", `{"path":"img.png"}`},
	{"read", `{"path":"@a.txt"}`},
	{"read", `{}`},
	{"read", `{"path":"a.txt","offset":"x"}`},
	{"ls", `{}`},
	{"ls", `{"path":"dir"}`},
	{"ls", `{"path":"dir","limit":2}`},
	{"ls", `{"path":"missing"}`},
	{"ls", `{"path":"a.txt"}`},
	{"ls", `{"path":"dir/empty"}`},
	{"grep", `{"pattern":"two"}`},
	{"grep", `{"pattern":"TWO","ignoreCase":true,"path":"a.txt"}`},
	{"grep", `{"pattern":"t(w","literal":true}`},
	{"grep", `{"pattern":"line 2","context":1,"path":"big.txt","limit":2}`},
	{"grep", `{"pattern":"nothing-matches-this"}`},
	{"grep", `{"pattern":"x{3}","path":"long.txt"}`},
	{"grep", `{"pattern":"hidden","glob":"*.md"}`},
	{"grep", `{"pattern":"caf","path":"latin1.txt"}`},
	{"grep", `{"pattern":"b","path":"crlf.txt"}`},
	{"grep", `{"pattern":"(","path":"a.txt"}`},
	{"grep", `{"pattern":"x","path":"missing"}`},
	{"edit", `{"path":"crlf.txt","edits":[{"oldText":"b\nc","newText":"B\nC"}]}`},
	{"edit", `{"path":"bom.txt","oldText":"world","newText":"there"}`},
	{"edit", `{"path":"multi.txt","edits":[{"oldText":"alpha","newText":"ALPHA"},{"oldText":"gamma","newText":"GAMMA"}]}`},
	{"edit", `{"path":"multi.txt","edits":"[{\"oldText\":\"beta\",\"newText\":\"BETA\"}]"}`},
	{"edit", `{"path":"multi.txt","edits":{"oldText":"delta","newText":"DELTA"}}`},
	{"edit", `{"path":"multi.txt","edits":[{"oldText":"nope","newText":"x"}]}`},
	{"edit", `{"path":"multi.txt","edits":[{"oldText":"ALPHA","newText":"a"},{"oldText":"nope","newText":"x"}]}`},
	{"edit", `{"path":"dup.txt","edits":[{"oldText":"same","newText":"x"}]}`},
	{"edit", `{"path":"dup.txt","edits":[{"oldText":"one same","newText":"x"},{"oldText":"same\ntwo","newText":"y"}]}`},
	{"edit", `{"path":"dup.txt","edits":[{"oldText":"one","newText":"one"}]}`},
	{"edit", `{"path":"dup.txt","edits":[{"oldText":"","newText":"x"}]}`},
	{"edit", `{"path":"missing.txt","edits":[{"oldText":"a","newText":"b"}]}`},
	{"edit", `{"path":"fuzzy.txt","edits":[{"oldText":"say \"hi\" - ok\nnext","newText":"say hello\nnext"}]}`},
	{"edit", `{"path":"tabs.go","edits":[{"oldText":"\treturn 1","newText":"\treturn 2"}]}`},
	{"edit", `{"path":"multi.txt","edits":[]}`},
	{"edit", `{"path":5,"edits":[{"oldText":1}]}`},
	{"write", `{"path":"new/deep/x.txt","content":"héllo 👋\n"}`},
	{"write", `{"path":"a.txt","content":""}`},
	{"write", `{"path":"dir","content":"x"}`},
	{"read", `{"path":"new/deep/x.txt"}`},
	{"bash", `{"command":"echo hi; echo err >&2"}`},
	{"bash", `{"command":"printf 'no newline'"}`},
	{"bash", `{"command":"true"}`},
	{"bash", `{"command":"echo out; exit 3"}`},
	{"bash", `{"command":"exit 4"}`},
	{"bash", `{"command":"seq 1 3000"}`},
	{"bash", `{"command":"head -c 60000 /dev/zero | tr '\\0' a"}`},
	{"bash", `{"command":"for i in $(seq 1 2000); do echo 0123456789012345678901234567890; done"}`},
	{"bash", `{"command":"echo before; sleep 30","timeout":2}`}, // 2 s: under load a sandboxed bash may not print within 0.5 s
	{"bash", `{"command":"echo x","timeout":-1}`},
	{"bash", `{"command":"cat crlf.txt; cat multi.txt"}`},
	{"bash", `{"command":"seq 1 300000"}`},
	{"bash", `{"command":"printf 'caf\\351\\n\\377\\376 end\\n'"}`},
	{"bash", `{"command":"echo partial; printf 'no newline at the end'; exit 1"}`},
	{"read", `{"path":"linkdir/b.md"}`},
	{"ls", `{"path":"linkdir"}`},
	{"read", `{"path":"dangling"}`},
	{"edit", `{"path":"mlink.txt","edits":[{"oldText":"ALPHA","newText":"via link"}]}`},
	{"write", `{"path":"linkdir/new.txt","content":"through a symlinked dir\n"}`},
	{"grep", `{"pattern":"through"}`},
	{"read", `{"path":"multi.txt"}`},
	{"nope", `{}`},
}

// fixture writes the same files into dir for both agents.
func fixture(t *testing.T, dir string) {
	t.Helper()
	var big strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var pngBuf bytes.Buffer
	png.Encode(&pngBuf, img)
	files := map[string]string{
		"a.txt":          "one\ntwo\nthree\n",
		"big.txt":        big.String(),
		"wide.txt":       strings.Repeat("w", 60*1024) + "\nshort\n",
		"bytes.txt":      strings.Repeat("0123456789abcdef\n", 4000),
		"latin1.txt":     "caf\xe9 cr\xe8me\n",
		"bom.txt":        "\ufeffhello\nworld\n",
		"crlf.txt":       "a\r\nb\r\nc\r\n",
		"tabs.go":        "package x\n\nfunc f() int {\n\treturn 1\n}\n",
		"img.png":        pngBuf.String(),
		"long.txt":       strings.Repeat("x", 700) + "\n",
		"multi.txt":      "alpha\nbeta\ngamma\ndelta\n",
		"dup.txt":        "one same\nsame\ntwo\n",
		"fuzzy.txt":      "say \u201chi\u201d \u2014 ok  \nnext\nlast\n",
		"dir/b.md":       "# hidden text\n",
		"dir/.hidden":    "x\n",
		"dir/Zeta.txt":   "z\n",
		"dir/_under.txt": "u\n",
		"dir/sub/c.txt":  "c\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(dir, "dir", "empty"), 0o755)
	for link, target := range map[string]string{"linkdir": "dir", "mlink.txt": "multi.txt", "dangling": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
}

// scriptServer is a loopback OpenAI-compatible server that answers turn i with tool call i
// and, after the last one, with text.
type scriptServer struct {
	URL   string
	calls []diffCall
	// tools is the tool list of the first request, as pi sent it.
	tools json.RawMessage
	// before, when set, runs before the server answers with tool call i.
	before func(i int)
}

func newScriptServer(t *testing.T, calls []diffCall) *scriptServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ss := &scriptServer{URL: "http://" + ln.Addr().String() + "/v1", calls: calls}
	var mu sync.Mutex
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		b, _ := io.ReadAll(r.Body)
		var body struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
			Tools json.RawMessage `json:"tools"`
		}
		json.Unmarshal(b, &body)
		if ss.tools == nil {
			ss.tools = body.Tools
		}
		i := 0
		for _, m := range body.Messages {
			if m.Role == "tool" {
				i++
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(v string) { fmt.Fprintf(w, "data: %s\n\n", v) }
		if i < len(ss.calls) {
			if ss.before != nil {
				ss.before(i)
			}
			c := ss.calls[i]
			args, _ := json.Marshal(c.args)
			chunk(fmt.Sprintf(`{"id":"r%d","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":%q,"arguments":%s}}]},"finish_reason":null}]}`, i, i, c.name, args))
			chunk(fmt.Sprintf(`{"id":"r%d","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`, i))
		} else {
			chunk(`{"id":"rz","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"done"},"finish_reason":null}]}`)
			chunk(`{"id":"rz","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
		}
		chunk(`[DONE]`)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ss
}

// piResult is a tool_execution_end event of pi's JSON mode.
type piResult struct {
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	IsError    bool   `json:"isError"`
	Result     struct {
		Content json.RawMessage `json:"content"`
		Details json.RawMessage `json:"details"`
	} `json:"result"`
}

// runPiCalls runs the real pi on the script and returns its tool results in call order.
func runPiCalls(t *testing.T, pi pitest.Pi, ws string, calls []diffCall) ([]piResult, json.RawMessage) {
	ss := newScriptServer(t, calls)
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	os.MkdirAll(agent, 0o755)
	models := `{"providers":{"local":{"baseUrl":"` + ss.URL + `","api":"openai-completions","apiKey":"k","models":[{"id":"m"}]}}}`
	os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o644)
	cmd := pi.Command("--provider", "local", "--model", "m", "--tools", "read,bash,edit,write,grep,find,ls",
		"--mode", "json", "--no-session", "-p", "go")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "HOME="+home, "PI_CODING_AGENT_DIR="+agent, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pi: %v\n%s", err, stderr.String())
	}
	byID := map[string]piResult{}
	for _, line := range bytes.Split(out, []byte("\n")) {
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &ev) != nil || ev.Type != "tool_execution_end" {
			continue
		}
		var r piResult
		json.Unmarshal(line, &r)
		byID[r.ToolCallID] = r
	}
	var res []piResult
	for i := range calls {
		r, ok := byID[fmt.Sprintf("call_%d", i)]
		if !ok {
			t.Fatalf("pi ran no call %d (%s %s)\n%s", i, calls[i].name, calls[i].args, stderr.String())
		}
		res = append(res, r)
	}
	return res, ss.tools
}

var (
	spillPath    = regexp.MustCompile(`Full output: [^\]"]+`)
	piSpillName  = regexp.MustCompile(`/pi-bash-[0-9a-f]{16}\.log$`)
	fullOutputIn = regexp.MustCompile(`Full output: ([^\]\n]+)\]`)
)

// normalise hides what legitimately differs: the workspace path and the spill file.
func normalise(s, ws string) string {
	s = strings.ReplaceAll(s, ws, "$WS")
	return spillPath.ReplaceAllLiteralString(s, "Full output: $SPILL")
}

func canon(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var v any
	json.Unmarshal(raw, &v)
	if m, ok := v.(map[string]any); ok {
		if p, ok := m["fullOutputPath"].(string); ok && p != "" {
			m["fullOutputPath"] = "$SPILL"
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestBuiltinsAgainstPi runs the same calls on the same files through the real pi 0.84.3
// (driven by a scripted loopback model) and through pigo, and requires the same results:
// content byte for byte, the error flag, and the details (modulo the workspace path and the
// spill file's name).
func TestBuiltinsAgainstPi(t *testing.T) {
	pi := pitest.Find(t)
	piWS, goWS := tempWS(t), tempWS(t)
	fixture(t, piWS)
	fixture(t, goWS)
	want, piTools := runPiCalls(t, pi, piWS, diffCalls)

	e := newEnvAt(t, goWS)
	// pi's models.json model takes text only (input defaults to ["text"]).
	e.runner.Session.Model = &llm.Model{Provider: "local", ID: "m", Input: []string{"text"}}
	for i, c := range diffCalls {
		got := e.runner.Run(context.Background(), toolrun.Call{ID: fmt.Sprintf("call_%d", i), Name: c.name, Arguments: json.RawMessage(c.args)}, nil)
		w := want[i]
		gotContent, _ := json.Marshal(got.Content)
		label := fmt.Sprintf("call %d %s %s", i, c.name, c.args)
		if g, wc := normalise(string(gotContent), goWS), normalise(string(w.Result.Content), piWS); g != wc {
			t.Errorf("%s: content\n got %s\nwant %s", label, g, wc)
		}
		if got.IsError != w.IsError {
			t.Errorf("%s: is_error %v, pi %v", label, got.IsError, w.IsError)
		}
		// bash's full-output file is named and placed as pi places it: the OS temp
		// directory, pi-bash-<16 hex>.log, and it holds the whole output.
		if c.name == "bash" {
			var piContent []llm.Content
			json.Unmarshal(w.Result.Content, &piContent)
			for who, content := range map[string][]llm.Content{"pi": piContent, "pigo": got.Content} {
				for _, c := range content {
					m := fullOutputIn.FindStringSubmatch(c.Text)
					if m == nil {
						continue
					}
					if !piSpillName.MatchString(m[1]) || filepath.Dir(m[1]) != filepath.Clean(os.TempDir()) {
						t.Errorf("%s: %s's full-output file %s is not <temp dir>/pi-bash-<hex>.log", label, who, m[1])
					} else if fi, err := os.Stat(m[1]); err != nil || fi.Size() == 0 {
						t.Errorf("%s: %s's full-output file: %v", label, who, err)
					}
				}
			}
		}
		gd, wd := normalise(canon(got.Details), goWS), normalise(canon(w.Result.Details), piWS)
		if gd != wd {
			t.Errorf("%s: details\n got %s\nwant %s", label, gd, wd)
		}
	}
	// The model sees the same tool list: names, descriptions and schemas, byte for byte.
	var sent []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	json.Unmarshal(piTools, &sent)
	mine := map[string]llm.Tool{}
	for _, tl := range e.runner.LLMTools() {
		mine[tl.Name] = tl
	}
	if len(sent) != 7 {
		t.Errorf("pi sent %d tools", len(sent))
	}
	for _, f := range sent {
		m, ok := mine[f.Function.Name]
		var compact bytes.Buffer
		json.Compact(&compact, f.Function.Parameters)
		if !ok || m.Description != f.Function.Description || string(m.Parameters) != compact.String() {
			t.Errorf("tool %s: pigo %q %s\npi %q %s", f.Function.Name, m.Description, m.Parameters, f.Function.Description, compact.String())
		}
	}
	// The files end up the same.
	filepath.Walk(piWS, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(piWS, p)
		if info.Mode()&os.ModeSymlink != 0 {
			a, _ := os.Readlink(p)
			b, _ := os.Readlink(filepath.Join(goWS, rel))
			if a != b {
				t.Errorf("symlink %s: pi → %s, pigo → %s", rel, a, b)
			}
			return nil
		}
		a, _ := os.ReadFile(p)
		b, err := os.ReadFile(filepath.Join(goWS, rel))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs after the calls: pi %q, pigo %q (%v)", rel, trim(a), trim(b), err)
		}
		return nil
	})
}

func trim(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

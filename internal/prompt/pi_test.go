package prompt

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// recorder is a loopback OpenAI-compatible server that records request bodies and streams
// one short text reply.
type recorder struct {
	URL    string
	mu     sync.Mutex
	bodies []map[string]any
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{URL: "http://" + ln.Addr().String() + "/v1"}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		rec.mu.Lock()
		rec.bodies = append(rec.bodies, body)
		rec.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"r\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":null}]}\n\n")
		fmt.Fprint(w, "data: {\"id\":\"r\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return rec
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixture is a home with an agent dir and a project two levels deep, with context files,
// skills and an append prompt.
type fixture struct {
	home, agent, root, cwd, pkg string
}

func newFixture(t *testing.T, rec *recorder) *fixture {
	base := t.TempDir()
	f := &fixture{home: filepath.Join(base, "home"), root: filepath.Join(base, "proj")}
	f.agent = filepath.Join(f.home, ".pi", "agent")
	f.cwd = filepath.Join(f.root, "sub")
	write(t, filepath.Join(f.agent, "models.json"), `{"providers":{"local":{"baseUrl":"`+rec.URL+`","api":"openai-completions","apiKey":"k","models":[{"id":"m"}]}}}`)
	write(t, filepath.Join(f.agent, "AGENTS.md"), "\ufeffGlobal rules.\n")
	write(t, filepath.Join(f.agent, "APPEND_SYSTEM.md"), "Appended from the agent dir.")
	write(t, filepath.Join(f.agent, "skills", "demo", "SKILL.md"), "---\nname: demo\ndescription: Demo <skill> & \"quotes\" 'too'\n---\n# Demo\n\nDo the demo.\n")
	write(t, filepath.Join(f.agent, "skills", "hidden", "SKILL.md"), "---\nname: hidden\ndescription: Not for the model\ndisable-model-invocation: true\n---\nHidden body.\n")
	write(t, filepath.Join(f.root, "CLAUDE.md"), "Root instructions.")
	write(t, filepath.Join(f.cwd, "AGENTS.override.md"), "Override wins.\n")
	write(t, filepath.Join(f.cwd, "AGENTS.md"), "Not read: the override is first.\n")
	return f
}

func (f *fixture) env() []string {
	return append(os.Environ(), "HOME="+f.home, "PI_CODING_AGENT_DIR="+f.agent, "PI_OFFLINE=1",
		"PI_SKIP_VERSION_CHECK=1", "NO_COLOR=1", "PI_PACKAGE_DIR="+f.pkg)
}

// piSystemPrompt runs the real pi and returns the system message it sent.
func piSystemPrompt(t *testing.T, pi pitest.Pi, rec *recorder, f *fixture, args ...string) string {
	t.Helper()
	n := len(rec.bodies)
	cmd := pi.Command(append([]string{"--provider", "local", "--model", "m", "--no-session"}, append(args, "-p", "hi")...)...)
	cmd.Env = f.env()
	cmd.Dir = f.cwd
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pi: %v\n%s", err, out)
	}
	if len(rec.bodies) != n+1 {
		t.Fatalf("pi made %d requests", len(rec.bodies)-n)
	}
	msgs := rec.bodies[n]["messages"].([]any)
	m := msgs[0].(map[string]any)
	if m["role"] != "system" {
		t.Fatalf("first message role %v", m["role"])
	}
	return m["content"].(string)
}

// pigoOptions resolves the same configuration with pigo's engine and returns the prompt
// options a session would use.
func pigoOptions(t *testing.T, f *fixture, tools []string) Options {
	t.Helper()
	getenv := func(k string) string {
		switch k {
		case "HOME":
			return f.home
		case "PI_CODING_AGENT_DIR":
			return f.agent
		case "PI_PACKAGE_DIR":
			return f.pkg
		}
		return ""
	}
	no := false
	cfg, err := config.Load(config.Options{AgentDir: f.agent, ProjectDir: f.cwd, Home: f.home, Getenv: getenv, Approve: &no})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Resolve(config.ResolveOptions{Tools: tools, Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	o := FromResolution(res.Tools, res.Commands)
	o.Cwd, o.AgentDir, o.Getenv = f.cwd, f.agent, getenv
	return o
}

// TestSystemPromptAsPi compares pigo's system prompt with the one the real pi 0.84 sends, in
// the same directories, for the default prompt, a custom prompt and no context files.
func TestSystemPromptAsPi(t *testing.T) {
	pi := pitest.Find(t)
	t.Parallel()
	cases := []struct {
		name   string
		piArgs []string
		tools  []string
		adjust func(*Options)
	}{
		// edit is left out until toolsets/pi.cue carries pi's exact edit guidelines (the
		// toolrun branch has them); its lines come from the catalogue, not from this package.
		{"default", []string{"--tools", "read,bash,write,grep"}, []string{"read", "bash", "write", "grep"}, nil},
		{"no-read-no-skills", []string{"--tools", "bash"}, []string{"bash"}, nil},
		{"custom-and-append", []string{"--tools", "read", "--system-prompt", "Custom base.", "--append-system-prompt", "extra.md", "--append-system-prompt", "Second append."},
			[]string{"read"}, func(o *Options) {
				o.SystemPrompt = "Custom base."
				o.AppendSystemPrompt = []string{"extra.md", "Second append."}
			}},
		{"no-context-files", []string{"--tools", "read,ls", "-nc"}, []string{"read", "ls"}, func(o *Options) { o.NoContextFiles = true }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(t)
			f := newFixture(t, rec)
			// pi reads its themes from its package dir, so the docs block points at the real one.
			f.pkg = filepath.Dir(filepath.Dir(pi.CLI))
			write(t, filepath.Join(f.cwd, "extra.md"), "Appended from a file.")
			want := piSystemPrompt(t, pi, rec, f, c.piArgs...)
			o := pigoOptions(t, f, c.tools)
			if c.adjust != nil {
				c.adjust(&o)
			}
			got := Build(o).Text
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("system prompt differs from pi's (-pi +pigo):\n%s", diff)
			}
		})
	}
}

// TestExpansionAsPi sends templates and skills through the real pi and compares the user
// message it sent with pigo's expansion.
func TestExpansionAsPi(t *testing.T) {
	pi := pitest.Find(t)
	t.Parallel()
	rec := newRecorder(t)
	f := newFixture(t, rec)
	f.pkg = filepath.Dir(filepath.Dir(pi.CLI))
	write(t, filepath.Join(f.agent, "prompts", "review.md"), "---\ndescription: Review\nargument-hint: <files>\n---\nReview $1 then ${2:-nothing} ($#) all=[$@] rest=[${@:2}] two=[${@:2:2}] zero=[${@:0}] args=[$ARGUMENTS] none=[$9] d=[${@:-empty}]\n")
	write(t, filepath.Join(f.agent, "prompts", "plain.md"), "\n  No frontmatter: $1\n\n")
	cases := []string{
		`/review a "b c" 'd e' f`,
		"/review",
		"/review\tx\ny",
		"/plain  one two",
		"/skill:demo",
		"/skill:demo   please   do it  ",
		"/skill:nope x",
		"/unknown thing",
		"not a command",
	}
	// One pi process sends every case as its own prompt (print mode takes several messages);
	// each request's last message is that case's expansion.
	n := len(rec.bodies)
	cmd := pi.Command(append([]string{"--provider", "local", "--model", "m", "--no-session", "--tools", "read", "-p"}, cases...)...)
	cmd.Env = f.env()
	cmd.Dir = f.cwd
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pi: %v\n%s", err, out)
	}
	if len(rec.bodies)-n != len(cases) {
		t.Fatalf("pi made %d requests for %d prompts", len(rec.bodies)-n, len(cases))
	}
	o := pigoOptions(t, f, []string{"read"})
	if len(o.Skills) != 2 || o.Skills[0].Description == "" {
		t.Fatalf("skills from the resolution: %+v", o.Skills)
	}
	r := &Resolver{Commands: commandsOf(t, f), Skills: o.Skills}
	for i, in := range cases {
		msgs := rec.bodies[n+i]["messages"].([]any)
		content := msgs[len(msgs)-1].(map[string]any)["content"].([]any)
		want := content[0].(map[string]any)["text"].(string)
		got, err := r.Expand(in)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got.Text); diff != "" {
			t.Errorf("%q: expansion differs from pi's (-pi +pigo):\n%s", in, diff)
		}
	}
}

func commandsOf(t *testing.T, f *fixture) []engine.CommandEntry {
	no := false
	getenv := func(k string) string { return map[string]string{"HOME": f.home, "PI_CODING_AGENT_DIR": f.agent}[k] }
	cfg, err := config.Load(config.Options{AgentDir: f.agent, ProjectDir: f.cwd, Home: f.home, Getenv: getenv, Approve: &no})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cfg.Resolve(config.ResolveOptions{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	return res.Commands.Commands
}

// TestArgsAsPi runs pi's own parseCommandArgs and substituteArgs on tricky inputs and
// compares with ParseArgs and SubstituteArgs.
func TestArgsAsPi(t *testing.T) {
	pi := pitest.Find(t)
	t.Parallel()
	argsIn := []string{"", "a", "  a  b  ", `"a b" c`, `'a "b" c' d`, `x"y"z`, `"unclosed`, `'`, "tab\tsep\nnl", "\u00a0nbsp\u00a0x", "\u2028ls", "\ufeffbom", `a\ b`, `""`, `"" x ''`, "é ü 漢字", `--flag="a b"`}
	tmpls := []string{"$1", "$2|$3", "$@", "$ARGUMENTS", "${1:-d}", "${4:-}", "${@:-none}", "${ARGUMENTS:-z}", "${@:2}", "${@:0}", "${@:1:1}", "${@:2:0}", "${@:9:2}", "$10", "$0", "$$1", "${x}", "$arguments", "${1}", "${@:1:}", "a$1b${2:-c}d"}
	dir := t.TempDir()
	pt := filepath.Join(filepath.Dir(pi.CLI), "core", "prompt-templates.js")
	in, _ := json.Marshal(map[string]any{"args": argsIn, "tmpls": tmpls})
	os.WriteFile(filepath.Join(dir, "in.json"), in, 0o644)
	script := `
import { parseCommandArgs, substituteArgs } from "file://` + pt + `";
import { readFileSync } from "node:fs";
const { args, tmpls } = JSON.parse(readFileSync(process.argv[2], "utf8"));
console.log(JSON.stringify(args.map(a => { const p = parseCommandArgs(a); return { parsed: p, out: tmpls.map(t => substituteArgs(t, p)) }; })));
`
	sp := filepath.Join(dir, "a.mjs")
	os.WriteFile(sp, []byte(script), 0o644)
	out, err := exec.Command(pi.Node, sp, filepath.Join(dir, "in.json")).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var want []struct {
		Parsed []string
		Out    []string
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for i, a := range argsIn {
		p := ParseArgs(a)
		if !cmp.Equal(p, want[i].Parsed, cmpopts.EquateEmpty()) {
			t.Errorf("ParseArgs(%q) = %q, pi %q", a, p, want[i].Parsed)
			continue
		}
		for j, tm := range tmpls {
			if got := SubstituteArgs(tm, p); got != want[i].Out[j] {
				t.Errorf("SubstituteArgs(%q, %q) = %q, pi %q", tm, p, got, want[i].Out[j])
			}
		}
	}
}

// TestContextFilesAsPi compares LoadContextFiles with pi's loadProjectContextFiles in a
// nested linked worktree, a sibling worktree, a directory named AGENTS.md and a CLAUDE.md.
func TestContextFilesAsPi(t *testing.T) {
	pi := pitest.Find(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	t.Parallel()
	base := t.TempDir()
	main := filepath.Join(base, "repo")
	agent := filepath.Join(base, "agent")
	write(t, filepath.Join(agent, "CLAUDE.md"), "agent")
	write(t, filepath.Join(main, "AGENTS.md"), "main")
	write(t, filepath.Join(base, "CLAUDE.MD"), "base")
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(main, "init", "-q")
	git(main, "add", ".")
	git(main, "commit", "-qm", "x")
	git(main, "worktree", "add", "-q", filepath.Join(main, "wt"))
	git(main, "worktree", "add", "-q", filepath.Join(base, "sibling"))
	os.MkdirAll(filepath.Join(main, "wt", "deep", "AGENTS.md"), 0o755) // a directory: skipped
	write(t, filepath.Join(main, "wt", "deep", "AGENTS.MD"), "deep")
	rl := filepath.Join(filepath.Dir(pi.CLI), "core", "resource-loader.js")
	script := `
import { loadProjectContextFiles } from "file://` + rl + `";
const agentDir = process.argv[2];
console.log(JSON.stringify(process.argv.slice(3).map(cwd => loadProjectContextFiles({ cwd, agentDir }))));
`
	sp := filepath.Join(base, "c.mjs")
	os.WriteFile(sp, []byte(script), 0o644)
	cwds := []string{filepath.Join(main, "wt", "deep"), filepath.Join(main, "wt"), main, filepath.Join(base, "sibling")}
	out, err := exec.Command(pi.Node, append([]string{sp, agent}, cwds...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var all [][]ContextFile
	if err := json.Unmarshal(out, &all); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for i, cwd := range cwds {
		want := all[i]
		got, _ := LoadContextFiles(agent, cwd)
		if !cmp.Equal(got, want) {
			t.Errorf("%s:\n got %+v\n  pi %+v", cwd, got, want)
		}
	}
}

package chat

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain removes the binaries pigoBinary built (48 MB a run) when the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// pigoBinary builds the real binary once for all terminal tests.
func pigoBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pigo-chat-e2e")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "pigo")
		// pigo and, beside it as installed, its engines helper (web_fetch, codemode and talk need it).
		out, err := exec.Command("go", "build", "-o", dir+"/", "github.com/pigo-agent/pigo/cmd/pigo", "github.com/pigo-agent/pigo/cmd/pigo-engines").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// term is one pigo chat on a real terminal (tmux) against a scripted model server.
type term struct {
	t          *testing.T
	tmux, sock string
	srv        *llmtest.Server
	dir, proj  string
	home       string
	cfg        termCfg
	w, h       int
}

// termCfg says how a chat starts.
type termCfg struct {
	// args are pigo's arguments (default --no-session).
	args []string
	// settings is settings.json (default: the local model, no retries).
	settings string
	// keys is keybindings.json ("" none).
	keys string
	// extended turns tmux's extended keys on (Shift+Enter, Ctrl+Shift+F … reach the chat).
	extended bool
	// shell starts an interactive bash and types the command (for job control: Ctrl+Z, fg).
	shell bool
	// env adds environment variables.
	env []string
	// files are more files to write before the chat starts, by path relative to HOME.
	files map[string]string
}

// newTerm starts `pigo --no-session` in tmux at w×h in a fresh project with the scripted turns.
func newTerm(t *testing.T, w, h int, turns ...llmtest.Turn) *term {
	return startTerm(t, w, h, termCfg{}, turns...)
}

// startTerm starts pigo in tmux at w×h as cfg says.
func startTerm(t *testing.T, w, h int, cfg termCfg, turns ...llmtest.Turn) *term {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed: skipping the end-to-end terminal test (install tmux to run it)")
	}
	if testing.Short() {
		t.Skip("-short: skipping the end-to-end terminal test (it builds the binary)")
	}
	bin := pigoBinary(t)
	srv := llmtest.New(t)
	srv.Push(turns...)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(home, "proj") // the footer shows it as ~/proj
	agentDir := filepath.Join(home, ".pi", "agent")
	for _, d := range []string{agentDir, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	models := map[string]any{"providers": map[string]any{"local": map[string]any{
		"baseUrl": srv.BaseURL(llmtest.OpenAICompletions), "api": llmtest.OpenAICompletions, "apiKey": "k",
		"models": []any{map[string]any{"id": "m", "contextWindow": 100000,
			"cost": map[string]any{"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0}}}}}}
	b, _ := json.Marshal(models)
	write(t, filepath.Join(agentDir, "models.json"), string(b))
	if cfg.settings == "" {
		// aft and the GitHub tools are disabled: without their programs (the usual test
		// machine) each session would start with their notices (TestE2EStartNotices), which
		// would move every screen these tests read.
		cfg.settings = `{"defaultProvider": "local", "defaultModel": "m", "retry": {"enabled": false}, ` + quietToolsets + `}`
	}
	write(t, filepath.Join(agentDir, "settings.json"), cfg.settings)
	if cfg.keys != "" {
		write(t, filepath.Join(agentDir, "keybindings.json"), cfg.keys)
	}
	for name, text := range cfg.files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, p, text)
	}
	if cfg.args == nil {
		cfg.args = []string{"--no-session"}
	}
	tm := &term{t: t, tmux: tmux, sock: fmt.Sprintf("pigo-chat-%d-%d", os.Getpid(), time.Now().UnixNano()), srv: srv,
		dir: dir, proj: proj, home: home, cfg: cfg, w: w, h: h}
	t.Cleanup(func() {
		killTmux(tmux, tm.sock)
		// The killed processes may still be closing their files (talk's database, a shell's
		// history): clear the directory once they are gone, before TempDir's own removal.
		for i := 0; i < 60 && os.RemoveAll(dir) != nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
	})
	go0 := filepath.Join(dir, "go")
	env := fmt.Sprintf("env -i HOME=%q PATH=%q TERM=xterm-256color NO_COLOR=1 %s", home, os.Getenv("PATH"), strings.Join(cfg.env, " "))
	pigo := fmt.Sprintf("%s %q %s", env, bin, quoteArgs(cfg.args))
	if cfg.shell {
		// An interactive shell owns the terminal (job control); the command is typed once the
		// shell is ready.
		tm.run("new-session", "-d", "-s", "e2e", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-c", proj,
			"env -i HOME="+home+" PATH="+os.Getenv("PATH")+" TERM=xterm-256color HISTFILE=/dev/null PS1='shell> ' bash --norc --noprofile -i")
		if cfg.extended {
			tm.run("set", "-g", "extended-keys", "on")
		}
		tm.waitFor("shell>")
		tm.keys("-l", pigo+"; echo EXIT=$?")
		tm.keys("Enter")
		return tm
	}
	// The shell waits for tmux to give the pane its size (and the extended-keys option), so
	// pigo starts at w×h with the terminal set up.
	shell := fmt.Sprintf("until [ \"$(stty size)\" = \"%d %d\" ] && [ -e %q ]; do sleep 0.05; done; cd %q && %s; echo EXIT=$?; sleep 600",
		h, w, go0, proj, pigo)
	tm.run("new-session", "-d", "-s", "e2e", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), shell)
	if cfg.extended {
		tm.run("set", "-g", "extended-keys", "on")
	}
	write(t, go0, "")
	return tm
}

// killTmux stops the tmux server on socket sock and removes the socket file, which tmux 3.3's
// kill-server leaves in /tmp/tmux-UID (2,400 of them had gathered here from the tests).
func killTmux(tmux, sock string) {
	path, _ := exec.Command(tmux, "-L", sock, "display-message", "-p", "#{socket_path}").Output()
	_ = exec.Command(tmux, "-L", sock, "kill-server").Run()
	if p := strings.TrimSpace(string(path)); p != "" {
		os.Remove(p)
	}
}

func quoteArgs(args []string) string {
	var out []string
	for _, a := range args {
		out = append(out, fmt.Sprintf("%q", a))
	}
	return strings.Join(out, " ")
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (tm *term) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command(tm.tmux, append([]string{"-L", tm.sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (tm *term) screen() string { return tm.run("capture-pane", "-p", "-t", "e2e") }

// waitFor polls the screen until it shows every text (a deadline, not a timing assertion).
func (tm *term) waitFor(what ...string) string {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := tm.screen()
		ok := true
		for _, w := range what {
			ok = ok && strings.Contains(s, w)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen never showed %q:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stable waits for the texts, then until two captures 150 ms apart agree (a frame may be
// half drawn when captured), and returns that screen.
func (tm *term) stable(what ...string) string {
	tm.t.Helper()
	// The spinner's frame depends on timing: every frame is compared as "*".
	mask := func(s string) string {
		for _, f := range spinner {
			s = strings.ReplaceAll(s, f, "*")
		}
		return s
	}
	prev := mask(tm.waitFor(what...))
	for i := 0; i < 100; i++ {
		time.Sleep(150 * time.Millisecond)
		s := mask(tm.screen())
		if s == prev {
			return s
		}
		prev = s
	}
	return prev
}

// idle waits until the chat is not working (the editor's border has no working indicator).
func (tm *term) idle() {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for strings.Contains(tm.screen(), "Working") || strings.Contains(tm.screen(), "Running command") {
		if time.Now().After(deadline) {
			tm.t.Fatalf("the chat never finished:\n%s", tm.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (tm *term) keys(ks ...string) { tm.run(append([]string{"send-keys", "-t", "e2e"}, ks...)...) }

// ready waits until the chat has drawn its footer at the terminal's width.
func (tm *term) ready() string {
	tm.t.Helper()
	return tm.waitFor("(auto)", "proj")
}

// editor is the editor's text as the screen shows it: the lines between its two borders,
// trailing spaces trimmed.
func (tm *term) editor() string {
	return editorOf(tm.screen())
}

// waitEditor waits until the editor shows want.
func (tm *term) waitEditor(want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := tm.screen()
		if editorOf(s) == want {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the editor never showed %q (shows %q):\n%s", want, editorOf(s), s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func editorOf(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	border := func(l string) bool {
		l = strings.TrimSpace(l)
		return l != "" && strings.HasPrefix(l, "──") && (strings.Trim(l, "─") == "" || strings.Contains(l, " more ") || strings.Contains(l, "Working") || strings.Contains(l, "Running"))
	}
	bottom := -1
	for i := len(lines) - 1; i >= 0; i-- {
		if border(lines[i]) {
			bottom = i
			break
		}
	}
	if bottom < 0 {
		return "<no editor>"
	}
	top := -1
	for i := bottom - 1; i >= 0; i-- {
		if border(lines[i]) {
			top = i
			break
		}
	}
	if top < 0 {
		return "<no editor>"
	}
	var out []string
	for _, l := range lines[top+1 : bottom] {
		out = append(out, strings.TrimRight(l, " "))
	}
	return strings.Join(out, "\n")
}

// history is everything the pane holds: the terminal's scrollback and the screen.
func (tm *term) history() string {
	return tm.run("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", "e2e")
}

// typeLine types text literally and presses Enter.
func (tm *term) typeLine(text string) {
	tm.keys("-l", text)
	tm.keys("Enter")
}

// lastRequest is the body of the n-th request (0-based) the model received.
func (tm *term) request(n int) string {
	tm.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if reqs := tm.srv.Requests(); len(reqs) > n {
			return string(reqs[n].Body)
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the model never received request %d", n+1)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// outsideDir is a directory outside both the workspace and /tmp (where writes are free).
func outsideDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "pigo-chat-outside")
	if err != nil {
		t.Skipf("no directory outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func toolTurn(id, name, args string) llmtest.Turn {
	return llmtest.Turn{ToolCalls: []llmtest.ToolCall{{ID: id, Name: name, Args: args}}, Usage: llmtest.Usage{Input: 100, Output: 10}}
}

func textTurn(s string) llmtest.Turn {
	return llmtest.Turn{Text: s, Usage: llmtest.Usage{Input: 120, Output: 5}}
}

// The person approves a write outside the workspace: the dialog shows the reference's texts
// and the diff, the file is written, and the model sees the tool's success.
func TestE2EApproveWriteOutside(t *testing.T) {
	outside := filepath.Join(outsideDir(t), "outside.txt")
	tm := newTerm(t, 80, 24, toolTurn("c1", "Write", fmt.Sprintf(`{"file_path":%q,"content":"hello\n"}`, outside)), textTurn("Wrote it."))
	tm.ready()
	tm.typeLine("write the file")
	s := tm.waitFor("Model requests write access outside workspace:", "Approve once", "Block with reason", "+hello")
	if !strings.Contains(s, "Path:  "+outside) {
		t.Fatalf("the dialog does not name the path:\n%s", s)
	}
	tm.keys("Enter")
	tm.waitFor("Wrote it.")
	b, err := os.ReadFile(outside)
	if err != nil || string(b) != "hello\n" {
		t.Fatalf("file %q, %v", b, err)
	}
	if body := tm.request(1); strings.Contains(body, "user deny") {
		t.Fatalf("the model was told the write was denied: %s", body)
	}
}

// Block with reason: the reason input asks the reference question and the model gets
// `user deny <tool>: <reason>`; nothing is written.
func TestE2EBlockWithReason(t *testing.T) {
	outside := filepath.Join(outsideDir(t), "outside.txt")
	tm := newTerm(t, 80, 24, toolTurn("c1", "Write", fmt.Sprintf(`{"file_path":%q,"content":"x"}`, outside)), textTurn("Understood."))
	tm.ready()
	tm.typeLine("write it")
	tm.waitFor("Block with reason")
	tm.keys("Down", "Down", "Enter")
	tm.waitFor("Why was this write denied?")
	tm.typeLine("not there")
	tm.waitFor("Understood.")
	if body := tm.request(1); !strings.Contains(body, "user deny Write: not there") {
		t.Fatalf("the model did not get the reason: %s", body)
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Fatalf("the blocked file exists: %v", err)
	}
}

// Esc aborts a streaming answer: the run ends as aborted and the chat takes input again.
func TestE2EAbortMidStream(t *testing.T) {
	slow := llmtest.Turn{Text: strings.Repeat("word ", 200), Chunk: 8, Delay: 100 * time.Millisecond}
	tm := newTerm(t, 80, 24, slow, textTurn("Fresh answer."))
	tm.ready()
	tm.typeLine("talk")
	tm.waitFor("word word", "Working")
	tm.keys("Escape")
	tm.waitFor("Operation aborted")
	tm.typeLine("again")
	tm.waitFor("Fresh answer.")
}

// Enter while the agent works steers: the text is queued, shown, and delivered as the next
// user message of the same run.
func TestE2ESteer(t *testing.T) {
	slow := llmtest.Turn{Text: "first part of a long answer " + strings.Repeat(".", 100), Chunk: 64, Delay: 80 * time.Millisecond}
	tm := newTerm(t, 80, 24, slow, textTurn("Steered answer."))
	tm.ready()
	tm.typeLine("start")
	tm.waitFor("first part")
	tm.typeLine("use tabs instead")
	tm.waitFor("Steered answer.")
	if body := tm.request(1); !strings.Contains(body, "use tabs instead") {
		t.Fatalf("the steering message was not sent: %s", body)
	}
}

// AskUserQuestion: the picker shows the question and its options plus Other; the chosen
// option is the answer the model gets, with the reference's result text.
func TestE2EAnswerQuestion(t *testing.T) {
	q := `{"questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cold"}],"multiSelect":false}]}`
	tm := newTerm(t, 80, 24, toolTurn("c1", "AskUserQuestion", q), textTurn("Blue it is."))
	tm.ready()
	tm.typeLine("ask me")
	tm.waitFor("Colour: Which colour?", "Red", "Blue", "Other")
	tm.keys("Down", "Enter")
	tm.waitFor("Blue it is.")
	want := `User has answered your questions: \"Which colour?\"=\"Blue\". You can now continue with the user's answers in mind.`
	if body := tm.request(1); !strings.Contains(body, want) {
		t.Fatalf("the model did not get the answer %s:\n%s", want, body)
	}
}

// /rewind puts the conversation back before a prompt and the file the agent wrote back as
// it was; the preview names the file first.
func TestE2ERewindRestoresFile(t *testing.T) {
	tm := newTerm(t, 80, 24, toolTurn("c0", "Read", `{"file_path":"a.txt"}`),
		toolTurn("c1", "Write", `{"file_path":"a.txt","content":"changed\n"}`), textTurn("Changed it."))
	file := filepath.Join(tm.proj, "a.txt")
	write(t, file, "original\n")
	tm.ready()
	tm.typeLine("change the file")
	tm.waitFor("Changed it.")
	if b, _ := os.ReadFile(file); string(b) != "changed\n" {
		t.Fatalf("the agent did not write: %q", b)
	}
	tm.typeLine("/rewind")
	tm.waitFor("Rewind to before which prompt?", "change the file")
	tm.keys("Enter")
	tm.waitFor("Rewind conversation and files", "restore  "+file)
	tm.keys("Enter")
	s := tm.waitFor("file(s) restored")
	tm.waitEditor("change the file")
	if strings.Contains(s, "Changed it.") {
		t.Fatalf("the conversation was not rewound:\n%s", s)
	}
	if b, _ := os.ReadFile(file); string(b) != "original\n" {
		t.Fatalf("the file was not restored: %q", b)
	}
}

// The real terminal's screens at 80×24 and 160×45 (a question dialog and the finished turn)
// match the golden captures.
func TestE2EScreens(t *testing.T) {
	q := `{"questions":[{"question":"Which colour?","header":"Colour","options":[{"label":"Red","description":"warm"},{"label":"Blue","description":"cold"}],"multiSelect":false}]}`
	for _, size := range [][2]int{{80, 24}, {160, 45}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			answer := llmtest.Turn{Text: "## Done\n\nYou chose **Blue**:\n\n- sky\n- sea", Usage: llmtest.Usage{Input: 1500, Output: 40}}
			tm := newTerm(t, size[0], size[1], toolTurn("c1", "AskUserQuestion", q), answer)
			// The chat has its terminal's size once the rule spans the width.
			tm.ready()
			tm.waitFor(strings.Repeat("─", size[0]))
			tm.typeLine("pick a colour")
			screen := tm.stable("Colour: Which colour?", "Other")
			golden(t, fmt.Sprintf("screen-question-%dx%d", size[0], size[1]), screen)
			tm.keys("Down", "Enter")
			golden(t, fmt.Sprintf("screen-done-%dx%d", size[0], size[1]), tm.stable("- sea", "(auto)"))
		})
	}
}

// `!cmd` runs the person's command and shows its output; the model sees it in the next
// request's context, while `!!cmd` output stays out of it.
func TestE2EUserBash(t *testing.T) {
	tm := newTerm(t, 80, 24, textTurn("Seen."))
	tm.ready()
	// The outputs differ from the typed lines, so the screen shows when each has run.
	tm.typeLine("!echo vis$((1+1))ble")
	tm.waitFor("vis2ble")
	tm.idle()
	tm.typeLine("!!echo hid$((1+1))den")
	tm.waitFor("hid2den")
	tm.idle()
	tm.typeLine("what did I run?")
	tm.waitFor("Seen.")
	body := tm.request(0)
	if !strings.Contains(body, "vis2ble") || strings.Contains(body, "hid2den") {
		t.Fatalf("the context is wrong: %s", body)
	}
}

// /reload reads a models.json changed after the start; /model's selector, filtered by typing,
// switches to the new model: the footer names it and the next request goes to it.
func TestE2EReloadAndModel(t *testing.T) {
	tm := newTerm(t, 100, 24, textTurn("From m2."))
	tm.ready()
	agentDir := filepath.Join(tm.dir, "home", ".pi", "agent")
	models := map[string]any{"providers": map[string]any{"local": map[string]any{
		"baseUrl": tm.srv.BaseURL(llmtest.OpenAICompletions), "api": llmtest.OpenAICompletions, "apiKey": "k",
		"models": []any{map[string]any{"id": "m", "contextWindow": 100000}, map[string]any{"id": "m2", "contextWindow": 50000}}}}}
	b, _ := json.Marshal(models)
	write(t, filepath.Join(agentDir, "models.json"), string(b))
	tm.typeLine("/reload")
	tm.waitFor("Reloaded keybindings, extensions, skills, prompts, themes, and context files")
	tm.idle()
	tm.typeLine("/model")
	tm.waitFor("Select model", "local/m ✓")
	tm.keys("-l", "local/m2")
	tm.waitFor("Filter: local/m2")
	tm.keys("Enter")
	if s := tm.waitFor("Model: m2"); !strings.Contains(s, " m2\n") {
		t.Fatalf("the footer does not name m2:\n%s", s)
	}
	tm.idle()
	tm.typeLine("hello")
	tm.waitFor("From m2.")
	if body := tm.request(0); !strings.Contains(body, `"model":"m2"`) {
		t.Fatalf("the request did not go to m2: %s", body)
	}
}

// /tree goes back to before an earlier prompt: its text is in the editor and the transcript
// ends before it; sending it again starts a branch whose request lacks the abandoned reply.
func TestE2ETree(t *testing.T) {
	tm := newTerm(t, 100, 24, textTurn("Reply one."), textTurn("Reply two."), textTurn("Reply again."))
	tm.ready()
	tm.typeLine("first question")
	tm.waitFor("Reply one.")
	tm.idle()
	tm.typeLine("second question")
	tm.waitFor("Reply two.")
	tm.idle()
	tm.typeLine("/tree")
	tm.waitFor("Navigate session tree", "user: second question")
	tm.keys("-l", "second")
	tm.waitFor("Filter: second")
	tm.keys("Enter")
	s := tm.waitFor("Navigated to selected point")
	tm.waitEditor("second question")
	if strings.Contains(s, "Reply two.") {
		t.Fatalf("the abandoned reply is still shown:\n%s", s)
	}
	tm.keys("Enter")
	tm.waitFor("Reply again.")
	if body := tm.request(2); strings.Contains(body, "Reply two.") || !strings.Contains(body, "Reply one.") {
		t.Fatalf("the branch's context is wrong: %s", body)
	}
}

// /compact summarises the conversation through the model and says so; settings changed after
// the start take effect through /reload.
func TestE2ECompact(t *testing.T) {
	tm := newTerm(t, 100, 24, textTurn("A long reply "+strings.Repeat("words ", 100)),
		llmtest.Turn{Text: "## Goal\nthe summary"}, llmtest.Turn{Text: "prefix summary"})
	tm.ready()
	tm.typeLine("question " + strings.Repeat("more ", 100))
	tm.waitFor("A long reply")
	tm.idle()
	write(t, filepath.Join(tm.dir, "home", ".pi", "agent", "settings.json"),
		`{"defaultProvider": "local", "defaultModel": "m", "retry": {"enabled": false}, "compaction": {"keepRecentTokens": 10}}`)
	tm.typeLine("/reload")
	tm.waitFor("Reloaded keybindings")
	tm.idle()
	tm.typeLine("/compact")
	tm.waitFor("Compacting context (manual)…", "Compacted: ")
	if body := tm.request(1); !strings.Contains(body, "question more") {
		t.Fatalf("the summary request lacks the conversation: %s", body)
	}
}

// /fork from the second prompt: a new session with the first exchange, the prompt's text in
// the editor.
func TestE2EFork(t *testing.T) {
	tm := newTerm(t, 100, 24, textTurn("Reply one."), textTurn("Reply two."))
	tm.ready()
	tm.typeLine("first question")
	tm.waitFor("Reply one.")
	tm.idle()
	tm.typeLine("second question")
	tm.waitFor("Reply two.")
	tm.idle()
	tm.typeLine("/fork")
	tm.waitFor("Fork from which message?", "→ second question")
	tm.keys("Enter")
	s := tm.waitFor("Forked to new session")
	tm.waitEditor("second question")
	if strings.Contains(s, "Reply two.") || !strings.Contains(s, "Reply one.") {
		t.Fatalf("the fork shows the wrong conversation:\n%s", s)
	}
}

package chat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// The daily-driver scenarios of issue 23 on a real terminal (tmux), at the three sizes the
// issue names, against the scripted model: each checks the screen and what the model got.

var sizes = [][2]int{{40, 20}, {80, 24}, {200, 50}}

// userText is the text of the last user message of request n.
func (tm *term) userText(n int) string {
	tm.t.Helper()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(tm.request(n)), &body); err != nil {
		tm.t.Fatal(err)
	}
	for i := len(body.Messages) - 1; i >= 0; i-- {
		m := body.Messages[i]
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			return s
		}
		var parts []struct{ Text string }
		_ = json.Unmarshal(m.Content, &parts)
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// The editor edits: the "first line⏎second line" plus two edits reached the model as
// `first linesecond linXZ`. Left, Ctrl+A, Home/End, words, kills and yank act where the
// cursor is; Shift+Enter (tmux extended keys) and Ctrl+J add a line.
func TestE2EEditing(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			tm := startTerm(t, sz[0], sz[1], termCfg{extended: true}, textTurn("One."), textTurn("Two."))
			tm.ready()
			tm.keys("-l", "first line")
			tm.keys("S-Enter")
			tm.keys("-l", "second line")
			tm.keys("Left", "Left", "X", "C-a", "Z")
			tm.waitEditor("first line\nZsecond liXne")
			tm.keys("Enter")
			tm.waitFor("One.")
			if got := tm.userText(0); got != "first line\nZsecond liXne" {
				t.Fatalf("the model got %q", got)
			}
			tm.idle()
			// Word motion, Ctrl+W, Ctrl+K, Ctrl+Y, Ctrl+J, Home/End, Backspace mid-line.
			tm.keys("-l", "alpha beta gamma")
			tm.keys("C-w", "M-b", "C-k", "C-y", "C-y", "End", "C-j")
			tm.keys("-l", "delta")
			tm.keys("Home", "Right", "BSpace")
			tm.waitEditor("alpha beta beta\nelta")
			tm.keys("Enter")
			tm.waitFor("Two.")
			if got := tm.userText(1); got != "alpha beta beta \nelta" {
				t.Fatalf("the model got %q", got)
			}
		})
	}
}

// Graphemes: Backspace takes a whole ZWJ emoji, Left steps over a CJK character, and the
// frame stays whole (no stray cells) at every size.
func TestE2EGraphemes(t *testing.T) {
	tm := startTerm(t, 40, 20, termCfg{}, textTurn("家族 👨‍👩‍👧 ok"))
	tm.ready()
	tm.keys("-l", "a👨‍👩‍👧中文b")
	// Left over b, Backspace takes 文, Left over 中, Backspace takes the whole family.
	tm.keys("Left", "BSpace", "Left", "BSpace")
	tm.waitEditor("a中b")
	tm.keys("Enter")
	s := tm.waitFor("家族")
	if got := tm.userText(0); got != "a中b" {
		t.Fatalf("the model got %q", got)
	}
	for _, l := range strings.Split(s, "\n") {
		if w := len([]rune(l)); w > 40 {
			t.Fatalf("a line wider than the screen: %q", l)
		}
	}
}

// A pasted 60-line block shows as pi's marker and reaches the model byte for byte, newlines
// and all (it reached it as one line joined by \r).
func TestE2EPaste(t *testing.T) {
	var lines []string
	for i := 1; i <= 60; i++ {
		lines = append(lines, fmt.Sprintf("line %02d\tof the paste", i))
	}
	block := strings.Join(lines, "\n")
	tm := newTerm(t, 80, 24, textTurn("Pasted."))
	tm.ready()
	tm.keys("-l", "look: ")
	buf := filepath.Join(tm.dir, "paste.txt")
	write(t, buf, block)
	tm.run("load-buffer", "-b", "p", buf)
	tm.run("paste-buffer", "-p", "-b", "p", "-t", "e2e")
	tm.waitEditor("look: [paste #1 +60 lines]")
	tm.keys("-l", " end")
	tm.keys("Enter")
	tm.waitFor("Pasted.")
	want := "look: " + strings.ReplaceAll(block, "\t", "    ") + " end"
	if got := tm.userText(0); got != want {
		t.Fatalf("the model got\n%q\nwant\n%q", got, want)
	}
}

// Prompt history: Up brings back earlier prompts; it is kept with the session, so `pigo -c`
// has it again.
func TestE2EHistory(t *testing.T) {
	tm := startTerm(t, 80, 24, termCfg{args: []string{}}, textTurn("A."), textTurn("B."), textTurn("C."))
	tm.ready()
	tm.typeLine("first prompt")
	tm.waitFor("A.")
	tm.idle()
	tm.typeLine("second prompt")
	tm.waitFor("B.")
	tm.idle()
	tm.keys("Up")
	tm.waitEditor("second prompt")
	tm.keys("Up")
	tm.waitEditor("first prompt")
	tm.keys("Down")
	tm.waitEditor("second prompt")
	tm.keys("Down")
	tm.waitEditor("")
	tm.keys("C-c", "C-c")
	tm.waitFor("To resume this session:", "EXIT=0")
	// -c: the same session, its prompts in the history.
	tm3 := tm.again([]string{"-c"})
	tm3.ready()
	tm3.keys("Up")
	tm3.waitEditor("second prompt")
	tm3.keys("Enter")
	tm3.waitFor("C.")
}

// again starts pigo again in the same home and project (a new tmux server), with args.
func (tm *term) again(args []string) *term {
	t := tm.t
	t.Helper()
	n := &term{t: t, tmux: tm.tmux, sock: tm.sock + "-2", srv: tm.srv, dir: tm.dir, proj: tm.proj, home: tm.home, cfg: tm.cfg, w: tm.w, h: tm.h}
	n.cfg.args = args
	t.Cleanup(func() { killTmux(n.tmux, n.sock) })
	env := fmt.Sprintf("env -i HOME=%q PATH=%q TERM=xterm-256color NO_COLOR=1", tm.home, os.Getenv("PATH"))
	shell := fmt.Sprintf("until [ \"$(stty size)\" = \"%d %d\" ]; do sleep 0.05; done; cd %q && %s %q %s; echo EXIT=$?; sleep 600",
		tm.h, tm.w, tm.proj, env, pigoBinary(t), quoteArgs(args))
	n.run("new-session", "-d", "-s", "e2e", "-x", fmt.Sprint(tm.w), "-y", fmt.Sprint(tm.h), shell)
	return n
}

// Exit: Ctrl+C clears the editor; two Ctrl+C exit; Ctrl+D exits on an empty editor and deletes
// a character otherwise; the transcript stays in the terminal with pi's resume line.
func TestE2EExit(t *testing.T) {
	for _, mode := range []string{"fullscreen", "regular"} {
		t.Run(mode, func(t *testing.T) {
			tm := startTerm(t, 80, 24, termCfg{args: []string{"--tui-mode", mode}}, textTurn("The answer is 42."))
			tm.ready()
			tm.typeLine("question")
			tm.waitFor("The answer is 42.")
			tm.idle()
			tm.keys("-l", "draft")
			tm.keys("C-c")
			tm.waitEditor("")
			time.Sleep(600 * time.Millisecond) // past the double-press window: the next press only clears
			tm.keys("C-c")
			if s := tm.stable("(auto)"); strings.Contains(s, "EXIT=") {
				t.Fatalf("one Ctrl+C on an empty editor quit:\n%s", s)
			}
			tm.keys("-l", "ab")
			tm.keys("Left", "C-d")
			tm.waitEditor("a")
			tm.keys("C-u", "C-d")
			s := tm.waitFor("EXIT=0", "To resume this session:")
			if !strings.Contains(tm.history(), "The answer is 42.") {
				t.Fatalf("the transcript is gone after exit:\n%s", s)
			}
			if !regexp.MustCompile(`pigo --session [0-9a-f-]{36}`).MatchString(s) {
				t.Fatalf("no resume command:\n%s", s)
			}
			// pi leaves the footer whole and prints the resume line right under it.
			if !regexp.MustCompile(`\(auto\)\s+m[^\n]*\nTo resume this session:\n`).MatchString(tm.history()) {
				t.Fatalf("the footer's last line is not right above the resume line:\n%s", tm.history())
			}
		})
	}
}

// Regular mode: finished entries go into the terminal's own scrollback (tmux's history holds
// them while the chat runs), and a resize redraws them at the new width without duplicates.
func TestE2ERegularScrollback(t *testing.T) {
	long := textTurn("## Long answer\n\n" + strings.Repeat("A line of the long answer.\n\n", 30) + "The end.")
	tm := startTerm(t, 80, 24, termCfg{args: []string{"--no-session", "--tui-mode", "regular"}}, long)
	tm.ready()
	tm.typeLine("tell me a lot")
	tm.waitFor("The end.")
	tm.idle()
	if n := strings.TrimSpace(tm.run("display", "-p", "-t", "e2e", "#{history_size}")); n == "0" {
		t.Fatal("nothing went into the terminal's scrollback")
	}
	h := tm.history()
	if !strings.Contains(h, "Long answer") || !strings.Contains(h, "tell me a lot") {
		t.Fatalf("the scrollback lacks the transcript:\n%s", h)
	}
	if alt := strings.TrimSpace(tm.run("display", "-p", "-t", "e2e", "#{alternate_on}")); alt != "0" {
		t.Fatal("regular mode uses the alternate screen")
	}
	tm.run("resize-window", "-t", "e2e", "-x", "50", "-y", "20")
	tm.waitFor(strings.Repeat("─", 50) + "\n")
	time.Sleep(300 * time.Millisecond)
	h = tm.history()
	if n := strings.Count(h, "tell me a lot"); n != 1 {
		t.Fatalf("after the resize the prompt shows %d times:\n%s", n, h)
	}
	if n := strings.Count(h, "pigo v"); n != 1 {
		t.Fatalf("after the resize the header shows %d times:\n%s", n, h)
	}
	for _, l := range strings.Split(h, "\n") {
		if len([]rune(l)) > 50 {
			t.Fatalf("a line wider than the new width: %q", l)
		}
	}
}

// Fullscreen: PageUp scrolls the transcript (with the jump-back mark), Ctrl+End follows
// again, Ctrl+Up jumps to a prompt, Ctrl+Shift+F searches.
func TestE2EFullscreenScroll(t *testing.T) {
	long := textTurn(strings.Repeat("Filler line of the answer.\n\n", 40) + "Needle here.\n\n" + strings.Repeat("More filler.\n\n", 20) + "Bottom line.")
	tm := startTerm(t, 80, 24, termCfg{extended: true}, textTurn("Short first answer."), long)
	tm.ready()
	tm.typeLine("first prompt")
	tm.waitFor("Short first answer.")
	tm.idle()
	tm.typeLine("second prompt")
	tm.waitFor("Bottom line.")
	tm.idle()
	tm.keys("PPage")
	s := tm.waitFor("Jump to latest message")
	if strings.Contains(s, "Bottom line.") {
		t.Fatalf("PageUp did not scroll:\n%s", s)
	}
	tm.keys("C-End")
	tm.waitFor("Bottom line.")
	tm.keys("C-Up")
	tm.waitFor("second prompt", "Jump to latest message")
	tm.keys("C-End")
	tm.waitFor("Bottom line.")
	tm.keys("C-S-f")
	tm.waitFor("Search:")
	tm.keys("-l", "needle")
	s = tm.waitFor("Needle here.", "1/1")
	if strings.Contains(s, "Bottom line.") {
		t.Fatalf("the search did not scroll to the match:\n%s", s)
	}
	tm.keys("Escape")
	if strings.Contains(tm.stable("(auto)"), "Search:") {
		t.Fatal("Escape did not close the search")
	}
}

// Markdown: a table with box drawing, emphasis without markers, fenced code with its fence,
// links as "text (url)" outside terminals that show hyperlinks.
func TestE2EMarkdown(t *testing.T) {
	md := "Some *italic* and **bold** with `code`.\n\n| Name | Count |\n|------|------:|\n| alpha | 1 |\n| beta | 22 |\n\n```go\nfunc main() {}\n```\n\nSee [docs](https://example.com/d)."
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			tm := startTerm(t, sz[0], sz[1], termCfg{args: []string{"--no-session", "--tui-mode", "regular"}}, textTurn(md))
			tm.ready()
			tm.typeLine("format")
			tm.stable("└")
			s := tm.history()
			for _, want := range []string{"Some italic and bold with code.", "┌───────┬───────┐", "│ alpha │ 1     │", "```go", "func main() {}", "docs (https://example.com/d)"} {
				if !strings.Contains(s, want) {
					t.Fatalf("missing %q:\n%s", want, s)
				}
			}
			if strings.Contains(s, "**") || strings.Contains(s, "`code`") {
				t.Fatalf("Markdown markers left:\n%s", s)
			}
		})
	}
}

// A bash card shows the command, the last lines of its output after a count of the earlier
// ones, and the duration; Ctrl+O expands it.
func TestE2EBashCard(t *testing.T) {
	cmd := `for i in $(seq 1 30); do echo out$i; done; echo FAILED at the end`
	tm := newTerm(t, 80, 40, toolTurn("c1", "bash", fmt.Sprintf(`{"command":%q}`, cmd)), textTurn("Done."))
	tm.ready()
	tm.typeLine("run it")
	s := tm.waitFor("Done.", "FAILED at the end")
	for _, want := range []string{"$ for i in", "... (26 earlier lines, ctrl+o to expand)", "out30", "Took "} {
		if !strings.Contains(s, want) {
			t.Fatalf("missing %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "out1\n") {
		t.Fatalf("the head of the output is shown collapsed:\n%s", s)
	}
	tm.keys("C-o")
	tm.keys("PPage")
	s = tm.waitFor("out1\n")
	if strings.Contains(s, "earlier lines") {
		t.Fatalf("Ctrl+O did not expand:\n%s", s)
	}
}

// The footer: cwd, usage, cost and context; at 40 columns it wraps instead of dropping the
// cost; usage survives an abort, comes back with -c and starts at zero after /new.
func TestE2EFooter(t *testing.T) {
	slow := llmtest.Turn{Text: strings.Repeat("word ", 300), Chunk: 16, Delay: 80 * time.Millisecond}
	first := llmtest.Turn{Text: "First.", Usage: llmtest.Usage{Input: 12000, Output: 3000}}
	tm := startTerm(t, 40, 20, termCfg{args: []string{}}, first, slow, textTurn("After."))
	tm.ready()
	tm.typeLine("hello")
	s := tm.waitFor("First.", "↑12k", "↓3.0k", "$0.018")
	if !strings.Contains(s, "12.0%/100k") && !strings.Contains(s, "15.0%/100k") {
		t.Fatalf("no context figure:\n%s", s)
	}
	tm.idle()
	tm.typeLine("go on")
	tm.waitFor("word word", "Working")
	tm.keys("Escape")
	s = tm.waitFor("Operation aborted")
	if !strings.Contains(s, "↑12k") || !strings.Contains(s, "$0.018") {
		t.Fatalf("the usage was reset by the abort:\n%s", s)
	}
	tm.idle()
	tm.keys("C-d")
	tm.waitFor("EXIT=0")
	again := tm.again([]string{"-c"})
	s = again.ready()
	if !strings.Contains(s, "↑12k") {
		t.Fatalf("-c lost the usage:\n%s", s)
	}
	again.typeLine("/new")
	s = again.waitFor("New session started")
	if strings.Contains(s, "↑12k") {
		t.Fatalf("/new kept the old usage:\n%s", s)
	}
}

// The header names pigo and its version, with the key hints; a broken keybindings.json is a
// start-up warning with its position, and a rebinding works.
func TestE2EHeaderAndKeybindings(t *testing.T) {
	keys := "{\n  \"tui.editor.cursorLineStart\": [\"ctrl+a\", \"ctrl+q\"],\n  \"app.nope\": \"ctrl+x\",\n  \"app.exit\": [\"hyper+q\"]\n}"
	tm := startTerm(t, 200, 24, termCfg{keys: keys}, textTurn("ok"))
	s := tm.ready()
	for _, want := range []string{"pigo v", "escape interrupt", "/ commands", "keybindings.json:4:", "hyper+q"} {
		if !strings.Contains(s, want) {
			t.Fatalf("missing %q:\n%s", want, s)
		}
	}
	tm.keys("-l", "world")
	tm.keys("C-q")
	tm.keys("-l", "hello ")
	tm.waitEditor("hello world")
}

// Commands pi has run: /thinking, /session, /hotkeys, /export.
func TestE2ECommands(t *testing.T) {
	tm := startTerm(t, 100, 40, termCfg{args: []string{"--no-session", "--tui-mode", "regular"}}, textTurn("Answer."))
	tm.ready()
	tm.typeLine("question")
	tm.waitFor("Answer.")
	tm.idle()
	tm.keys("/")
	tm.waitFor("→ ")
	tm.keys("-l", "sessio")
	tm.waitFor("→ session")
	tm.keys("Enter")
	tm.waitFor("Session Info", "Messages", "User: 1", "Per model", "local/m")
	tm.typeLine("/hotkeys")
	tm.waitFor("Suspend to background")
	if h := tm.history(); !strings.Contains(h, "Navigation") || !strings.Contains(h, "ctrl+a") {
		t.Fatalf("/hotkeys lacks the navigation keys:\n%s", h)
	}
	out := filepath.Join(tm.proj, "out.jsonl")
	tm.typeLine("/export out.jsonl")
	tm.waitFor("Session exported to: " + out)
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), `"type":"session"`) || !strings.Contains(string(b), "Answer.") {
		t.Fatalf("export: %v\n%s", err, b)
	}
	tm.typeLine("/export page.html")
	tm.waitFor("page.html")
	if b, err := os.ReadFile(filepath.Join(tm.proj, "page.html")); err != nil || !strings.Contains(string(b), "<html") {
		t.Fatalf("html export: %v", err)
	}
}

// Ctrl+Z suspends the chat to the shell; fg brings it back, redrawn.
func TestE2ESuspend(t *testing.T) {
	tm := startTerm(t, 80, 24, termCfg{shell: true}, textTurn("ok"))
	tm.ready()
	tm.keys("-l", "kept text")
	tm.keys("C-z")
	tm.waitFor("Stopped")
	tm.keys("-l", "fg")
	tm.keys("Enter")
	tm.waitEditor("kept text")
}

// /config opens the configuration explorer inside the chat with the session's own options:
// after `pigo --agent-dir A`, the explorer shows A's model (it started `pigo tui` as a new
// process without the session's flags, which showed "model: none"); q returns to the chat.
func TestE2EConfigInChat(t *testing.T) {
	tm := startTerm(t, 100, 30, termCfg{}, textTurn("ok"))
	// The model is only in another agent dir, named by the flag.
	other := filepath.Join(tm.dir, "other-agent")
	b, _ := os.ReadFile(filepath.Join(tm.home, ".pi", "agent", "models.json"))
	write(t, filepath.Join(other, "models.json"), string(b))
	write(t, filepath.Join(other, "settings.json"), `{"defaultProvider": "local", "defaultModel": "m"}`)
	os.Remove(filepath.Join(tm.home, ".pi", "agent", "settings.json"))
	os.Remove(filepath.Join(tm.home, ".pi", "agent", "models.json"))
	tm2 := tm.again([]string{"--no-session", "--agent-dir", other})
	tm2.ready()
	tm2.typeLine("/config")
	s := tm2.waitFor("model: local/m")
	if strings.Contains(s, "model: none") {
		t.Fatalf("the explorer lost the session's agent dir:\n%s", s)
	}
	tm2.keys("q")
	tm2.waitFor("(auto)")
	tm2.typeLine("hello")
	tm2.waitFor("ok")
}

// menuNames reads the whole slash menu by walking it with Down until it comes back to the
// first entry.
func (tm *term) menuNames() []string {
	tm.t.Helper()
	sel := regexp.MustCompile(`(?m)^→ (\S+)`)
	tm.keys("/")
	var names []string
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		s := tm.waitFor("→ ")
		m := sel.FindStringSubmatch(s)
		if m == nil {
			tm.t.Fatalf("no selected menu entry:\n%s", s)
		}
		if seen[m[1]] {
			break
		}
		seen[m[1]] = true
		names = append(names, m[1])
		tm.keys("Down")
		// Wait until the selection moved before reading it again.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if n := sel.FindStringSubmatch(tm.screen()); n != nil && n[1] != m[1] {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	tm.keys("Escape", "C-u")
	return names
}

// TestE2EMenuWalk runs every entry of the slash menu: none may reach the model as text, none
// may fail as unknown. Dialogs a command opens are closed with Escape (the explorer with q);
// /quit runs last and ends the chat.
func TestE2EMenuWalk(t *testing.T) {
	// /share runs a fake gh (signed out): a real one must not upload the walk's session.
	bin := t.TempDir()
	fakeGH(t, bin)
	write(t, filepath.Join(bin, "mode"), "nologin")
	tm := startTerm(t, 200, 50, termCfg{args: []string{"--tui-mode", "regular"}, env: []string{"PATH=" + bin + ":" + os.Getenv("PATH")}}, textTurn("Hello."))
	tm.ready()
	tm.typeLine("first")
	tm.waitFor("Hello.")
	tm.idle()
	names := tm.menuNames()
	if len(names) < 15 {
		t.Fatalf("the menu lists only %v", names)
	}
	if !slices.Contains(names, "share") {
		t.Errorf("the menu does not list /share: %v", names)
	}
	for _, n := range names {
		if n == "debug" || n == "arminsayshi" {
			t.Fatalf("the menu lists /%s, which pigo does not run", n)
		}
	}
	t.Logf("the menu: %v", names)
	before := len(tm.srv.Requests())
	for _, n := range names {
		if n == "quit" {
			continue
		}
		tm.keys("C-u")
		tm.keys("-l", "/"+n)
		tm.keys("Escape") // closes the menu the text opened
		tm.keys("Enter")
		s := tm.stable()
		switch {
		case strings.Contains(s, "1 Registry"):
			tm.keys("q")
		case strings.Contains(s, "esc cancel") || strings.Contains(s, "esc close") || strings.Contains(s, "→ "):
			tm.keys("Escape")
		}
		tm.idle()
		if strings.Contains(s, "Unknown command") || strings.Contains(s, "unknown command") {
			t.Fatalf("/%s is unknown:\n%s", n, s)
		}
		if got := len(tm.srv.Requests()); got != before {
			t.Fatalf("/%s went to the model as text: %s", n, tm.request(got-1))
		}
	}
	tm.keys("C-u")
	tm.typeLine("/quit")
	tm.waitFor("EXIT=0")
}

// A pi theme from the agent dir's themes folder is used (settings theme); a bad colour in it
// is a start-up warning with its position; an unknown key is only an info (not shown).
func TestE2ETheme(t *testing.T) {
	settings := `{"defaultProvider": "local", "defaultModel": "m", "retry": {"enabled": false}, "theme": "mine", ` + quietToolsets + `}`
	tm := startTerm(t, 200, 24, termCfg{settings: settings}, textTurn("ok"))
	write(t, filepath.Join(tm.home, ".pi", "agent", "themes", "mine.json"),
		"{\n  \"name\": \"mine\",\n  \"author\": \"me\",\n  \"colors\": {\"accent\": \"#ff00ff\", \"error\": \"nope\"}\n}\n")
	again := tm.again([]string{"--no-session"})
	s := again.ready()
	if !strings.Contains(s, "mine.json:4:44") || !strings.Contains(s, `no variable named "nope"`) {
		t.Fatalf("no positioned warning for the bad colour:\n%s", s)
	}
	if strings.Contains(s, "author") {
		t.Fatalf("an unknown key is an info, not a start-up warning:\n%s", s)
	}
	unknown := startTerm(t, 200, 24, termCfg{settings: strings.Replace(settings, `"mine"`, `"absent"`, 1)}, textTurn("ok"))
	if s := unknown.ready(); !strings.Contains(s, `theme "absent" not found`) {
		t.Fatalf("no warning for an unknown theme:\n%s", s)
	}
}

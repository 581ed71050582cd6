package editor

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/keymap"
	"github.com/pigo-agent/pigo/internal/pitest"
)

// raw is what a legacy terminal (tmux without extended keys) sends for each key name the
// differential cases use; pi's editor reads these bytes, pigo's the normalized names.
var raw = map[string]string{
	"left": "\x1b[D", "right": "\x1b[C", "up": "\x1b[A", "down": "\x1b[B", "home": "\x1b[H", "end": "\x1b[F",
	"ctrl+a": "\x01", "ctrl+e": "\x05", "ctrl+b": "\x02", "ctrl+f": "\x06", "ctrl+d": "\x04",
	"ctrl+k": "\x0b", "ctrl+u": "\x15", "ctrl+w": "\x17", "ctrl+y": "\x19", "alt+y": "\x1by",
	"alt+b": "\x1bb", "alt+f": "\x1bf", "alt+d": "\x1bd", "alt+backspace": "\x1b\x7f",
	"ctrl+left": "\x1b[1;5D", "ctrl+right": "\x1b[1;5C", "alt+left": "\x1b[1;3D", "alt+right": "\x1b[1;3C",
	"backspace": "\x7f", "delete": "\x1b[3~", "enter": "\r", "ctrl+j": "\n", "shift+enter": "\x1b[13;2u",
	"ctrl+-": "\x1f", "ctrl+]": "\x1d", "ctrl+alt+]": "\x1b\x1d", "pageup": "\x1b[5~", "pagedown": "\x1b[6~",
}

type diffCase struct {
	Name  string     `json:"name"`
	Steps []diffStep `json:"steps"`
}

// diffStep is typed text, a key, or a bracketed paste.
type diffStep struct {
	Text  string `json:"text,omitempty"`
	Key   string `json:"key,omitempty"`
	Raw   string `json:"raw,omitempty"`
	Paste string `json:"paste,omitempty"`
}

func steps(spec ...string) []diffStep {
	var out []diffStep
	for _, s := range spec {
		switch {
		case strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") && len(s) > 2:
			k := s[1 : len(s)-1]
			r, ok := raw[k]
			if !ok {
				panic("no raw bytes for " + k)
			}
			out = append(out, diffStep{Key: k, Raw: r})
		case strings.HasPrefix(s, "paste:"):
			out = append(out, diffStep{Paste: s[6:]})
		default:
			out = append(out, diffStep{Text: s})
		}
	}
	return out
}

// TestDifferential feeds the same keys to pi 1.6.0's editor (pi-tui's Editor, run by node)
// and to pigo's, and compares the text, the cursor and what Enter submits.
func TestDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node")
	}
	pi := pitest.FindVersion(t, pitest.Version16)
	editorJS := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(pi.CLI))), "pi-tui", "dist", "components", "editor.js")
	if _, err := os.Stat(editorJS); err != nil {
		t.Skipf("pi-tui not found beside pi: %v", err)
	}
	long := strings.Repeat("word ", 30)
	var para []string
	for i := 0; i < 14; i++ {
		para = append(para, "pasted line "+strings.Repeat("z", i))
	}
	cases := []diffCase{
		{"edit in the middle", steps("first line", "<shift+enter>", "second line", "<left>", "<left>", "X", "<ctrl+a>", "Z")},
		{"home end", steps("abc def", "<home>", ">", "<end>", "<", "<ctrl+b>", "<ctrl+b>", "_")},
		{"words", steps("foo.bar baz(qux) end", "<alt+b>", "<alt+b>", "|", "<ctrl+left>", "<ctrl+left>", "#", "<alt+f>", "@", "<ctrl+right>", "%")},
		{"word deletion", steps("alpha beta-gamma delta", "<ctrl+w>", "<alt+backspace>", "<ctrl+a>", "<alt+d>", "<alt+d>")},
		{"kill and yank", steps("one two three", "<alt+b>", "<ctrl+k>", "<ctrl+a>", "<ctrl+k>", "<ctrl+y>", "<alt+y>", "<ctrl+y>")},
		{"ctrl+u and yank", steps("abc def", "<left>", "<left>", "<ctrl+u>", "<end>", "<ctrl+y>")},
		{"undo", steps("hello world again", "<ctrl+->", "<ctrl+->", "x", "<ctrl+w>", "<ctrl+->")},
		{"multi-line", steps("a", "<ctrl+j>", "bb", "<ctrl+j>", "ccc", "<up>", "<up>", "X", "<down>", "<down>", "Y", "<ctrl+k>", "<backspace>")},
		{"line joins", steps("ab", "<ctrl+j>", "cd", "<home>", "<backspace>", "<end>", "<ctrl+j>", "<left>", "<delete>")},
		{"kill newline", steps("ab", "<ctrl+j>", "cd", "<up>", "<end>", "<ctrl+k>", "<ctrl+k>", "<ctrl+a>", "<ctrl+y>")},
		{"graphemes", steps("a👨‍👩‍👧b中文é", "<left>", "<left>", "<backspace>", "<left>", "<left>", "<delete>", "X")},
		{"flags and skin tones", steps("🇫🇷🇩🇪👍🏽x", "<left>", "<left>", "<backspace>", "<home>", "<delete>")},
		{"jump", steps("find the x here x", "<home>", "<ctrl+]>", "x", "!", "<ctrl+alt+]>", "f", "?")},
		{"backslash enter", steps("line\\", "<enter>", "next")},
		{"wrapped up down", steps(long, "<up>", "<up>", "^", "<down>", "v", "<pageup>", "[", "<pagedown>", "]")},
		{"small paste", append(steps("x"), diffStep{Paste: "/tmp/a b\tc"})},
		{"large paste", append(append(steps("see "), diffStep{Paste: strings.Join(para, "\r\n")}), steps(" done", "<alt+b>", "<alt+b>", "<left>", "<backspace>", "<ctrl+->")...)},
		{"char paste", append(steps("["), diffStep{Paste: strings.Repeat("q", 1500)})},
		{"two pastes renumber", append(append([]diffStep{{Paste: strings.Repeat("a", 1100)}}, diffStep{Paste: strings.Join(para, "\n")}), steps("<left>", "<backspace>")...)},
		{"submit", steps("  spaced  ", "<shift+enter>", "tail ", "<enter>")},
	}
	type out struct {
		Text      string `json:"text"`
		Before    string `json:"before"`
		Submitted string `json:"submitted"`
	}
	script := `
import { Editor } from ` + jsString(editorJS) + `;
import { readFileSync } from "node:fs";
const cases = JSON.parse(readFileSync(0, "utf8"));
const results = [];
for (const c of cases) {
  const tui = { terminal: { rows: 24, columns: 60 }, requestRender() {} };
  const e = new Editor(tui, { borderColor: (s) => s, selectList: {} }, {});
  let submitted = "";
  e.onSubmit = (t) => { submitted = t; };
  e.render(60);
  for (const s of c.steps) {
    if (s.paste !== undefined) e.handleInput("\x1b[200~" + s.paste + "\x1b[201~");
    else if (s.raw !== undefined) e.handleInput(s.raw);
    else for (const ch of s.text) e.handleInput(ch);
    e.render(60);
  }
  const cur = e.getCursor();
  const line = e.getLines()[cur.line];
  results.push({ text: e.getText(), before: line.slice(0, cur.col), submitted });
}
console.log(JSON.stringify(results));
`
	dir := t.TempDir()
	sp := filepath.Join(dir, "run.mjs")
	if err := os.WriteFile(sp, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(cases)
	cmd := exec.Command(pi.Node, sp)
	cmd.Stdin = strings.NewReader(string(in))
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []out
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatalf("node output: %v\n%s", err, b)
	}
	for i, c := range cases {
		e := New()
		e.Rows = 24
		e.Render(60, Styles{}, "")
		submitted := ""
		for _, s := range c.Steps {
			var r Result
			switch {
			case s.Paste != "":
				r = e.Handle(keymap.Key{Text: s.Paste, Paste: true}, km)
			case s.Key != "":
				n, _ := keymap.Name(s.Key)
				r = e.Handle(keymap.Key{Name: n}, km)
			default:
				for _, ch := range s.Text {
					n, _ := keymap.Name(string(ch))
					r = e.Handle(keymap.Key{Name: n, Text: string(ch)}, km)
					if r.Submitted {
						submitted = r.Text
					}
				}
			}
			if r.Submitted {
				submitted = r.Text
			}
			e.Render(60, Styles{}, "")
		}
		line, col := e.Cursor()
		got := out{Text: e.Text(), Before: e.st.Lines[line][:col], Submitted: submitted}
		if got != want[i] {
			t.Errorf("%s:\n pigo %+v\n pi   %+v", c.Name, got, want[i])
		}
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

package editor

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/pigo-agent/pigo/internal/keymap"
)

var km = keymap.Default()

// run types steps into e: "<name>" is a key name, anything else is typed text.
func run(e *Editor, steps ...string) Result {
	var r Result
	for _, s := range steps {
		if strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">") && len(s) > 2 {
			n, ok := keymap.Name(s[1 : len(s)-1])
			if !ok {
				panic("bad key " + s)
			}
			r = e.Handle(keymap.Key{Name: n}, km)
			continue
		}
		r = e.Handle(keymap.Key{Text: s}, km)
	}
	return r
}

// show is the text with "|" at the cursor.
func show(e *Editor) string {
	lines := append([]string(nil), e.st.Lines...)
	l := lines[e.st.Line]
	lines[e.st.Line] = l[:e.st.Col] + "|" + l[e.st.Col:]
	return strings.Join(lines, "\n")
}

func TestEditing(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps []string
		want  string
	}{
		{"type", []string{"hello"}, "hello|"},
		{"left and insert", []string{"helo", "<left>", "l"}, "hell|o"},
		{"ctrl+a and ctrl+e", []string{"abc", "<ctrl+a>", "X", "<ctrl+e>", "Y"}, "XabcY|"},
		{"home and end", []string{"abc", "<home>", "<right>", "<end>", "<ctrl+b>", "Z"}, "abZ|c"},
		{"ctrl+f", []string{"abc", "<home>", "<ctrl+f>", "<ctrl+f>", "-"}, "ab-|c"},
		{"backspace in middle", []string{"abcd", "<left>", "<left>", "<backspace>"}, "a|cd"},
		{"delete forward", []string{"abcd", "<home>", "<delete>", "<ctrl+d>"}, "|cd"},
		{"shift+enter", []string{"first line", "<shift+enter>", "second line"}, "first line\nsecond line|"},
		{"ctrl+j", []string{"a", "<ctrl+j>", "b"}, "a\nb|"},
		{"backspace joins lines", []string{"a", "<ctrl+j>", "<backspace>", "b"}, "ab|"},
		{"up moves between lines", []string{"abc", "<ctrl+j>", "de", "<up>", "X"}, "abX|c\nde"},
		{"up at top goes to line start", []string{"abc", "<ctrl+j>", "de", "<up>", "<up>", "X"}, "X|abc\nde"},
		{"down at bottom goes to line end", []string{"abc", "<ctrl+j>", "de", "<home>", "<down>", "X"}, "abc\ndeX|"},
		{"word left", []string{"foo bar baz", "<alt+b>", "<alt+b>", "|"}, "foo ||bar baz"},
		{"word right", []string{"foo bar baz", "<home>", "<alt+f>", "_"}, "foo_| bar baz"},
		{"word left stops at punctuation", []string{"path/to.file", "<ctrl+left>", "X"}, "path/to.X|file"},
		{"ctrl+w", []string{"foo bar baz", "<ctrl+w>"}, "foo bar |"},
		{"ctrl+w twice", []string{"foo bar baz", "<ctrl+w>", "<ctrl+w>"}, "foo |"},
		{"alt+backspace", []string{"foo bar", "<alt+backspace>"}, "foo |"},
		{"alt+d", []string{"foo bar", "<home>", "<alt+d>"}, "| bar"},
		{"ctrl+k", []string{"foo bar", "<home>", "<alt+f>", "<ctrl+k>"}, "foo|"},
		{"ctrl+u", []string{"foo bar", "<alt+b>", "<ctrl+u>"}, "|bar"},
		{"yank", []string{"foo bar", "<ctrl+w>", "<home>", "<ctrl+y>"}, "bar|foo "},
		{"kills accumulate", []string{"a b c", "<ctrl+w>", "<ctrl+w>", "<ctrl+y>"}, "a b c|"},
		{"yank pop", []string{"one two", "<ctrl+w>", "x", "<ctrl+u>", "<ctrl+y>", "<alt+y>"}, "two|"},
		{"undo word", []string{"hello world", "<ctrl+->"}, "hello|"},
		{"undo space", []string{"hello world", "<ctrl+->", "<ctrl+->"}, "|"},
		{"undo kill", []string{"hello world", "<ctrl+w>", "<ctrl+->"}, "hello world|"},
		{"jump forward", []string{"abcabc", "<home>", "<ctrl+]>", "c", "X"}, "abX|cabc"},
		{"jump backward", []string{"abcabc", "<ctrl+alt+]>", "a", "X"}, "abcX|abc"},
		{"backslash enter is a newline", []string{"a\\", "<enter>", "b"}, "a\nb|"},
		{"zwj emoji is one step", []string{"a👨‍👩‍👧b", "<left>", "<left>", "X"}, "aX|👨‍👩‍👧b"},
		{"backspace removes a whole zwj emoji", []string{"a👨‍👩‍👧", "<backspace>"}, "a|"},
		{"backspace removes a flag", []string{"x🇫🇷", "<backspace>"}, "x|"},
		{"cjk", []string{"中文字", "<left>", "<backspace>"}, "中|字"},
		{"combining mark", []string{"e\u0301x", "<left>", "<left>", "<delete>"}, "|x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := New()
			run(e, c.steps...)
			if got := show(e); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestSubmit(t *testing.T) {
	e := New()
	r := run(e, "  first line", "<shift+enter>", "second line  ", "<enter>")
	if !r.Submitted || r.Text != "first line\nsecond line" {
		t.Fatalf("submit = %+v", r)
	}
	if !e.Empty() {
		t.Error("editor not cleared")
	}
}

func TestHistory(t *testing.T) {
	e := New()
	for _, p := range []string{"one", "two", "two", "three"} {
		e.AddHistory(p)
	}
	run(e, "draft")
	run(e, "<home>", "<up>")
	if e.Text() != "three" {
		t.Fatalf("up from column 0: %q", e.Text())
	}
	run(e, "<up>")
	if e.Text() != "two" {
		t.Fatalf("up again: %q", e.Text())
	}
	run(e, "<up>", "<up>")
	if e.Text() != "one" {
		t.Fatalf("oldest: %q (consecutive duplicates are kept once)", e.Text())
	}
	run(e, "<down>", "<down>", "<down>")
	if show(e) != "draft|" && e.Text() != "draft" {
		t.Fatalf("down back to the draft: %q", show(e))
	}
	// Up with the cursor mid-line on one line moves to the line start first.
	e2 := New()
	e2.AddHistory("old")
	run(e2, "abc", "<left>", "<up>")
	if show(e2) != "|abc" {
		t.Fatalf("up mid-line: %q", show(e2))
	}
	run(e2, "<up>")
	if e2.Text() != "old" {
		t.Fatalf("second up: %q", e2.Text())
	}
	e3 := New()
	e3.SetHistory([]string{"a", "b"})
	run(e3, "<up>")
	if e3.Text() != "b" {
		t.Fatalf("SetHistory newest: %q", e3.Text())
	}
}

func TestPaste(t *testing.T) {
	var lines []string
	for i := 1; i <= 60; i++ {
		lines = append(lines, "line "+strings.Repeat("x", i%7))
	}
	text := strings.Join(lines, "\r\n")
	e := New()
	run(e, "see ")
	e.Handle(keymap.Key{Text: text, Paste: true}, km)
	run(e, " and")
	if got := e.Text(); got != "see [paste #1 +60 lines] and" {
		t.Fatalf("marker: %q", got)
	}
	// The marker moves as one unit.
	run(e, "<ctrl+e>", "<alt+b>", "<left>", "<left>")
	if show(e) != "see |[paste #1 +60 lines] and" {
		t.Fatalf("cursor over the marker: %q", show(e))
	}
	r := run(e, "<enter>")
	want := "see " + strings.ReplaceAll(text, "\r\n", "\n") + " and"
	if r.Text != want {
		t.Fatalf("submitted paste differs:\n%q\nwant\n%q", r.Text, want)
	}

	// Two pastes; deleting the first renumbers the second.
	e = New()
	big := strings.Repeat("y", 1200)
	e.Handle(keymap.Key{Text: big, Paste: true}, km)
	e.Handle(keymap.Key{Text: text, Paste: true}, km)
	if e.Text() != "[paste #1 1200 chars][paste #2 +60 lines]" {
		t.Fatalf("two markers: %q", e.Text())
	}
	run(e, "<left>", "<backspace>")
	if e.Text() != "[paste #1 +60 lines]" {
		t.Fatalf("after deleting #1: %q", e.Text())
	}
	if r := run(e, "<enter>"); r.Text != strings.ReplaceAll(text, "\r\n", "\n") {
		t.Fatal("renumbered paste lost its text")
	}

	// A small paste is inserted as text; a path after a word gets a space.
	e = New()
	run(e, "open")
	e.Handle(keymap.Key{Text: "/tmp/x\ty", Paste: true}, km)
	if e.Text() != "open /tmp/x    y" {
		t.Fatalf("small paste: %q", e.Text())
	}
	run(e, "<ctrl+->")
	if e.Text() != "open" {
		t.Fatalf("a paste is one undo: %q", e.Text())
	}
}

func TestWrapAndRender(t *testing.T) {
	e := New()
	e.Rows = 24
	run(e, "the quick brown fox jumps over the lazy dog")
	out := e.Render(20, Styles{Cursor: func(s string) string { return "[" + s + "]" }}, "")
	want := []string{
		"────────────────────",
		"the quick brown     ",
		"fox jumps over the  ",
		"lazy dog[ ]           ",
		"────────────────────",
	}
	if strings.Join(out, "\n") != strings.Join(want, "\n") {
		t.Fatalf("render:\n%s", strings.Join(out, "\n"))
	}
	// Every line fits, with CJK and emoji.
	e = New()
	run(e, strings.Repeat("中文👨‍👩‍👧 ", 20))
	for _, w := range []int{10, 17, 40} {
		for _, l := range e.Render(w, Styles{}, "") {
			if got := ansi.StringWidth(l); got != w {
				t.Fatalf("width %d: line %q is %d wide", w, l, got)
			}
		}
	}
	// Up and down move by visual line on a wrapped line.
	e = New()
	e.Render(20, Styles{}, "")
	run(e, "the quick brown fox jumps over the lazy dog", "<up>", "X")
	if !strings.Contains(show(e), "the lX|") && !strings.Contains(show(e), "X|") {
		t.Fatalf("up on a wrapped line: %q", show(e))
	}
	if e.st.Line != 0 || e.st.Col > 30 {
		t.Fatalf("up did not move within the wrapped line: %q", show(e))
	}
}

func TestScrollIndicator(t *testing.T) {
	e := New()
	e.Rows = 10 // at most 5 lines show
	for i := 0; i < 9; i++ {
		run(e, "l", "<ctrl+j>")
	}
	out := e.Render(30, Styles{}, "")
	if len(out) != 7 || !strings.Contains(out[0], "↑ 5 more") {
		t.Fatalf("scrolled editor:\n%s", strings.Join(out, "\n"))
	}
}

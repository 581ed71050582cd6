package keymap

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"ctrl+shift+up": "shift+ctrl+up", "shift+ctrl+p": "shift+ctrl+p", "pageUp": "pageup",
		"esc": "escape", "return": "enter", "ctrl+_": "ctrl+-", "A": "shift+a", "shift+L": "shift+l",
		"ctrl+alt+]": "ctrl+alt+]", "+": "+", "ctrl++": "ctrl++", "f12": "f12", "super+k": "super+k",
		"alt+Backspace": "alt+backspace",
	} {
		got, ok := Name(in)
		if !ok || got != want {
			t.Errorf("Name(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "ctrl+ctrl+a", "ctrl+", "hyper+a", "foo", "f21", "ctrl+a+b"} {
		if got, ok := Name(bad); ok {
			t.Errorf("Name(%q) = %q, want refused", bad, got)
		}
	}
}

func TestFromTea(t *testing.T) {
	for _, c := range []struct {
		msg  tea.KeyMsg
		name string
		text string
	}{
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")}, "a", "a"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("A")}, "shift+a", "A"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("中")}, "中", "中"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("hello")}, "", "hello"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("b"), Alt: true}, "alt+b", ""},
		{tea.KeyMsg{Type: tea.KeySpace, Runes: []rune(" ")}, "space", " "},
		{tea.KeyMsg{Type: tea.KeyCtrlA}, "ctrl+a", ""},
		{tea.KeyMsg{Type: tea.KeyCtrlJ}, "ctrl+j", ""},
		{tea.KeyMsg{Type: tea.KeyEnter}, "enter", ""},
		{tea.KeyMsg{Type: tea.KeyEnter, Alt: true}, "alt+enter", ""},
		{tea.KeyMsg{Type: tea.KeyBackspace}, "backspace", ""},
		{tea.KeyMsg{Type: tea.KeyBackspace, Alt: true}, "alt+backspace", ""},
		{tea.KeyMsg{Type: tea.KeyCtrlH}, "backspace", ""},
		{tea.KeyMsg{Type: tea.KeyCtrlUnderscore}, "ctrl+-", ""},
		{tea.KeyMsg{Type: tea.KeyCtrlCloseBracket}, "ctrl+]", ""},
		{tea.KeyMsg{Type: tea.KeyCtrlCloseBracket, Alt: true}, "ctrl+alt+]", ""},
		{tea.KeyMsg{Type: tea.KeyCtrlShiftUp}, "shift+ctrl+up", ""},
		{tea.KeyMsg{Type: tea.KeyPgUp}, "pageup", ""},
		{tea.KeyMsg{Type: tea.KeyCtrlPgDown}, "ctrl+pagedown", ""},
		{tea.KeyMsg{Type: tea.KeyShiftTab}, "shift+tab", ""},
		{tea.KeyMsg{Type: tea.KeyEsc}, "escape", ""},
		{tea.KeyMsg{Type: tea.KeyUp, Alt: true}, "alt+up", ""},
		{tea.KeyMsg{Type: tea.KeyCtrlHome}, "ctrl+home", ""},
		{tea.KeyMsg{Type: tea.KeyDelete}, "delete", ""},
	} {
		got := FromTea(c.msg)
		if got.Name != c.name || got.Text != c.text {
			t.Errorf("FromTea(%v) = %+v, want %q %q", c.msg, got, c.name, c.text)
		}
	}
	p := FromTea(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a\r\nb"), Paste: true})
	if !p.Paste || p.Text != "a\r\nb" {
		t.Errorf("paste = %+v", p)
	}
}

// TestParseCSI decodes what tmux 3.3 (extended-keys on) and xterm (modifyOtherKeys 2) send
// for the keys legacy encodings cannot tell apart.
func TestParseCSI(t *testing.T) {
	for seq, want := range map[string]Key{
		"\x1b[13;2u":     {Name: "shift+enter"},
		"\x1b[27;2;13~":  {Name: "shift+enter"},
		"\x1b[13;3u":     {Name: "alt+enter"},
		"\x1b[45;5u":     {Name: "ctrl+-"},
		"\x1b[70;6u":     {Name: "shift+ctrl+f"},
		"\x1b[80;6u":     {Name: "shift+ctrl+p"},
		"\x1b[127;5u":    {Name: "ctrl+backspace"},
		"\x1b[27;5;97~":  {Name: "ctrl+a"},
		"\x1b[97u":       {Name: "a", Text: "a"},
		"\x1b[97;2u":     {Name: "shift+a", Text: "A"},
		"\x1b[32;2u":     {Name: "shift+space", Text: " "},
		"\x1b[103:71;6u": {Name: "shift+ctrl+g"},
	} {
		got, ok := ParseCSI([]byte(seq))
		if !ok || got != want {
			t.Errorf("ParseCSI(%q) = %+v, %v; want %+v", seq, got, ok, want)
		}
	}
	for _, bad := range []string{"\x1b[A", "\x1b[5~", "\x1b[1;5u", "\x1b[x;2u", "\x1b[27;5~"} {
		if k, ok := ParseCSI([]byte(bad)); ok {
			t.Errorf("ParseCSI(%q) = %+v, want refused", bad, k)
		}
	}
}

func TestDefaults(t *testing.T) {
	m := Default()
	for _, c := range []struct {
		key string
		a   Action
	}{
		{"ctrl+a", CursorLineStart}, {"home", CursorLineStart}, {"shift+enter", NewLine}, {"ctrl+j", NewLine},
		{"ctrl+-", Undo}, {"alt+enter", FollowUp}, {"shift+ctrl+p", ModelBackward}, {"shift+ctrl+up", PreviousPrompt},
		{"ctrl+]", JumpForward}, {"pageup", ScreenPageUp}, {"shift+tab", ThinkingCycle},
	} {
		if !m.Is(c.key, c.a) {
			t.Errorf("%s is not bound to %s", c.key, c.a)
		}
	}
	if m.Is("enter", NewLine) {
		t.Error("enter bound to newLine")
	}
	if got := m.Text(NewLine); got != "shift+enter/ctrl+j" {
		t.Errorf("Text(newLine) = %q", got)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	src := `{
  // comments and trailing commas are fine
  "$schema": "https://pi.dev/schemas/keybindings.schema.json",
  "tui.input.submit": ["ctrl+enter", "enter"],
  "app.model.select": [],
  "tui.editor.undo": "ctrl+z",
  "cursorUp": "ctrl+k",
  "app.nope": "ctrl+q",
  "app.exit": ["ctrl+d", "hyper+x", 3],
  "app.clear": true,
}`
	if err := os.WriteFile(filepath.Join(dir, File), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, ds := Load(dir)
	if !m.Is("ctrl+enter", Submit) || !m.Is("enter", Submit) {
		t.Error("submit not rebound")
	}
	if m.Is("ctrl+l", ModelSelect) || m.Text(ModelSelect) != "" {
		t.Error("an empty list must unbind")
	}
	if !m.Is("ctrl+z", Undo) || m.Is("ctrl+-", Undo) {
		t.Error("undo not replaced")
	}
	if !m.Is("ctrl+k", CursorUp) {
		t.Error("legacy name cursorUp not migrated")
	}
	if !m.Is("ctrl+c", Clear) {
		t.Error("a bad value must keep the default")
	}
	var got []string
	for _, d := range ds {
		l, c := d.Pos()
		got = append(got, fmt.Sprintf("%s@%d:%d %s", d.Code, l, c, d.Message))
	}
	joined := strings.Join(got, "\n")
	for _, w := range []string{"unknown-field@8:3", "bad-key@9:26", "schema@9:37", "schema@10:16"} {
		if !strings.Contains(joined, w) {
			t.Errorf("missing %s in\n%s", w, joined)
		}
	}
	if m2, ds := Load(t.TempDir()); len(ds) != 0 || !m2.Is("ctrl+l", ModelSelect) {
		t.Error("a missing file must give the defaults silently")
	}
	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, File), []byte("{nope"), 0o644)
	if m3, ds := Load(bad); len(ds) != 1 || ds[0].Code != "syntax" || !m3.Is("ctrl+l", ModelSelect) {
		t.Errorf("a broken file: %v", ds)
	}
}

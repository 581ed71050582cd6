package chat

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/keymap"
)

func actionOf(s string) keymap.Action { return keymap.Action(s) }

// doublePress is how close two Ctrl+C (or Escape) presses must be to count as one double
// press (pi: 500 ms).
const doublePress = 500 * time.Millisecond

// key handles one key, in pi's order: an open dialog, transcript search, the slash menu,
// the application's actions, fullscreen scrolling, then the editor.
func (m *Model) key(k keymap.Key) tea.Cmd {
	km := m.km
	is := func(a keymap.Action) bool { return km.Is(k.Name, a) }
	if d := m.dialog; d != nil {
		return m.dialogKey(d, k)
	}
	if m.search != nil {
		if cmd, ok := m.searchKey(k); ok {
			return cmd
		}
	}
	if m.menu != nil {
		if cmd, ok := m.menuKey(k); ok {
			return cmd
		}
	}
	switch {
	case is(keymap.PasteImage):
		m.flash("Pasting images is not supported by pigo")
		return nil
	case is(keymap.Interrupt):
		return m.escape()
	case is(keymap.Exit) && m.ed.Empty():
		return m.quit()
	case is(keymap.Clear):
		now := time.Now()
		if now.Sub(m.lastCtrlC) < doublePress {
			return m.quit()
		}
		m.lastCtrlC = now
		m.ed.Clear()
		m.menu = nil
		return nil
	case is(keymap.Suspend):
		return tea.Suspend
	case is(keymap.ThinkingCycle):
		return m.cycleThinking()
	case is(keymap.ModelForward):
		return m.cycleModel(1)
	case is(keymap.ModelBackward):
		return m.cycleModel(-1)
	case is(keymap.ModelSelect):
		return m.runCommand("/model")
	case is(keymap.ToolsExpand):
		m.expanded = !m.expanded
		m.touchAll()
		m.showStatus("Tool output: " + map[bool]string{true: "expanded", false: "collapsed"}[m.expanded])
		return m.reprint()
	case is(keymap.ThinkingToggle):
		m.showThinking = !m.showThinking
		for _, it := range m.items {
			if it.thinking != "" {
				it.touch()
			}
		}
		m.showStatus("Thinking blocks: " + map[bool]string{true: "visible", false: "hidden"}[m.showThinking])
		// pi saves the choice (hideThinkingBlock), so the next start keeps it.
		return tea.Batch(m.reprint(), m.saveSetting("hideThinkingBlock", strconv.FormatBool(!m.showThinking)))
	case is(keymap.External):
		return m.externalEditor()
	case is(keymap.MessageCopy):
		return m.copyLast()
	case is(keymap.FollowUp):
		if r := m.ed.Submit(); r.Text != "" {
			m.ed.AddHistory(r.Text)
			return m.submit(r.Text, true)
		}
		return nil
	case is(keymap.Dequeue):
		q := m.o.Session.Dequeue()
		switch len(q) {
		case 0:
			m.showStatus("No queued messages to restore")
		case 1:
			m.showStatus("Restored 1 queued message to editor")
		default:
			m.showStatus(fmt.Sprintf("Restored %d queued messages to editor", len(q)))
		}
		if len(q) > 0 {
			m.steering, m.followUp = nil, nil
			if t := m.ed.Text(); t != "" {
				q = append(q, t)
			}
			m.ed.SetText(strings.Join(q, "\n"))
		}
		return nil
	case is(keymap.SessionNew):
		return m.runCommand("/new")
	case is(keymap.SessionTree):
		return m.runCommand("/tree")
	case is(keymap.SessionFork):
		return m.runCommand("/fork")
	case is(keymap.SessionResume):
		return m.runCommand("/resume")
	}
	if m.fullscreen {
		if cmd, ok := m.scrollKey(k); ok {
			return cmd
		}
	}
	before := m.ed.Text()
	r := m.ed.Handle(k, km)
	if r.Submitted {
		m.menu = nil
		if r.Text == "" {
			return nil
		}
		m.ed.AddHistory(r.Text)
		m.scroll = 0
		return m.submit(r.Text, false)
	}
	if r.Handled && m.ed.Text() != before {
		m.updateMenu()
	}
	return nil
}

// escape is pi's Escape: abort the run; else close the menu; else, pressed twice on an
// empty editor, the double-Escape action (the session tree by default).
func (m *Model) escape() tea.Cmd {
	if m.running {
		if m.cancelHost != nil {
			m.cancelHost()
		}
		m.o.Session.Abort()
		return nil
	}
	if m.menu != nil {
		m.menu = nil
		return nil
	}
	now := time.Now()
	double := now.Sub(m.lastEscape) < doublePress
	m.lastEscape = now
	if double && m.ed.Empty() {
		m.lastEscape = time.Time{}
		switch m.o.UI.DoubleEscape {
		case "fork":
			return m.runCommand("/fork")
		case "none":
			return nil
		default:
			return m.runCommand("/tree")
		}
	}
	return nil
}

// quit ends the chat.
func (m *Model) quit() tea.Cmd {
	m.quitting = true
	m.o.Session.Abort()
	return tea.Quit
}

// runCommand runs a slash command as if typed.
func (m *Model) runCommand(text string) tea.Cmd {
	if cmd, ok := m.command(text); ok {
		return cmd
	}
	return nil
}

// scrollKey handles fullscreen's transcript keys.
func (m *Model) scrollKey(k keymap.Key) (tea.Cmd, bool) {
	km := m.km
	is := func(a keymap.Action) bool { return km.Is(k.Name, a) }
	page := max(1, m.height-len(m.bottom(m.width)))
	switch {
	case is(keymap.ScreenPageUp):
		m.scroll += page
	case is(keymap.ScreenPageDown):
		m.scroll = max(0, m.scroll-page)
	case is(keymap.ScreenHalfUp):
		m.scroll += max(1, page/2)
	case is(keymap.ScreenHalfDown):
		m.scroll = max(0, m.scroll-max(1, page/2))
	case is(keymap.ScreenLineUp):
		m.scroll++
	case is(keymap.ScreenLineDown):
		m.scroll = max(0, m.scroll-1)
	case is(keymap.ScreenTop):
		m.scroll = 1 << 30
	case is(keymap.ScreenBottom):
		m.scroll = 0
	case is(keymap.PreviousPrompt):
		m.jumpPrompt(-1, page)
	case is(keymap.NextPrompt):
		m.jumpPrompt(1, page)
	case is(keymap.Search):
		m.search = &search{}
	default:
		return nil, false
	}
	return nil, true
}

// jumpPrompt scrolls so the previous or next user prompt is at the top of the window.
func (m *Model) jumpPrompt(dir, page int) {
	w := m.width
	var starts []int
	n := 0
	for _, it := range m.items {
		ls := m.lines(it, w)
		if it.kind == kindUser {
			starts = append(starts, n)
		}
		n += len(ls)
	}
	if len(starts) == 0 {
		return
	}
	top := max(0, n-m.scroll-page)
	target := -1
	if dir < 0 {
		for i := len(starts) - 1; i >= 0; i-- {
			if starts[i] < top {
				target = starts[i]
				break
			}
		}
		if target < 0 {
			target = starts[0]
		}
	} else {
		for _, s := range starts {
			if s > top {
				target = s
				break
			}
		}
		if target < 0 {
			m.scroll = 0
			return
		}
	}
	m.scroll = max(0, n-target-page)
}

// mouse scrolls the fullscreen transcript with the wheel (three lines a notch).
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if !m.fullscreen || msg.Action != tea.MouseActionPress {
		return nil
	}
	lines := 3
	if msg.Alt {
		lines *= 5
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.scroll += lines
	case tea.MouseButtonWheelDown:
		m.scroll = max(0, m.scroll-lines)
	}
	return nil
}

// editorDoneMsg returns from the external editor.
type editorDoneMsg struct {
	text string
	ok   bool
	err  error
}

// externalEditor opens the prompt in externalEditor, $VISUAL, $EDITOR or nano (Ctrl+G) and
// puts what was saved back in the editor.
func (m *Model) externalEditor() tea.Cmd {
	ed := m.o.UI.ExternalEditor
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if ed == "" {
			ed = m.o.UI.Env(v)
		}
	}
	if ed == "" {
		ed = "nano"
	}
	f, err := os.CreateTemp("", "pigo-prompt-*.md")
	if err != nil {
		m.fail("External editor: " + err.Error())
		return nil
	}
	path := f.Name()
	_, err = f.WriteString(m.ed.Expanded())
	f.Close()
	if err != nil {
		m.fail("External editor: " + err.Error())
		return nil
	}
	cmd := exec.Command("sh", "-c", ed+` "$1"`, "sh", path)
	return tea.ExecProcess(cmd, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editorDoneMsg{err: err}
		}
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			return editorDoneMsg{err: rerr}
		}
		return editorDoneMsg{text: string(b), ok: true}
	})
}

package chat

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/termui"
)

// command runs a slash command the chat handles itself or hands to the command line; ok is
// false for text that is not such a command (it goes to the model, expanded).
func (m *Model) command(text string) (tea.Cmd, bool) {
	name, arg, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "quit", "exit":
		return m.quit(), true
	case "config":
		if m.o.Config == nil {
			return nil, false
		}
		m.embed = m.o.Config(m.width, m.height)
		if m.embed == nil {
			return nil, true
		}
		return m.embed.Init(), true
	case "session":
		m.info(m.sessionText())
		return nil, true
	case "rewind":
		m.openRewind()
		return nil, true
	case "hotkeys":
		m.info(m.hotkeys())
		return nil, true
	case "copy":
		return m.copyLast(), true
	case "thinking":
		return m.thinkingCommand(arg), true
	case "changelog":
		m.info(changelog())
		return nil, true
	case "export":
		return m.export(arg), true
	case "share":
		return m.share(), true
	case "settings":
		if m.settingsDialog() {
			return nil, true
		}
	case "mcp":
		if arg == "" {
			if cmd, ok := m.openMCP(); ok {
				return cmd, true
			}
		}
	}
	if c, ok := m.o.Session.Lookup(name); ok && c.Interactive {
		if m.running {
			m.info("Wait for the agent to finish (or press Esc) before /" + name)
			return nil, true
		}
		if c.Pick != nil && arg == "" {
			sess := m.o.Session
			return func() tea.Msg {
				p, err := sess.Pick(context.Background(), name)
				return pickOpenMsg{name, p, err}
			}, true
		}
		return m.sessionCommand(name, arg), true
	}
	return nil, false
}

// sessionText is /session: the file and id, the messages, the tool calls, and the tokens and
// cost per model and in total.
func (m *Model) sessionText() string {
	var b strings.Builder
	s := m.sess()
	st := m.stats()
	b.WriteString("Session Info\n\n")
	if s != nil {
		if n := s.Name(); n != "" {
			fmt.Fprintf(&b, "Name: %s\n", n)
		}
		p := s.Path()
		if p == "" || !s.Persisted() {
			p = "(in memory)"
		}
		fmt.Fprintf(&b, "File: %s\nID: %s\n", p, s.ID())
	}
	fmt.Fprintf(&b, "\nMessages\nUser: %d\nAssistant: %d\nTool results: %d\nTotal: %d\n",
		st.Messages["user"], st.Messages["assistant"], st.Messages["toolResult"],
		st.Messages["user"]+st.Messages["assistant"]+st.Messages["toolResult"])
	if len(st.ToolCalls) > 0 {
		total := 0
		names := make([]string, 0, len(st.ToolCalls))
		for n, c := range st.ToolCalls {
			names = append(names, n)
			total += c
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "\nTool calls: %d\n", total)
		for _, n := range names {
			fmt.Fprintf(&b, "  %s: %d\n", n, st.ToolCalls[n])
		}
	}
	fmt.Fprintf(&b, "\nTokens\nInput: %s\nOutput: %s\n", commas(st.Input), commas(st.Output))
	if st.CacheRead > 0 {
		fmt.Fprintf(&b, "Cache read: %s\n", commas(st.CacheRead))
	}
	if st.CacheWrite > 0 {
		fmt.Fprintf(&b, "Cache write: %s\n", commas(st.CacheWrite))
	}
	fmt.Fprintf(&b, "Total: %s\n", commas(st.Input+st.Output+st.CacheRead+st.CacheWrite))
	if len(st.PerModel) > 0 {
		b.WriteString("\nPer model\n")
		keys := make([]string, 0, len(st.PerModel))
		for k := range st.PerModel {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			u := st.PerModel[k]
			fmt.Fprintf(&b, "%s: ↑%s ↓%s", k, commas(u.Input), commas(u.Output))
			if u.CacheRead+u.CacheWrite > 0 {
				fmt.Fprintf(&b, " R%s W%s", commas(u.CacheRead), commas(u.CacheWrite))
			}
			fmt.Fprintf(&b, " $%.4f\n", u.Cost.Total)
		}
	}
	fmt.Fprintf(&b, "\nCost\nTotal: $%.4f", st.Cost)
	return b.String()
}

func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// hotkeys is /hotkeys: every bound action with its keys, as the person bound them.
func (m *Model) hotkeys() string {
	var b strings.Builder
	section := func(title string, ids ...string) {
		var rows [][2]string
		for _, id := range ids {
			k := m.km.Text(actionOf(id))
			if k == "" {
				continue
			}
			rows = append(rows, [2]string{k, keymapDescription(id)})
		}
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s\n", title)
		wk := 0
		for _, r := range rows {
			wk = max(wk, termui.Width(r[0]))
		}
		for _, r := range rows {
			fmt.Fprintf(&b, "  %s%s  %s\n", r[0], strings.Repeat(" ", wk-termui.Width(r[0])), r[1])
		}
		b.WriteString("\n")
	}
	section("Navigation", "tui.editor.cursorUp", "tui.editor.cursorDown", "tui.editor.cursorLeft",
		"tui.editor.cursorRight", "tui.editor.cursorWordLeft", "tui.editor.cursorWordRight",
		"tui.editor.cursorLineStart", "tui.editor.cursorLineEnd", "tui.editor.jumpForward",
		"tui.editor.jumpBackward", "tui.editor.pageUp", "tui.editor.pageDown",
		"tui.editor.historyPrevious", "tui.editor.historyNext")
	section("Editing", "tui.input.submit", "tui.input.newLine", "tui.editor.deleteCharBackward",
		"tui.editor.deleteCharForward", "tui.editor.deleteWordBackward", "tui.editor.deleteWordForward",
		"tui.editor.deleteToLineStart", "tui.editor.deleteToLineEnd", "tui.editor.yank",
		"tui.editor.yankPop", "tui.editor.undo", "tui.input.tab")
	section("Application", "app.interrupt", "app.clear", "app.exit", "app.suspend",
		"app.thinking.cycle", "app.model.cycleForward", "app.model.cycleBackward", "app.model.select",
		"app.tools.expand", "app.thinking.toggle", "app.editor.external", "app.message.copy",
		"app.message.followUp", "app.message.dequeue", "app.session.new", "app.session.tree",
		"app.session.fork", "app.session.resume")
	if m.fullscreen {
		section("Transcript (fullscreen)", "tui.altScreen.pageUp", "tui.altScreen.pageDown",
			"tui.altScreen.halfPageUp", "tui.altScreen.halfPageDown", "tui.altScreen.lineUp",
			"tui.altScreen.lineDown", "tui.altScreen.top", "tui.altScreen.bottom",
			"tui.altScreen.previousPrompt", "tui.altScreen.nextPrompt", "tui.altScreen.search")
	}
	b.WriteString("Commands\n  /       slash commands\n  !       run bash (output sent to the model)\n  !!      run bash (output kept out of the context)")
	return b.String()
}

// rewindPlanMsg carries a computed rewind plan (reading the files is I/O, done in a Cmd).
type rewindPlanMsg struct {
	p    Point
	plan []Restore
}

// rewindDoneMsg reports a finished rewind.
type rewindDoneMsg struct {
	p        Point
	restored bool
	files    []Restore
	err      error
}

// openRewind offers the prompts of this chat to go back to, newest first.
func (m *Model) openRewind() {
	if m.running {
		m.info("Wait for the agent to finish (or press Esc) before /rewind")
		return
	}
	if m.o.Rewind == nil {
		m.info("/rewind is not available in this session")
		return
	}
	pts := m.o.Rewind.Points()
	if len(pts) == 0 {
		m.info("Nothing to rewind to yet")
		return
	}
	d := &dialog{kind: "rewind-pick", title: "Rewind to before which prompt?", points: pts}
	for _, p := range pts {
		d.opts = append(d.opts, firstLine(p.Text))
	}
	rw := m.o.Rewind
	d.start = func(d *dialog, i int) tea.Cmd {
		p := d.points[i]
		return func() tea.Msg { return rewindPlanMsg{p, rw.Plan(p)} }
	}
	m.dialog = d
}

func (m *Model) openRewindConfirm(p Point, plan []Restore) {
	d := &dialog{kind: "rewind-confirm", title: PlanText(p, plan), point: p, plan: plan,
		opts: []string{optRewindAll, optRewindConv, optCancel}}
	rw, sess := m.o.Rewind, m.o.Session
	d.start = func(d *dialog, i int) tea.Cmd {
		if d.opts[i] == optCancel {
			return func() tea.Msg { return nil }
		}
		files := d.opts[i] == optRewindAll
		p, plan := d.point, d.plan
		return func() tea.Msg {
			var err error
			if files {
				err = rw.Apply(p, plan)
			} else {
				plan = nil
				err = rw.Apply(p, nil)
			}
			rerr := sess.SetLeaf(p.Leaf)
			return rewindDoneMsg{p: p, restored: rerr == nil, files: plan, err: errors.Join(err, rerr)}
		}
	}
	m.dialog = d
}

// rewound shows the conversation as it was before the point, with its prompt back in the
// input to edit and resend.
func (m *Model) rewound(msg rewindDoneMsg) {
	if msg.restored {
		m.reset()
		m.history(m.o.Session.Messages())
		m.ed.SetText(msg.p.Text)
	}
	n := 0
	for _, rs := range msg.files {
		if rs.Refused == "" {
			n++
		}
	}
	m.info(fmt.Sprintf("Rewound to before %q; %d file(s) restored", firstLine(msg.p.Text), n))
	for _, rs := range msg.files {
		if rs.Refused != "" {
			m.fail("Not restored: " + rs.Path + " (" + rs.Refused + ")")
		}
	}
	if msg.err != nil {
		m.fail("rewind: " + msg.err.Error())
	}
}

// openPick shows a host command's selector; choosing runs the command with the item's Arg.
func (m *Model) openPick(msg pickOpenMsg) {
	switch {
	case msg.err != nil:
		m.fail(msg.err.Error())
		return
	case len(msg.p.Items) == 0:
		if msg.p.Empty != "" {
			m.info(msg.p.Empty)
		}
		return
	}
	if m.dialog != nil {
		return
	}
	items := make([]termui.Item, len(msg.p.Items))
	for i, it := range msg.p.Items {
		items[i] = termui.Item{Label: it.Label, Description: it.Description, Value: it.Arg}
	}
	l := termui.NewList(items)
	l.Max, l.Filterable = pickRows, true
	l.Select(min(max(msg.p.Current, 0), len(items)-1))
	name := msg.name
	d := &dialog{kind: "pick", title: msg.p.Title, list: l, hint: msg.p.Hint}
	d.start = func(d *dialog, _ int) tea.Cmd {
		it, ok := d.list.Selected()
		if !ok {
			return nil
		}
		arg := it.Value
		return func() tea.Msg { return pickMsg{name, arg} }
	}
	if c := msg.p.Cancel; c != "" {
		// A question: closing it is its cancel answer.
		d.back = func(d *dialog) bool {
			d.cmd = func() tea.Msg { return pickMsg{name, c} }
			return false
		}
	}
	m.dialog = d
}

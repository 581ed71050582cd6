package chat

import (
	"context"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/termui"
)

// mcpManager is the session's /mcp manager (pi 1.6's): *app.Session has it.
type mcpManager interface {
	HasMCP() bool
	MCPMenu(v app.MCPView) app.MCPMenu
	MCPBack(v app.MCPView) (app.MCPView, bool)
	MCPChoose(ctx context.Context, v app.MCPView, value string) app.MCPView
}

// mcpRefresh is how often an open manager is built again, so states change while servers
// connect, reconnect or wait for a sign-in (pi subscribes to the changes instead).
const mcpRefresh = 300 * time.Millisecond

// mcpDialog is the open /mcp manager: the screen shown and the selector drawing it.
type mcpDialog struct {
	mgr  mcpManager
	view app.MCPView
	menu app.MCPMenu
	// busy is set while a choice runs (keys wait for its screen).
	busy bool
}

// mcpTickMsg builds the manager d again; mcpViewMsg shows the screen a choice led to.
type mcpTickMsg struct{ d *dialog }

type mcpViewMsg struct {
	d    *dialog
	view app.MCPView
}

// openMCP opens the manager for a bare /mcp: false when the session has no MCP servers (the
// command then prints its text).
func (m *Model) openMCP() (tea.Cmd, bool) {
	mgr, ok := m.o.Session.(mcpManager)
	if !ok || !mgr.HasMCP() {
		return nil, false
	}
	if m.dialog != nil {
		return nil, true
	}
	md := &mcpDialog{mgr: mgr}
	d := &dialog{kind: "pick", list: termui.NewList(nil), keep: true, mcp: md}
	d.start = func(d *dialog, _ int) tea.Cmd {
		it, ok := d.list.Selected()
		if !ok || md.busy {
			return nil
		}
		md.busy = true
		view, value := md.view, it.Value
		return func() tea.Msg {
			return mcpViewMsg{d, mgr.MCPChoose(context.Background(), view, value)}
		}
	}
	d.back = func(d *dialog) bool {
		next, closed := mgr.MCPBack(md.view)
		if closed {
			return false
		}
		md.show(d, next)
		return true
	}
	md.show(d, app.MCPView{})
	m.dialog = d
	return mcpTick(d), true
}

func mcpTick(d *dialog) tea.Cmd {
	return tea.Tick(mcpRefresh, func(time.Time) tea.Msg { return mcpTickMsg{d} })
}

// mcpMsg handles the manager's messages; ok is false for other messages.
func (m *Model) mcpMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case mcpTickMsg:
		if m.under == msg.d {
			return mcpTick(msg.d), true // under a sign-in screen: it comes back
		}
		if m.dialog != msg.d {
			return nil, true // closed: the ticks stop
		}
		msg.d.mcp.build(msg.d, false)
		return mcpTick(msg.d), true
	case mcpViewMsg:
		if m.dialog == msg.d || m.under == msg.d {
			msg.d.mcp.busy = false
			msg.d.mcp.show(msg.d, msg.view)
		}
		return nil, true
	}
	return nil, false
}

// show moves to screen v with its first item selected.
func (md *mcpDialog) show(d *dialog, v app.MCPView) {
	md.view = v
	md.build(d, true)
}

// build draws the current screen again; fresh selects the screen's own first item, else the
// selection stays on the same value.
func (md *mcpDialog) build(d *dialog, fresh bool) {
	keep := ""
	if it, ok := d.list.Selected(); ok && !fresh {
		keep = it.Value
	}
	menu := md.mgr.MCPMenu(md.view)
	md.menu = menu
	d.title = menu.Title
	items := make([]termui.Item, len(menu.Items))
	want := menu.Selected
	if keep != "" {
		want = keep
	}
	sel := 0
	for i, it := range menu.Items {
		items[i] = termui.Item{Label: it.Label, Description: it.Description, Value: it.Arg}
		if it.Arg == want {
			sel = i
		}
	}
	d.list.SetItems(items)
	d.list.Max = 12
	d.list.Empty = menu.Empty
	if len(items) > 0 {
		d.list.Select(sel)
	}
	var hint []string
	if len(items) > 0 {
		hint = append(hint, "↑↓ navigate", "enter "+menu.Confirm)
	}
	hint = append(hint, "esc "+menu.Cancel)
	d.hint = strings.Join(hint, " · ")
}

// header draws the screen's title (accent, bold), its details (muted) and its error (red), as
// pi's manager frames them.
func (md *mcpDialog) header(st *termui.Styles, w int) []string {
	out := []string{st.Style("accent", "", termui.Bold, termui.Truncate(md.menu.Title, w, "…"))}
	add := func(color, text string) {
		for _, l := range strings.Split(text, "\n") {
			for _, wl := range termui.Wrap(l, w) {
				out = append(out, st.Fg(color, wl))
			}
		}
	}
	if md.menu.Details != "" {
		add("muted", md.menu.Details)
	}
	if md.menu.Error != "" {
		add("error", md.menu.Error)
	}
	return out
}

package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient"
)

// MCPView names a screen of the /mcp manager: the servers (Server ""), one server's actions
// (Screen ""), its tools ("tools") or its exposure ("exposure").
type MCPView struct {
	Server, Screen string
}

// MCPMenu is one screen of the /mcp manager, as pi 1.6's manager builds it: a title, muted
// details, an error, the items (Arg is the value a choice passes to MCPChoose), the item
// selected first, and the labels of Enter and Escape. A front end draws it with its selector
// and builds it again while servers connect.
type MCPMenu struct {
	Title, Details, Error string
	Items                 []PickItem
	// Empty is shown instead of an empty list.
	Empty string
	// Selected is the Arg of the item selected first ("": the first).
	Selected        string
	Confirm, Cancel string
}

// mcpExposureDescriptions are the choices of the exposure screen (pi 1.6's three; hidden is
// set in mcp.json or with `/mcp exposure SERVER hidden`).
var mcpExposureDescriptions = []struct{ name, desc string }{
	{mcp.ExposureCodemode, "called from codemode scripts, which find them with searchTools()"},
	{mcp.ExposureDeferred, "not declared until tool_search loads them, then called directly; no codemode needed"},
	{mcp.ExposureDirect, "declared to the model like built-in tools"},
}

// HasMCP reports whether the session has MCP servers (the chat then opens the manager for a
// bare /mcp).
func (s *Session) HasMCP() bool { return s.mcp != nil }

// MCPMenu builds a screen of the /mcp manager now.
func (s *Session) MCPMenu(v MCPView) MCPMenu {
	m := s.mcp
	if m == nil {
		return MCPMenu{Title: "MCP servers", Empty: noMCPText, Cancel: "close"}
	}
	if v.Server == "" {
		return m.serversMenu()
	}
	conn := m.mgr.Conn(v.Server)
	if conn == nil {
		return MCPMenu{Title: v.Server, Empty: "This server is no longer configured.", Cancel: "back"}
	}
	switch v.Screen {
	case "tools":
		return m.toolsMenu(conn)
	case "exposure":
		return m.exposureMenu(conn)
	}
	return m.serverMenu(conn)
}

// MCPBack is Escape on a screen: the screen before it, or close at the servers.
func (s *Session) MCPBack(v MCPView) (MCPView, bool) {
	switch {
	case v.Server == "":
		return v, true
	case v.Screen != "":
		return MCPView{Server: v.Server}, false
	}
	return MCPView{}, false
}

// MCPChoose runs the choice of value on screen v and returns the screen to show next. Slow
// actions (reconnect, enable, sign-in) run in the background; their outcome shows in the
// server's state and message when the screen is built again.
func (s *Session) MCPChoose(ctx context.Context, v MCPView, value string) MCPView {
	m := s.mcp
	if m == nil {
		return MCPView{}
	}
	if v.Server == "" {
		return MCPView{Server: value}
	}
	conn := m.mgr.Conn(v.Server)
	if conn == nil {
		return MCPView{}
	}
	back := MCPView{Server: v.Server}
	switch v.Screen {
	case "tools":
		return back
	case "exposure":
		if value != conn.Server.ServerExposure() {
			msg := ""
			if _, err := m.setExposure(conn, value); err != nil {
				msg = err.Error()
			}
			m.setMessage(conn, msg)
		}
		return back
	}
	switch value {
	case "tools", "exposure":
		return MCPView{Server: v.Server, Screen: value}
	case "signin":
		if conn.Server.AuthProvider != "" {
			m.setMessage(conn, fmt.Sprintf("MCP server %q uses the credentials of provider %q: sign in with /login %s.", conn.Server.Name, conn.Server.AuthProvider, conn.Server.AuthProvider))
			return back
		}
		text, err := m.login(conn)
		if err != nil {
			text = err.Error()
		}
		m.setMessage(conn, text)
	case "signout":
		text, err := m.command(ctx, "logout "+conn.Server.Name)
		if err != nil {
			text = err.Error()
		}
		m.setMessage(conn, text)
	case "reconnect":
		m.setMessage(conn, "")
		m.background(conn, func(ctx context.Context) string {
			if err := conn.Reconnect(ctx); err != nil {
				return "" // the state and error say it
			}
			m.markDirty()
			return ""
		})
	case "enable", "disable", "enable-project", "disable-project":
		enable, project := strings.HasPrefix(value, "enable"), strings.HasSuffix(value, "-project")
		m.setMessage(conn, "")
		m.background(conn, func(ctx context.Context) string {
			if _, err := m.setEnabled(ctx, conn, enable, project); err != nil {
				return err.Error()
			}
			return ""
		})
	}
	return back
}

// background runs a slow action off the front end's loop; its message replaces the server's.
func (m *mcpState) background(conn *mcpclient.Conn, run func(ctx context.Context) string) {
	go func() {
		if msg := run(context.Background()); msg != "" {
			m.setMessage(conn, msg)
		}
	}()
}

func (m *mcpState) setMessage(conn *mcpclient.Conn, msg string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.messages == nil {
		m.messages = map[string]string{}
	}
	m.messages[conn.Server.Name] = msg
}

func (m *mcpState) message(conn *mcpclient.Conn) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.messages[conn.Server.Name]
}

// attentionRank orders the servers that need the person first (pi's).
func attentionRank(c *mcpclient.Conn) int {
	if !c.Server.Enabled {
		return 5
	}
	switch st, _ := c.State(); st {
	case mcpclient.StateNeedsAuth:
		return 0
	case mcpclient.StateFailed:
		return 1
	case mcpclient.StateDisconnected:
		return 2
	case mcpclient.StateConnected:
		return 4
	}
	return 3
}

func scopeOf(s *mcp.Server) string {
	if s.Override != nil {
		return "global, project override"
	}
	return s.Scope
}

func (m *mcpState) serversMenu() MCPMenu {
	conns := slices.Clone(m.mgr.Conns())
	slices.SortStableFunc(conns, func(a, b *mcpclient.Conn) int {
		if d := attentionRank(a) - attentionRank(b); d != 0 {
			return d
		}
		return strings.Compare(a.Server.Name, b.Server.Name)
	})
	menu := MCPMenu{Title: "MCP servers", Confirm: "manage", Cancel: "close",
		Empty: fmt.Sprintf("No MCP servers configured. Add them to %s or .pi/mcp.json.", m.setup.GlobalFile)}
	var notes []string
	for _, p := range m.setup.Problems {
		notes = append(notes, "config: "+p)
	}
	menu.Error = strings.Join(notes, "\n")
	for _, c := range conns {
		s := c.Server
		menu.Items = append(menu.Items, PickItem{Label: s.Name, Arg: s.Name,
			Description: describeConn(c) + " · " + s.ServerExposure() + " · " + scopeOf(s)})
	}
	return menu
}

func (m *mcpState) serverMenu(conn *mcpclient.Conn) MCPMenu {
	s := conn.Server
	saved := "saved to mcp.json"
	switch {
	case s.Override != nil:
		saved = "saved to the project mcp.json"
	case s.Scope != "":
		saved = "saved to the " + s.Scope + " mcp.json"
	}
	inProject := s.Scope == "global" && s.Override == nil && m.setup.ProjectFile != ""
	const inProjectSaved = "saved to the project mcp.json"
	var items []PickItem
	st, errText := conn.State()
	if !s.Enabled {
		items = append(items, PickItem{Label: "Enable", Arg: "enable", Description: saved})
		if inProject {
			items = append(items, PickItem{Label: "Enable in this project", Arg: "enable-project", Description: inProjectSaved})
		}
	} else {
		if st == mcpclient.StateNeedsAuth {
			d := "opens the browser"
			if s.AuthProvider != "" {
				d = "with /login " + s.AuthProvider
			}
			items = append(items, PickItem{Label: "Sign in", Arg: "signin", Description: d})
		}
		if st == mcpclient.StateConnected {
			items = append(items, PickItem{Label: "Tools", Arg: "tools", Description: fmt.Sprintf("%d offered", len(conn.Tools()))})
		}
		switch st {
		case mcpclient.StateFailed, mcpclient.StateDisconnected, mcpclient.StateConnected, mcpclient.StateNeedsAuth:
			items = append(items, PickItem{Label: "Reconnect", Arg: "reconnect"})
		}
		if st == mcpclient.StateConnected && s.UsesOAuth() && m.setup.Auth != nil {
			items = append(items, PickItem{Label: "Sign out", Arg: "signout", Description: "deletes the stored credentials"})
		}
		items = append(items, PickItem{Label: "Exposure", Arg: "exposure", Description: s.ServerExposure()})
		items = append(items, PickItem{Label: "Disable", Arg: "disable", Description: saved})
		if inProject {
			items = append(items, PickItem{Label: "Disable in this project", Arg: "disable-project", Description: inProjectSaved})
		}
	}
	where := s.Source.File
	if s.Source.Line > 0 {
		where = fmt.Sprintf("%s:%d", where, s.Source.Line)
	}
	scope := s.Scope
	if scope == "" {
		scope = "config"
	}
	details := []string{s.Describe(), scope + ": " + where}
	if s.Override != nil {
		details = append(details, "project override: "+s.Override.File)
	}
	state := "disabled"
	if s.Enabled {
		state = describeConn(conn)
		if st == mcpclient.StateFailed {
			state = "failed"
		}
	}
	details = append(details, "State: "+state)
	var errs []string
	if msg := m.message(conn); msg != "" {
		errs = append(errs, msg)
	}
	if s.Enabled && st != mcpclient.StateConnected && errText != "" {
		errs = append(errs, errText)
	}
	menu := MCPMenu{Title: "MCP server " + s.Name, Details: strings.Join(details, "\n"), Error: strings.Join(errs, "\n"),
		Items: items, Confirm: "select", Cancel: "back"}
	if len(items) > 0 {
		menu.Selected = items[0].Arg
	}
	return menu
}

func (m *mcpState) toolsMenu(conn *mcpclient.Conn) MCPMenu {
	s := conn.Server
	exposure := s.ServerExposure()
	reach := "unreachable"
	for _, e := range mcpExposureDescriptions {
		if e.name == exposure {
			reach = e.desc
		}
	}
	details := fmt.Sprintf("Exposure %s: %s", exposure, reach)
	if len(s.ToolExposure) > 0 {
		details += "\nSome tools override it with toolExposure."
	}
	menu := MCPMenu{Title: "Tools of " + s.Name, Details: details, Empty: "The server offers no tools.", Confirm: "back", Cancel: "back"}
	for _, t := range conn.Tools() {
		d, _, _ := strings.Cut(t.Description, "\n")
		if e := s.ToolExposureOf(t.Name); e != exposure {
			d = "[" + e + "] " + d
		}
		menu.Items = append(menu.Items, PickItem{Label: t.Name, Arg: t.Name, Description: d})
	}
	return menu
}

func (m *mcpState) exposureMenu(conn *mcpclient.Conn) MCPMenu {
	s := conn.Server
	cur := s.ServerExposure()
	file := s.Source.File
	if s.Override != nil {
		file = s.Override.File
	}
	menu := MCPMenu{Title: "Exposure of " + s.Name, Details: "Saved to " + file + ".", Selected: cur, Confirm: "save", Cancel: "back"}
	for _, e := range mcpExposureDescriptions {
		mark := "  "
		if e.name == cur {
			mark = "✓ "
		}
		menu.Items = append(menu.Items, PickItem{Label: mark + e.name, Arg: e.name, Description: e.desc})
	}
	return menu
}

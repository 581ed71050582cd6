package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient"
)

// MCPUsage is /mcp's usage line.
const MCPUsage = "Usage: /mcp, /mcp login|logout|reconnect SERVER, /mcp enable|disable SERVER [--project], /mcp exposure SERVER codemode|deferred|direct|hidden"

// noMCPText is /mcp in a session without MCP servers.
const noMCPText = "No MCP servers in this session (mcp.json declares none, or --no-mcp)."

// mcpCommands is /mcp: pi 1.6 registers it as an extension command, so it runs in the chat
// and in `pigo -p` alike.
func mcpCommands() []Command {
	return []Command{{Name: "mcp", Run: func(ctx context.Context, s *Session, arg string) (Result, error) {
		if s.mcp == nil {
			return Result{Text: noMCPText}, nil
		}
		if !s.interactive && strings.TrimSpace(arg) == "" {
			// Without a person to look again, the status waits for every first attempt.
			s.mcp.mgr.Wait(ctx, nil)
		}
		text, err := s.mcp.command(ctx, arg)
		return Result{Text: text}, err
	}}}
}

// command is /mcp in a session: the servers' state, tool count, exposure and source, and the
// actions pi's /mcp manager offers — sign in (the browser flow runs in the background and the
// server reconnects once approved), sign out, reconnect, enable and disable (saved to the file
// that defines the server, keeping its comments; --project adds a project override), and the
// exposure. It returns the text to show.
func (m *mcpState) command(ctx context.Context, arg string) (string, error) {
	words := strings.Fields(arg)
	if len(words) == 0 {
		return m.status(), nil
	}
	action, rest := words[0], words[1:]
	project := false
	if i := slices.Index(rest, "--project"); i >= 0 {
		project = true
		rest = slices.Delete(rest, i, i+1)
	}
	var conn *mcpclient.Conn
	if len(rest) > 0 {
		if conn = m.mgr.Conn(rest[0]); conn == nil {
			return "", fmt.Errorf("No MCP server named %q.", rest[0])
		}
	}
	need := func(n int) error {
		if len(rest) != n || conn == nil {
			return errors.New(MCPUsage)
		}
		return nil
	}
	switch action {
	case "reconnect":
		if err := need(1); err != nil {
			return "", err
		}
		if !conn.Server.Enabled {
			return "", fmt.Errorf("MCP server %q is disabled.", conn.Server.Name)
		}
		if err := conn.Reconnect(ctx); err != nil {
			return "", err
		}
		m.markDirty()
		return fmt.Sprintf("Reconnected to MCP server %q (%s).", conn.Server.Name, describeConn(conn)), nil
	case "login":
		if err := need(1); err != nil {
			return "", err
		}
		return m.login(conn)
	case "logout":
		if err := need(1); err != nil {
			return "", err
		}
		s := conn.Server
		if !s.UsesOAuth() || m.setup.Auth == nil {
			return "", errors.New("No enabled MCP server uses OAuth. Only HTTP servers without an Authorization header do.")
		}
		removed, err := m.setup.Auth.Store.Remove(s.Name, s.URL)
		if err != nil {
			return "", err
		}
		_ = conn.Reconnect(ctx) // without credentials it waits for a sign-in
		m.markDirty()
		if removed {
			return fmt.Sprintf("Signed out of MCP server %q.", s.Name), nil
		}
		return fmt.Sprintf("No stored credentials for MCP server %q.", s.Name), nil
	case "enable", "disable":
		if err := need(1); err != nil {
			return "", err
		}
		return m.setEnabled(ctx, conn, action == "enable", project)
	case "exposure":
		if err := need(2); err != nil {
			return "", err
		}
		return m.setExposure(conn, rest[1])
	}
	return "", errors.New(MCPUsage)
}

// describeConn is pi's short state: "connected · 3 tools · resources", "needs sign-in", …
func describeConn(c *mcpclient.Conn) string {
	if !c.Server.Enabled {
		return "disabled"
	}
	st, msg := c.State()
	switch st {
	case mcpclient.StateNeedsAuth:
		return "needs sign-in"
	case mcpclient.StateFailed:
		first, _, _ := strings.Cut(msg, "\n")
		return "failed: " + first
	case mcpclient.StateConnected:
		s := "connected · " + plural(len(c.Tools()), "tool")
		if c.HasResources() {
			s += " · resources"
		}
		return s
	case mcpclient.StateConnecting:
		return "connecting…"
	}
	return st
}

// plural is "1 tool", "2 tools".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// status is pi's formatStatus with each server's source.
func (m *mcpState) status() string {
	var lines []string
	for _, c := range m.mgr.Conns() {
		s := c.Server
		where := s.Source.File
		if s.Source.Line > 0 {
			where = fmt.Sprintf("%s:%d", where, s.Source.Line)
		}
		if s.Override != nil {
			where += ", project override " + s.Override.File
		}
		st, msg := c.State()
		line := ""
		switch {
		case !s.Enabled:
			line = fmt.Sprintf("%s: disabled (%s)", s.Name, s.ServerExposure())
		case st == mcpclient.StateNeedsAuth && s.AuthProvider != "":
			// pi 1.6 says "/mcp login NAME" here too, which refuses a provider's server.
			line = fmt.Sprintf("%s: needs sign-in, run /login %s (%s)", s.Name, s.AuthProvider, s.ServerExposure())
		case st == mcpclient.StateNeedsAuth:
			line = fmt.Sprintf("%s: needs sign-in, run /mcp login %s (%s)", s.Name, s.Name, s.ServerExposure())
		case st == mcpclient.StateConnected:
			line = fmt.Sprintf("%s: connected, %s (%s)", s.Name, plural(len(c.Tools()), "tool"), s.ServerExposure())
		case st == mcpclient.StateDisconnected:
			line = fmt.Sprintf("%s: disconnected, reconnects on next call (%s)", s.Name, s.ServerExposure())
		default:
			line = fmt.Sprintf("%s: %s (%s)", s.Name, st, s.ServerExposure())
		}
		line += "\n    " + where
		if msg != "" && st != mcpclient.StateConnected {
			line += "\n    " + strings.ReplaceAll(msg, "\n", "\n    ")
		}
		lines = append(lines, line)
	}
	for _, p := range m.setup.Problems {
		lines = append(lines, "config: "+p)
	}
	if len(lines) == 0 {
		return fmt.Sprintf("No MCP servers configured. Add them to %s or .pi/mcp.json.", m.setup.GlobalFile)
	}
	return strings.Join(lines, "\n")
}

// login starts the browser sign-in in the background: the URL is shown (and opened) now, and
// the server reconnects once the user approved. In the chat a dialog also takes the redirect
// URL pasted from a browser on another machine (pi 1.6's manager sign-in screen); closing it
// cancels the sign-in, as in pi. The outcome becomes the server's manager message and a notice.
func (m *mcpState) login(conn *mcpclient.Conn) (string, error) {
	s := conn.Server
	if s.AuthProvider != "" {
		return "", fmt.Errorf("MCP server %q uses the credentials of provider %q; sign in with /login %s.", s.Name, s.AuthProvider, s.AuthProvider)
	}
	if !s.UsesOAuth() || m.setup.Auth == nil {
		return "", fmt.Errorf("MCP server %q does not use OAuth. Only HTTP servers without an Authorization header do.", s.Name)
	}
	urls := make(chan string, 1)
	done := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	var shown string
	prompt := mcpclient.SignInPrompt{ShowURL: func(u string) {
		shown = u
		if m.setup.OpenURL != nil {
			m.setup.OpenURL(u)
		}
		urls <- u
	}}
	if dl := m.s.o.Dialog; dl != nil && m.s.interactive {
		prompt.PastedURL = func(pctx context.Context) string {
			in, err := dl.Input(pctx, InputRequest{Kind: "text", Message: pasteMessage(s.Name, shown),
				Placeholder: "http://127.0.0.1:…/callback?code=…"})
			if errors.Is(err, ErrCancelled) || (err == nil && strings.TrimSpace(in) == "") {
				cancel() // the person closed the sign-in screen: the sign-in ends
			}
			return in
		}
	}
	go func() {
		defer cancel()
		err := m.setup.Auth.SignIn(ctx, s, conn.Challenge(), prompt)
		if err == nil {
			err = conn.Reconnect(ctx)
			m.markDirty()
		}
		done <- err
	}()
	select {
	case u := <-urls:
		go func() { // the outcome, for the manager's screen and the transcript
			err := <-done
			var text string
			switch {
			case err == nil:
				text = fmt.Sprintf("Signed in to MCP server %q (%s).", s.Name, plural(len(conn.Tools()), "tool"))
			case errors.Is(err, mcpclient.ErrSignInCancelled) || errors.Is(err, context.Canceled):
				text = fmt.Sprintf("Sign-in to MCP server %q cancelled.", s.Name)
			default:
				text = fmt.Sprintf("Sign-in to MCP server %q failed: %v", s.Name, err)
			}
			m.setMessage(conn, text)
			m.markDirty()
			m.s.fe.Notice(Notice{Text: text, Error: err != nil})
		}()
		return fmt.Sprintf("Sign in to MCP server %q in your browser:\n%s\nThe server reconnects once you approve.", s.Name, u), nil
	case err := <-done:
		if err != nil {
			return "", fmt.Errorf("Sign-in failed: %v", err)
		}
		return fmt.Sprintf("Signed in to MCP server %q (%s).", s.Name, plural(len(conn.Tools()), "tool")), nil
	}
}

// pasteMessage is the chat's sign-in screen for an MCP server: the URL to open, and the field
// for the redirect URL when the browser runs on another machine.
func pasteMessage(server, u string) string {
	return fmt.Sprintf("Sign in to %s\nApprove access in your browser. If it did not open, visit:\n%s\n\nIf the browser runs on another machine, paste the address it was redirected to (Esc cancels the sign-in):", server, u)
}

func (m *mcpState) setEnabled(ctx context.Context, conn *mcpclient.Conn, enable, inProject bool) (string, error) {
	s := conn.Server
	if m.setup.Save == nil {
		return "", errNoConfig
	}
	file, err := m.setup.Save(s, MCPChange{Enabled: &enable, Project: inProject})
	if err != nil {
		return "", err
	}
	s.Enabled = enable
	if enable {
		m.mgr.Start()
		err := conn.Reconnect(ctx)
		m.markDirty()
		if err != nil {
			return fmt.Sprintf("Enabled MCP server %q (saved to %s), but %v", s.Name, file, err), nil
		}
		return fmt.Sprintf("Enabled MCP server %q (saved to %s): %s.", s.Name, file, describeConn(conn)), nil
	}
	conn.Suspend()
	m.markDirty()
	return fmt.Sprintf("Disabled MCP server %q (saved to %s).", s.Name, file), nil
}

func (m *mcpState) setExposure(conn *mcpclient.Conn, exposure string) (string, error) {
	if !slices.Contains(mcp.Exposures, exposure) {
		return "", errors.New(MCPUsage)
	}
	if m.setup.Save == nil {
		return "", errNoConfig
	}
	s := conn.Server
	file, err := m.setup.Save(s, MCPChange{Exposure: exposure})
	if err != nil {
		return "", err
	}
	s.Exposure = exposure
	m.markDirty()
	return fmt.Sprintf("Exposure of MCP server %q is %s (saved to %s).", s.Name, exposure, file), nil
}

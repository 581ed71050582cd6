package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/mcpclient"
)

// mcpUsage is /mcp's usage line.
const mcpUsage = "Usage: /mcp, /mcp login|logout|reconnect SERVER, /mcp enable|disable SERVER [--project], /mcp exposure SERVER codemode|deferred|direct|hidden"

// command is /mcp in a session: the servers' state, tool count, exposure and source, and the
// actions pi's /mcp manager offers — sign in (the browser flow runs in the background and the
// server reconnects once approved), sign out, reconnect, enable and disable (saved to the file
// that defines the server, keeping its comments; --project adds a project override), and the
// exposure. It returns the text the chat shows.
func (m *mcpRun) command(ctx context.Context, arg string) (string, error) {
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
			return errors.New(mcpUsage)
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
		if !s.UsesOAuth() {
			return "", errors.New("No enabled MCP server uses OAuth. Only HTTP servers without an Authorization header do.")
		}
		removed, err := m.auth.Store.Remove(s.Name, s.URL)
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
	return "", errors.New(mcpUsage)
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

// status is pi's formatStatus with each server's source.
func (m *mcpRun) status() string {
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
	for _, d := range m.conf.Diags {
		lines = append(lines, "config: "+noteLine(d))
	}
	if len(lines) == 0 {
		return fmt.Sprintf("No MCP servers configured. Add them to %s or .pi/mcp.json.", m.conf.GlobalFile)
	}
	return strings.Join(lines, "\n")
}

// login starts the browser sign-in in the background: the URL is shown (and opened) now, and the
// server reconnects once the user approved.
func (m *mcpRun) login(conn *mcpclient.Conn) (string, error) {
	s := conn.Server
	if s.AuthProvider != "" {
		return "", fmt.Errorf("MCP server %q uses the credentials of provider %q; sign in with /login %s.", s.Name, s.AuthProvider, s.AuthProvider)
	}
	if !s.UsesOAuth() {
		return "", fmt.Errorf("MCP server %q does not use OAuth. Only HTTP servers without an Authorization header do.", s.Name)
	}
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
		defer cancel()
		err := m.auth.SignIn(ctx, s, conn.Challenge(), mcpclient.SignInPrompt{ShowURL: func(u string) {
			m.c.openURL(u)
			urls <- u
		}})
		if err == nil {
			err = conn.Reconnect(ctx)
			m.markDirty()
		}
		done <- err
	}()
	select {
	case u := <-urls:
		return fmt.Sprintf("Sign in to MCP server %q in your browser:\n%s\nThe server reconnects once you approve.", s.Name, u), nil
	case err := <-done:
		if err != nil {
			return "", fmt.Errorf("Sign-in failed: %v", err)
		}
		return fmt.Sprintf("Signed in to MCP server %q (%s).", s.Name, plural(len(conn.Tools()), "tool")), nil
	}
}

// definingScope is the file a change of the server is saved to (pi's saveConfig): its
// project override, the file that defines it, or (inProject) a new project override.
func (m *mcpRun) definingScope(s *mcp.Server, inProject bool) config.Scope {
	if inProject || s.Override != nil || s.Scope == string(config.Project) {
		return config.Project
	}
	return config.Global
}

// save applies ops to mcp.json of scope (keeping comments; validated first).
func (m *mcpRun) save(scope config.Scope, ops ...config.EditOp) error {
	_, err := m.r.cfg.Apply(config.MCP, scope, false, ops...)
	return err
}

func (m *mcpRun) setEnabled(ctx context.Context, conn *mcpclient.Conn, enable, inProject bool) (string, error) {
	s := conn.Server
	if inProject && !m.r.cfg.ProjectTrusted() {
		return "", errors.New("The project is not trusted: its .pi/mcp.json is not read.")
	}
	scope := m.definingScope(s, inProject)
	override := scope == config.Project && s.Scope != string(config.Project)
	path := "mcpServers." + quotePathKey(s.Name) + ".enabled"
	var err error
	switch {
	case enable && !override:
		if m.r.cfg.MCPDefines(scope, s.Name) && s.EnabledAt != nil {
			err = m.save(scope, config.EditOp{Op: config.OpUnset, Path: path})
		}
	default:
		err = m.save(scope, config.EditOp{Op: config.OpSet, Path: path, Value: []byte(fmt.Sprint(enable))})
	}
	if err != nil {
		return "", err
	}
	s.Enabled = enable
	file := m.r.cfg.Path(config.MCP, scope)
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

func (m *mcpRun) setExposure(conn *mcpclient.Conn, exposure string) (string, error) {
	if !slices.Contains(mcp.Exposures, exposure) {
		return "", errors.New(mcpUsage)
	}
	s := conn.Server
	scope := m.definingScope(s, false)
	path := "mcpServers." + quotePathKey(s.Name) + ".exposure"
	var err error
	if exposure == mcp.ExposureCodemode && s.Override == nil {
		if s.ExposureAt != nil {
			err = m.save(scope, config.EditOp{Op: config.OpUnset, Path: path})
		}
	} else {
		err = m.save(scope, config.EditOp{Op: config.OpSet, Path: path, Value: []byte(`"` + exposure + `"`)})
	}
	if err != nil {
		return "", err
	}
	s.Exposure = exposure
	m.markDirty()
	return fmt.Sprintf("Exposure of MCP server %q is %s (saved to %s).", s.Name, exposure, m.r.cfg.Path(config.MCP, scope)), nil
}

// mcpCommand runs "/mcp ..." outside the chat (pigo -p): it prints what /mcp says.
func (r *run) mcpCommand(ctx context.Context, text string, out io.Writer) (bool, error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(text), " ")
	if name != "/mcp" {
		return false, nil
	}
	if r.mcp == nil {
		fmt.Fprintln(out, "No MCP servers in this session (mcp.json declares none, or --no-mcp).")
		return true, nil
	}
	r.mcp.mgr.Wait(ctx, nil)
	s, err := r.mcp.command(ctx, arg)
	if err != nil {
		return true, err
	}
	fmt.Fprintln(out, s)
	return true, nil
}

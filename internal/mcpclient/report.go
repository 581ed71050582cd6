package mcpclient

import (
	"fmt"
	"io"
	"strings"

	"github.com/pigo-agent/pigo/internal/mcp"
)

// Report is one server as `pigo mcp list` shows it (its JSON: pi's shape).
type Report struct {
	Name         string            `json:"name"`
	Scope        string            `json:"scope"`
	Source       string            `json:"source"`
	Line         int               `json:"line,omitempty"`
	Override     string            `json:"override,omitempty"`
	Enabled      bool              `json:"enabled"`
	Exposure     string            `json:"exposure"`
	Transport    string            `json:"transport"`
	Sandbox      string            `json:"sandbox,omitempty"`
	AuthProvider string            `json:"authProvider,omitempty"`
	State        string            `json:"state"`
	Tools        []string          `json:"tools"`
	ToolExposure map[string]string `json:"toolExposure,omitempty"`
	Resources    bool              `json:"resources,omitempty"`
	Error        string            `json:"error,omitempty"`
}

// sandboxOf says how a stdio server runs.
func sandboxOf(s *mcp.Server) string {
	if s.Transport != mcp.Stdio {
		return ""
	}
	switch {
	case s.Sandbox.Off:
		return "off"
	case s.Sandbox.Widens():
		return "widened"
	}
	return "sandboxed"
}

// Reports are the manager's servers as they are now; failed is true when an enabled server
// is not connected.
func (m *Manager) Reports() (reports []Report, failed bool) {
	reports = []Report{}
	for _, conn := range m.Conns() {
		s := conn.Server
		r := Report{Name: s.Name, Scope: s.Scope, Source: s.Source.File, Line: s.Source.Line, Enabled: s.Enabled,
			Exposure: s.ServerExposure(), Transport: s.Describe(), Sandbox: sandboxOf(s), AuthProvider: s.AuthProvider,
			State: "disabled", Tools: []string{}}
		if s.Override != nil {
			r.Override = s.Override.File
		}
		if s.Enabled {
			st, e := conn.State()
			r.State = st
			for _, t := range conn.Tools() {
				r.Tools = append(r.Tools, t.Name)
				if x := s.ToolExposureOf(t.Name); x != r.Exposure {
					if r.ToolExposure == nil {
						r.ToolExposure = map[string]string{}
					}
					r.ToolExposure[t.Name] = x
				}
			}
			r.Resources = conn.HasResources()
			if st != StateConnected {
				r.Error = e
				failed = true
			}
		}
		reports = append(reports, r)
	}
	return reports, failed
}

// WriteReports prints the servers as `pigo mcp list` does, then mcp.json's errors and the
// note; globalFile is named when nothing is configured.
func WriteReports(w io.Writer, reports []Report, errs []string, note, globalFile string) {
	if len(reports) == 0 && len(errs) == 0 {
		fmt.Fprintf(w, "No MCP servers configured. Add them to %s or .pi/mcp.json.\n", globalFile)
	}
	for _, r := range reports {
		state := r.State
		switch r.State {
		case StateConnected:
			state = "connected, " + toolCount(len(r.Tools))
		case StateNeedsAuth:
			state = "needs sign-in"
		}
		fmt.Fprintf(w, "%s: %s (%s, %s)\n", r.Name, state, r.Exposure, r.Scope)
		fmt.Fprintf(w, "  %s\n", r.Transport)
		if r.Sandbox != "" && r.Sandbox != "sandboxed" {
			fmt.Fprintf(w, "  sandbox: %s\n", r.Sandbox)
		}
		if r.Override != "" {
			fmt.Fprintf(w, "  project override: %s\n", r.Override)
		}
		if r.State == StateNeedsAuth {
			if r.AuthProvider != "" {
				fmt.Fprintf(w, "  sign in with: /login %s in pigo\n", r.AuthProvider)
			} else {
				fmt.Fprintf(w, "  sign in with: pigo mcp login %s\n", r.Name)
			}
		}
		if len(r.Tools) > 0 {
			names := make([]string, len(r.Tools))
			for i, t := range r.Tools {
				names[i] = t
				if x, ok := r.ToolExposure[t]; ok {
					names[i] += " [" + x + "]"
				}
			}
			fmt.Fprintf(w, "  tools: %s\n", strings.Join(names, ", "))
		}
		if r.Resources {
			fmt.Fprintln(w, "  offers resources")
		}
		if r.Error != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(r.Error, "\n", "\n  "))
		}
	}
	for _, e := range errs {
		fmt.Fprintf(w, "config error: %s\n", e)
	}
	if note != "" {
		fmt.Fprintln(w, note)
	}
}

// toolCount is "1 tool" or "N tools".
func toolCount(n int) string {
	if n == 1 {
		return "1 tool"
	}
	return fmt.Sprintf("%d tools", n)
}

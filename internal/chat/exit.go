package chat

import (
	"strings"

	"github.com/pigo-agent/pigo/internal/termui"
)

// exitText is what the chat prints when it ends: in fullscreen mode the transcript and the
// editor and footer as they were (pi's fullscreenExitOutput "transcript"), then, for a session
// saved to a file, pi's "To resume this session:" and the command that does it, on the line
// after the footer (no blank line between, as pi).
func (m *Model) exitText() string {
	var b strings.Builder
	if m.fullscreen && m.o.UI.ExitOutput != "resume-hint" {
		w := m.width
		lines := m.transcript(w)
		lines = append(lines, m.editorLines(w)...)
		lines = append(lines, m.footer(w)...)
		for _, l := range lines {
			b.WriteString(strings.TrimRight(termui.Fit(l, w), " "))
			b.WriteString("\n")
		}
	}
	if s := m.sess(); s != nil && s.Persisted() && s.Path() != "" && fileExists(s.Path()) {
		b.WriteString(m.st.Faint("To resume this session:"))
		b.WriteString("\n")
		b.WriteString(m.resumeCommand())
		b.WriteString("\n")
	}
	return b.String()
}

// resumeCommand is the command that continues this session: pigo --session ID, with
// --session-dir when the session is not in the default folder.
func (m *Model) resumeCommand() string {
	s := m.sess()
	args := []string{"pigo"}
	if m.o.SessionDir != "" {
		args = append(args, "--session-dir", shellQuote(m.o.SessionDir))
	}
	return strings.Join(append(args, "--session", s.ID()), " ")
}

func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./~:@", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

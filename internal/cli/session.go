package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/prompt"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/table"
)

func init() {
	dirFlag := flag{names: []string{"--session-dir"}, value: true, help: "the session directory (default: $PI_CODING_AGENT_SESSION_DIR, settings sessionDir, else AGENTDIR/sessions/--<cwd>--)"}
	register(&command{
		name:    "session",
		summary: "list pi session files and show one session's current branch",
		usage:   "session list|show [flags]",
		sub: []*command{
			{name: "list", summary: "this cwd's sessions, newest first (every cwd with --all)",
				usage: "session list [--all] [--session-dir DIR]",
				flags: []flag{dirFlag, {names: []string{"--all"}, help: "sessions of every working directory"}},
				run:   runSessionList},
			{name: "show", summary: "one session's current branch (a path, a session id or a unique id prefix)",
				usage: "session show PATH|ID [--session-dir DIR]", flags: []flag{dirFlag}, run: runSessionShow},
		},
	})
}

// sessionLocation is where this cwd's sessions live (config.SessionLocation with
// --session-dir and $PI_CODING_AGENT_SESSION_DIR).
func (c *CLI) sessionLocation(cfg *config.Config, a *args) session.Location {
	return cfg.SessionLocation(a.str("--session-dir"), c.getenv(session.EnvDir))
}

// sessionJSON is one session in `session list` and `session show`.
type sessionJSON struct {
	ID            string `json:"id"`
	Path          string `json:"path"`
	Cwd           string `json:"cwd"`
	Name          string `json:"name"`
	ParentSession string `json:"parent_session,omitempty"`
	Created       string `json:"created"`
	Modified      string `json:"modified"`
	Messages      int    `json:"messages"`
	FirstMessage  string `json:"first_message"`
}

func toSessionJSON(in *session.Info) sessionJSON {
	return sessionJSON{ID: in.ID, Path: in.Path, Cwd: in.Cwd, Name: in.Name, ParentSession: in.ParentSession,
		Created: session.Timestamp(in.Created), Modified: session.Timestamp(in.Modified), Messages: in.Messages,
		FirstMessage: in.FirstMessage}
}

type sessionListJSON struct {
	Version  int           `json:"version"`
	Sessions []sessionJSON `json:"sessions"`
}

func runSessionList(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if len(a.pos) > 0 {
		fmt.Fprintf(c.Stderr, "pigo session list: unexpected argument %q\n", a.pos[0])
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	infos, err := session.List(c.sessionLocation(cfg, a), a.has("--all"))
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo session list: %v\n", err)
		return ExitInternal
	}
	if format == "json" {
		out := sessionListJSON{Version: 1, Sessions: []sessionJSON{}}
		for _, in := range infos {
			out.Sessions = append(out.Sessions, toSessionJSON(in))
		}
		return c.writeJSON(out)
	}
	if len(infos) == 0 {
		l := c.sessionLocation(cfg, a)
		fmt.Fprintf(c.Stdout, "no sessions in %s\n", l.Dir)
		return ExitOK
	}
	t := &table.Table{}
	head := []string{"ID", "MODIFIED", "MESSAGES", "NAME", "FIRST MESSAGE"}
	if a.has("--all") {
		head = append(head, "CWD")
	}
	t.Header(head...)
	for _, in := range infos {
		row := []any{in.ID, in.Modified.Local().Format("2006-01-02 15:04"), in.Messages, in.Name, clip(in.FirstMessage, 60)}
		if a.has("--all") {
			row = append(row, in.Cwd)
		}
		t.Append(row...)
	}
	if err := t.Render(c.Stdout); err != nil {
		fmt.Fprintf(c.Stderr, "pigo session list: %v\n", err)
		return ExitInternal
	}
	return ExitOK
}

type sessionShowJSON struct {
	Version int               `json:"version"`
	Session sessionJSON       `json:"session"`
	Entries []json.RawMessage `json:"entries"`
}

func runSessionShow(c *CLI, a *args) int {
	format, ok := c.format(a, "text", "json")
	if !ok {
		return ExitUsage
	}
	if len(a.pos) != 1 {
		fmt.Fprintln(c.Stderr, "pigo session show: give one session: a path, a session id or a unique id prefix")
		return ExitUsage
	}
	cfg, code := c.load(a)
	if cfg == nil {
		return code
	}
	l := c.sessionLocation(cfg, a)
	path, _, err := session.Resolve(l, a.pos[0])
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo session show: %v\n", err)
		return ExitFailed
	}
	s, err := session.Read(path)
	if err != nil {
		fmt.Fprintf(c.Stderr, "pigo session show: %v\n", err)
		return ExitFailed
	}
	info := s.Info()
	for _, w := range s.Warnings {
		fmt.Fprintf(c.Stderr, "pigo: %s\n", w)
	}
	branch := s.Branch("")
	if format == "json" {
		out := sessionShowJSON{Version: 1, Session: toSessionJSON(info), Entries: []json.RawMessage{}}
		for _, e := range branch {
			b, err := e.MarshalJSON()
			if err != nil {
				fmt.Fprintf(c.Stderr, "pigo session show: %v\n", err)
				return ExitInternal
			}
			out.Entries = append(out.Entries, b)
		}
		return c.writeJSON(out)
	}
	w := c.Stdout
	fmt.Fprintf(w, "session %s\n", info.ID)
	fmt.Fprintf(w, "  path:     %s\n", info.Path)
	fmt.Fprintf(w, "  cwd:      %s\n", info.Cwd)
	if info.Name != "" {
		fmt.Fprintf(w, "  name:     %s\n", info.Name)
	}
	if info.ParentSession != "" {
		fmt.Fprintf(w, "  forked from: %s\n", info.ParentSession)
	}
	fmt.Fprintf(w, "  created:  %s\n  modified: %s\n  messages: %d\n\n", session.Timestamp(info.Created), session.Timestamp(info.Modified), info.Messages)
	for _, e := range branch {
		writeEntry(w, e)
	}
	return ExitOK
}

// writeEntry prints one entry of the branch as a line (or a few): who, then what.
func writeEntry(w io.Writer, e *session.Entry) {
	at := e.Timestamp
	if t, err := session.ParseTimestamp(e.Timestamp); err == nil {
		at = t.Local().Format(time.TimeOnly)
	}
	p := func(who, what string) { fmt.Fprintf(w, "%s %s %s %s\n", e.ID, at, who, what) }
	switch e.Type {
	case session.TypeMessage:
		m := e.Message
		switch {
		case m == nil:
		case m.LLM != nil:
			writeLLM(p, m.LLM)
		case m.Bash != nil:
			p("bash", "$ "+clip(m.Bash.Command, 200))
		case m.Custom != nil:
			p("custom", "["+m.Custom.CustomType+"]")
		default:
			p(m.Role, "")
		}
	case session.TypeModelChange:
		p("model", e.Provider+"/"+e.ModelID)
	case session.TypeThinkingLevelChange:
		p("thinking", e.ThinkingLevel)
	case session.TypeCompaction:
		p("compaction", fmt.Sprintf("(%d tokens before) %s", e.TokensBefore, clip(e.Summary, 200)))
	case session.TypeBranchSummary:
		p("branch", clip(e.Summary, 200))
	case session.TypeCustom:
		p("custom", "["+e.CustomType+"]")
	case session.TypeCustomMessage:
		p("custom", "["+e.CustomType+"] message")
	case session.TypeLabel:
		l := "(cleared)"
		if e.Label != nil {
			l = *e.Label
		}
		p("label", e.TargetID+": "+l)
	case session.TypeSessionInfo:
		p("name", e.Name)
	default:
		p(e.Type, "")
	}
}

func writeLLM(p func(who, what string), m *llm.Message) {
	switch m.Role {
	case llm.RoleAssistant:
		if t := m.Text(); t != "" {
			p("assistant", clip(t, 200))
		}
		for _, tc := range m.ToolCalls() {
			p("assistant", "→ "+tc.Name+" "+clip(string(tc.Arguments), 160))
		}
		if m.StopReason == llm.StopError || m.StopReason == llm.StopAborted {
			p("assistant", "("+m.StopReason+") "+clip(m.ErrorMessage, 200))
		}
	case llm.RoleToolResult:
		who := "result"
		if m.IsError != nil && *m.IsError {
			who = "error"
		}
		p(who, m.ToolName+": "+clip(m.Text(), 160))
	default:
		p(m.Role, clip(m.Text(), 200))
	}
}

// clip folds white space and cuts s to n runes with an ellipsis.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// runPrompt builds a session run's system prompt (for the run command): pi 0.84's layout
// from the resolved tools, guidelines and skills, --system-prompt, --append-system-prompt,
// -nc, SYSTEM.md / APPEND_SYSTEM.md (the project's only when trusted), or the seed's
// template when the seed's system-prompt extension is installed from settings packages.
func (c *CLI) runPrompt(a *args, cfg *config.Config, res *config.Resolution) prompt.Result {
	cwd, _ := filepath.Abs(cfg.ProjectDir)
	o := prompt.FromResolution(res.Tools, res.Commands)
	o.Cwd, o.AgentDir, o.Trusted, o.Getenv = cwd, cfg.AgentDir, cfg.Trusted, c.getenv
	var pks []prompt.Package
	for _, p := range cfg.PackageSources() {
		pks = append(pks, prompt.Package{Source: p.Source, Extensions: p.Extensions, Project: p.Project})
	}
	if p := prompt.SeedTemplate(cfg.AgentDir, cwd, pks, a.list("-e")); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			o.Template = string(b)
		}
	}
	o.SystemPrompt = a.str("--system-prompt")
	o.AppendSystemPrompt = a.list("--append-system-prompt")
	o.NoContextFiles = a.has("-nc")
	return prompt.Build(o)
}

package cli

import (
	"fmt"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/session"
)

var sessionCmd = command{
	name:    "session",
	summary: "list pi session files and show one session's current branch",
	usage:   "session list|show [flags]",
	sub: []*command{
		{name: "list", summary: "this cwd's sessions, newest first (every cwd with --all)",
			usage: "session list [--all] [--session-dir DIR]",
			flags: []*flag{&sessionDirFlag, {names: []string{"--all"}, help: "sessions of every working directory"}},
			run:   runSessionList},
		{name: "show", summary: "one session's current branch (a path, a session id or a unique id prefix)",
			usage: "session show PATH|ID [--session-dir DIR]", flags: []*flag{&sessionDirFlag}, run: runSessionShow},
	},
}

// &sessionDirFlag is the session commands' --session-dir.
var sessionDirFlag = flag{names: []string{"--session-dir"}, value: true, help: "the session directory (default: $PI_CODING_AGENT_SESSION_DIR, settings sessionDir, else AGENTDIR/sessions/--<cwd>--)"}

// sessionLocation is where this cwd's sessions live (config.SessionLocation with
// --session-dir and $PI_CODING_AGENT_SESSION_DIR).
func (c *CLI) sessionLocation(cfg *config.Config, a *args) session.Location {
	return cfg.SessionLocation(a.str("--session-dir"), c.getenv(session.EnvDir))
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
		out := []session.InfoJSON{}
		for _, in := range infos {
			out = append(out, in.JSON())
		}
		return c.writeJSON(struct {
			Version  int                `json:"version"`
			Sessions []session.InfoJSON `json:"sessions"`
		}{1, out})
	}
	if len(infos) == 0 {
		l := c.sessionLocation(cfg, a)
		fmt.Fprintf(c.Stdout, "no sessions in %s\n", l.Dir)
		return ExitOK
	}
	if err := session.WriteTable(c.Stdout, infos, a.has("--all")); err != nil {
		fmt.Fprintf(c.Stderr, "pigo session list: %v\n", err)
		return ExitInternal
	}
	return ExitOK
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
	s, err := session.Find(l, a.pos[0])
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
		out, err := session.ShowJSON(info, branch)
		if err != nil {
			fmt.Fprintf(c.Stderr, "pigo session show: %v\n", err)
			return ExitInternal
		}
		return c.writeJSON(out)
	}
	session.WriteShow(c.Stdout, info, branch)
	return ExitOK
}

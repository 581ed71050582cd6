package chat

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/termui"
)

// Stats are a session's usage totals as pi's footer counts them: every assistant message of
// every branch (an aborted or failed answer too, and compaction summaries), so they survive
// an abort, -c and /resume, and start from nothing after /new.
type Stats struct {
	Input, Output, CacheRead, CacheWrite int
	Cost                                 float64
	// LastHit is the newest answer's cache-hit percentage (-1: unknown).
	LastHit float64
	// Context is the newest answer's context size (tokens) and whether it is known (after a
	// compaction it is not, until the next answer).
	Context      int
	ContextKnown bool
	// PerModel are the totals per "provider/model", and ToolCalls the calls per tool.
	PerModel  map[string]*llm.Usage
	ToolCalls map[string]int
	Messages  map[string]int
}

// SessionStats counts a session's entries.
func SessionStats(s *session.Session) Stats {
	st := Stats{LastHit: -1, PerModel: map[string]*llm.Usage{}, ToolCalls: map[string]int{}, Messages: map[string]int{}}
	if s == nil {
		return st
	}
	for _, e := range s.Entries() {
		if e.Type == "compaction" {
			st.ContextKnown = false
		}
		for _, msg := range session.EntryMessages(e) {
			st.Messages[msg.Role]++
			if msg.Role != llm.RoleAssistant {
				continue
			}
			for _, c := range msg.Content {
				if c.Type == llm.TypeToolCall {
					st.ToolCalls[c.Name]++
				}
			}
			u := msg.Usage
			if u == nil {
				continue
			}
			st.Input += u.Input
			st.Output += u.Output
			st.CacheRead += u.CacheRead
			st.CacheWrite += u.CacheWrite
			st.Cost += u.Cost.Total
			key := msg.Provider + "/" + msg.Model
			pm := st.PerModel[key]
			if pm == nil {
				pm = &llm.Usage{}
				st.PerModel[key] = pm
			}
			addUsage(pm, u)
			prompt := u.Input + u.CacheRead + u.CacheWrite
			if prompt > 0 {
				st.LastHit = float64(u.CacheRead) * 100 / float64(prompt)
			}
			if msg.StopReason != llm.StopAborted && msg.StopReason != llm.StopError {
				st.Context = prompt + u.Output
				if u.TotalTokens > st.Context {
					st.Context = u.TotalTokens
				}
				st.ContextKnown = true
			}
		}
	}
	return st
}

// stats are the footer's figures: the session's, or what this chat counted when it has no
// session.
func (m *Model) stats() Stats {
	if s := m.sess(); s != nil {
		// Counting is a scan of the session: it is redone when the session grows or changes.
		n := len(s.Entries())
		if m.statsFor != s || m.statsN != n {
			m.statsCache, m.statsFor, m.statsN = SessionStats(s), s, n
		}
		return m.statsCache
	}
	return Stats{Input: m.live.Input, Output: m.live.Output, CacheRead: m.live.CacheRead,
		CacheWrite: m.live.CacheWrite, Cost: m.live.Cost.Total, LastHit: -1,
		Context: m.contextUsed, ContextKnown: m.contextKnown}
}

// footer is pi's footer: the folder (with the git branch and the session's name), then the
// usage, cost and context figures on the left and the model on the right. Where pi cuts a
// part that does not fit, pigo wraps it onto another line.
func (m *Model) footer(w int) []string {
	st := m.st
	pwd := m.o.Cwd
	if pwd == "" {
		pwd, _ = os.Getwd()
	}
	pwd = tildePath(pwd, m.o.Home)
	if time.Since(m.branchAt) > 2*time.Second {
		m.branch, m.branchAt = gitBranch(m.o.Cwd), time.Now()
	}
	if b := m.branch; b != "" {
		pwd += " (" + b + ")"
	}
	if s := m.sess(); s != nil && s.Name() != "" {
		pwd += " • " + s.Name()
	}
	var out []string
	for _, l := range wrapWords(pwd, w) {
		out = append(out, st.Fg("dim", l))
	}
	s := m.stats()
	var parts []string
	if s.Input > 0 {
		parts = append(parts, "↑"+tokens(s.Input))
	}
	if s.Output > 0 {
		parts = append(parts, "↓"+tokens(s.Output))
	}
	if s.CacheRead > 0 {
		parts = append(parts, "R"+tokens(s.CacheRead))
	}
	if s.CacheWrite > 0 {
		parts = append(parts, "W"+tokens(s.CacheWrite))
	}
	if (s.CacheRead > 0 || s.CacheWrite > 0) && s.LastHit >= 0 {
		parts = append(parts, fmt.Sprintf("CH%.1f%%", s.LastHit))
	}
	if s.Cost > 0 {
		parts = append(parts, fmt.Sprintf("$%.3f", s.Cost))
	}
	auto := ""
	if m.o.AutoCompact {
		auto = " (auto)"
	}
	ctx := ""
	pct := 0.0
	if m.state.ContextWindow > 0 && s.ContextKnown {
		pct = float64(s.Context) * 100 / float64(m.state.ContextWindow)
	}
	if !s.ContextKnown && s.Context > 0 {
		ctx = "?/" + tokens(m.state.ContextWindow) + auto
	} else {
		ctx = fmt.Sprintf("%.1f%%/%s%s", pct, tokens(m.state.ContextWindow), auto)
	}
	switch {
	case pct > 90:
		ctx = st.Fg("error", ctx)
	case pct > 70:
		ctx = st.Fg("warning", ctx)
	default:
		ctx = st.Fg("dim", ctx)
	}
	model := m.state.Model
	prov := ""
	if i := strings.IndexByte(model, '/'); i >= 0 {
		prov, model = model[:i], model[i+1:]
	}
	if model == "" {
		model = "no-model"
	}
	right := model
	if m.state.Reasoning {
		lvl := m.state.Thinking
		if lvl == "" || lvl == "off" {
			right += " • thinking off"
		} else {
			right += " • " + lvl
		}
	}
	if m.o.Providers > 1 && prov != "" {
		right = "(" + prov + ") " + right
	}
	// The stats wrap at spaces between their parts; the model goes right of the last line
	// when it fits, else on its own line.
	var rows [][]string
	cur, cw := []string{}, 0
	for _, p := range append(parts, ctx) {
		pw := termui.Width(ansiStrip(p))
		if cw > 0 && cw+1+pw > w {
			rows = append(rows, cur)
			cur, cw = nil, 0
		}
		if cw > 0 {
			cw++
		}
		cur = append(cur, p)
		cw += pw
	}
	rows = append(rows, cur)
	for i, r := range rows {
		line := ""
		for j, p := range r {
			if j > 0 {
				line += st.Fg("dim", " ")
			}
			if strings.Contains(p, "\x1b") {
				line += p
			} else {
				line += st.Fg("dim", p)
			}
		}
		if i == len(rows)-1 {
			lw := termui.Width(ansiStrip(line))
			rw := termui.Width(right)
			if lw+2+rw <= w {
				line += strings.Repeat(" ", w-lw-rw) + st.Fg("dim", right)
				out = append(out, line)
				continue
			}
			out = append(out, line)
			for _, l := range wrapWords(right, w) {
				out = append(out, strings.Repeat(" ", max(0, w-termui.Width(l)))+st.Fg("dim", l))
			}
			continue
		}
		out = append(out, line)
	}
	return out
}

// wrapWords wraps plain text at spaces, breaking a word only when it alone is too wide.
func wrapWords(s string, w int) []string {
	return termui.Wrap(s, w)
}

func tildePath(p, home string) string {
	if home == "" {
		home = os.Getenv("HOME")
	}
	if home == "" || p == "" {
		return p
	}
	rel, err := filepath.Rel(home, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return p
	}
	if rel == "." {
		return "~"
	}
	return "~" + string(filepath.Separator) + rel
}

// gitBranch is the branch checked out in dir's repository ("" outside one; a detached HEAD
// shows "detached").
func gitBranch(dir string) string {
	for d := dir; d != ""; {
		git := filepath.Join(d, ".git")
		if fi, err := os.Stat(git); err == nil {
			if !fi.IsDir() {
				// A worktree or submodule: ".git" names the git dir.
				b, err := os.ReadFile(git)
				if err != nil {
					return ""
				}
				t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(b)), "gitdir:"))
				if !filepath.IsAbs(t) {
					t = filepath.Join(d, t)
				}
				git = t
			}
			head, err := os.ReadFile(filepath.Join(git, "HEAD"))
			if err != nil {
				return ""
			}
			h := strings.TrimSpace(string(head))
			if r, ok := strings.CutPrefix(h, "ref: refs/heads/"); ok {
				return r
			}
			return "detached"
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return ""
}

// Package export writes a session out as /export does: JSONL (the session header and the
// entries of the current branch, one per line, as pi writes them, so pi or pigo can import
// it) or a self-contained HTML page of the conversation (prompts, answers, thinking, tool
// calls and results), coloured from the theme's roles.
package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
)

// JSONL writes the session's header and its current branch to path ("" names a file
// session-<time>.jsonl in dir) and returns the path written.
func JSONL(s *session.Session, path, dir string, now time.Time) (string, error) {
	if path == "" {
		path = "session-" + strings.NewReplacer(":", "-", ".", "-").Replace(now.UTC().Format("2006-01-02T15:04:05.000Z")) + ".jsonl"
	}
	path = resolve(path, dir)
	var b bytes.Buffer
	h := s.Header()
	hb, err := json.Marshal(&h)
	if err != nil {
		return "", err
	}
	b.Write(hb)
	b.WriteByte('\n')
	for _, e := range s.Branch(s.Leaf()) {
		eb, err := json.Marshal(e)
		if err != nil {
			return "", err
		}
		b.Write(eb)
		b.WriteByte('\n')
	}
	return path, write(path, b.Bytes())
}

// Colors are the page's colours (CSS values).
type Colors struct {
	Page, Card, Info, Text, Muted, Accent, User, Error, Success string
}

// DefaultColors is a dark page.
var DefaultColors = Colors{Page: "#1d1b22", Card: "#25232b", Info: "#3b3520", Text: "#e1e2e6",
	Muted: "#a3a6b1", Accent: "#c497e8", User: "#2a3357", Error: "#f08a74", Success: "#7ed7b0"}

// HTML writes the conversation of the current branch as one HTML page to path ("" names a
// file pigo-session-<session file name>.html in dir) and returns the path written.
func HTML(s *session.Session, path, dir string, c Colors) (string, error) {
	if path == "" {
		base := strings.TrimSuffix(filepath.Base(s.Path()), ".jsonl")
		if s.Path() == "" {
			base = s.ID()
		}
		path = "pigo-session-" + base + ".html"
	}
	path = resolve(path, dir)
	var b strings.Builder
	h := s.Header()
	title := "pigo session " + h.ID
	if n := s.Name(); n != "" {
		title = n
	}
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>
body{background:%s;color:%s;font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace;margin:0;padding:2em}
main{max-width:60em;margin:auto}
.meta{color:%s;margin-bottom:2em}
.msg{background:%s;border-radius:6px;padding:.8em 1em;margin:1em 0;white-space:pre-wrap;word-wrap:break-word}
.user{background:%s}
.thinking{color:%s;font-style:italic}
.tool .name{color:%s;font-weight:bold}
.error{color:%s}
.info{background:%s}
pre{margin:0;white-space:pre-wrap}
</style></head><body><main>
`, html.EscapeString(title), c.Page, c.Text, c.Muted, c.Card, c.User, c.Muted, c.Accent, c.Error, c.Info)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<div class=\"meta\">Session %s · %s · %s</div>\n",
		html.EscapeString(title), html.EscapeString(h.ID), html.EscapeString(h.Cwd), html.EscapeString(h.Timestamp))
	for _, e := range s.Branch(s.Leaf()) {
		switch e.Type {
		case "compaction", "branch_summary":
			fmt.Fprintf(&b, "<div class=\"msg info\"><b>%s</b>\n%s</div>\n", html.EscapeString(strings.ReplaceAll(e.Type, "_", " ")), html.EscapeString(e.Summary))
			continue
		case "model_change":
			fmt.Fprintf(&b, "<div class=\"meta\">Model: %s/%s</div>\n", html.EscapeString(e.Provider), html.EscapeString(e.ModelID))
			continue
		}
		for _, m := range session.EntryMessages(e) {
			writeMessage(&b, &m)
		}
	}
	b.WriteString("</main></body></html>\n")
	return path, write(path, []byte(b.String()))
}

func writeMessage(b *strings.Builder, m *llm.Message) {
	switch m.Role {
	case llm.RoleUser:
		fmt.Fprintf(b, "<div class=\"msg user\">%s</div>\n", html.EscapeString(text(m)))
	case llm.RoleAssistant:
		for _, c := range m.Content {
			switch c.Type {
			case llm.TypeThinking:
				fmt.Fprintf(b, "<div class=\"msg thinking\">%s</div>\n", html.EscapeString(c.Thinking))
			case llm.TypeText:
				if strings.TrimSpace(c.Text) != "" {
					fmt.Fprintf(b, "<div class=\"msg\">%s</div>\n", html.EscapeString(c.Text))
				}
			case llm.TypeToolCall:
				fmt.Fprintf(b, "<div class=\"msg tool\"><span class=\"name\">%s</span> <pre>%s</pre></div>\n",
					html.EscapeString(c.Name), html.EscapeString(string(c.Arguments)))
			}
		}
		if m.ErrorMessage != "" {
			fmt.Fprintf(b, "<div class=\"msg error\">%s</div>\n", html.EscapeString(m.ErrorMessage))
		}
	case llm.RoleToolResult:
		cls := "msg tool"
		if m.IsError != nil && *m.IsError {
			cls += " error"
		}
		fmt.Fprintf(b, "<div class=\"%s\"><pre>%s</pre></div>\n", cls, html.EscapeString(text(m)))
	}
}

func text(m *llm.Message) string {
	var parts []string
	for _, c := range m.Content {
		switch c.Type {
		case llm.TypeText:
			parts = append(parts, c.Text)
		case llm.TypeImage:
			parts = append(parts, "[image]")
		}
	}
	return strings.Join(parts, "\n")
}

func resolve(path, dir string) string {
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[2:])
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	return path
}

func write(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

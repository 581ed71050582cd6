package session

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/table"
)

// InfoJSON is one session in `pigo session list` and `pigo session show` (cli.md's shape).
type InfoJSON struct {
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

// JSON is the session as `pigo session list --format json` shows it.
func (in *Info) JSON() InfoJSON {
	return InfoJSON{ID: in.ID, Path: in.Path, Cwd: in.Cwd, Name: in.Name, ParentSession: in.ParentSession,
		Created: Timestamp(in.Created), Modified: Timestamp(in.Modified), Messages: in.Messages,
		FirstMessage: in.FirstMessage}
}

// ShowJSON is `pigo session show --format json`: the session and its branch's entries.
func ShowJSON(info *Info, branch []*Entry) (any, error) {
	out := struct {
		Version int               `json:"version"`
		Session InfoJSON          `json:"session"`
		Entries []json.RawMessage `json:"entries"`
	}{1, info.JSON(), []json.RawMessage{}}
	for _, e := range branch {
		b, err := e.MarshalJSON()
		if err != nil {
			return nil, err
		}
		out.Entries = append(out.Entries, b)
	}
	return out, nil
}

// WriteTable prints sessions as `pigo session list` does (with their folder when all).
func WriteTable(w io.Writer, infos []*Info, all bool) error {
	t := &table.Table{}
	head := []string{"ID", "MODIFIED", "MESSAGES", "NAME", "FIRST MESSAGE"}
	if all {
		head = append(head, "CWD")
	}
	t.Header(head...)
	for _, in := range infos {
		row := []any{in.ID, in.Modified.Local().Format("2006-01-02 15:04"), in.Messages, in.Name, clip(in.FirstMessage, 60)}
		if all {
			row = append(row, in.Cwd)
		}
		t.Append(row...)
	}
	return t.Render(w)
}

// WriteShow prints the session's facts, then each entry of branch as a line (or a few), as
// `pigo session show` does.
func WriteShow(w io.Writer, info *Info, branch []*Entry) {
	fmt.Fprintf(w, "session %s\n", info.ID)
	fmt.Fprintf(w, "  path:     %s\n", info.Path)
	fmt.Fprintf(w, "  cwd:      %s\n", info.Cwd)
	if info.Name != "" {
		fmt.Fprintf(w, "  name:     %s\n", info.Name)
	}
	if info.ParentSession != "" {
		fmt.Fprintf(w, "  forked from: %s\n", info.ParentSession)
	}
	fmt.Fprintf(w, "  created:  %s\n  modified: %s\n  messages: %d\n\n", Timestamp(info.Created), Timestamp(info.Modified), info.Messages)
	for _, e := range branch {
		writeEntry(w, e)
	}
}

// writeEntry prints one entry of the branch as a line (or a few): who, then what.
func writeEntry(w io.Writer, e *Entry) {
	at := e.Timestamp
	if t, err := ParseTimestamp(e.Timestamp); err == nil {
		at = t.Local().Format(time.TimeOnly)
	}
	p := func(who, what string) { fmt.Fprintf(w, "%s %s %s %s\n", e.ID, at, who, what) }
	switch e.Type {
	case TypeMessage:
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
	case TypeModelChange:
		p("model", e.Provider+"/"+e.ModelID)
	case TypeThinkingLevelChange:
		p("thinking", e.ThinkingLevel)
	case TypeCompaction:
		p("compaction", fmt.Sprintf("(%d tokens before) %s", e.TokensBefore, clip(e.Summary, 200)))
	case TypeBranchSummary:
		p("branch", clip(e.Summary, 200))
	case TypeCustom:
		p("custom", "["+e.CustomType+"]")
	case TypeCustomMessage:
		p("custom", "["+e.CustomType+"] message")
	case TypeLabel:
		l := "(cleared)"
		if e.Label != nil {
			l = *e.Label
		}
		p("label", e.TargetID+": "+l)
	case TypeSessionInfo:
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

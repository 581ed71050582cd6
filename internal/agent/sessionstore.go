package agent

import (
	"encoding/json"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
)

// SessionStore records into a pi session (internal/session): the loop's messages become
// message entries, compactions compaction entries, and the branch and context come from the
// session's current leaf.
func SessionStore(s *session.Session) Store { return sessionStore{s} }

type sessionStore struct{ s *session.Session }

func (st sessionStore) AppendMessage(m llm.Message) error {
	_, err := st.s.AppendMessage(m)
	return err
}

func (st sessionStore) AppendCompaction(c Compaction) error {
	var details any
	if len(c.Details) > 0 {
		details = c.Details
	}
	var fromHook *bool
	if c.FromHook {
		t := true
		fromHook = &t
	}
	_, err := st.s.AppendCompaction(session.Compaction{Summary: c.Summary, FirstKeptEntryID: c.FirstKeptEntryID,
		TokensBefore: c.TokensBefore, Details: details, Usage: c.Usage, FromHook: fromHook})
	return err
}

func (st sessionStore) Context() []llm.Message { return st.s.Transcript() }

func (st sessionStore) Branch() []Entry {
	path := st.s.Branch("")
	out := make([]Entry, 0, len(path))
	for _, e := range path {
		out = append(out, entryOf(e))
	}
	return out
}

// LatestCompaction finds the branch's latest compaction entry, converting only it.
func (st sessionStore) LatestCompaction() *Entry {
	if c := st.s.LatestCompaction(); c != nil {
		e := entryOf(c)
		return &e
	}
	return nil
}

func millisOf(iso string) int64 {
	t, err := session.ParseTimestamp(iso)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

func userText(s string, ts int64) *llm.Message {
	return &llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(s)}, Timestamp: ts}
}

// customContent decodes a custom message's content: a JSON string or an array of blocks.
func customContent(r json.RawMessage) []llm.Content {
	if len(r) > 0 && r[0] == '"' {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return []llm.Content{llm.TextBlock(s)}
		}
	}
	var out []llm.Content
	if json.Unmarshal(r, &out) != nil || out == nil {
		return []llm.Content{}
	}
	return out
}

// entryOf is pi's sessionEntryToContextMessages + convertToLlm for one entry, keeping the
// app role for the cut-point rules.
func entryOf(e *session.Entry) Entry {
	ts := millisOf(e.Timestamp)
	var d session.EntryData // a message entry may have none
	if e.EntryData != nil {
		d = *e.EntryData
	}
	out := Entry{ID: e.ID, Type: e.Type, Timestamp: ts, Summary: d.Summary, FirstKeptEntryID: d.FirstKeptEntryID,
		TokensBefore: d.TokensBefore, Details: d.Details, FromHook: d.FromHook != nil && *d.FromHook}
	switch e.Type {
	case session.TypeMessage:
		m := e.Message
		if m == nil {
			break
		}
		out.Role = m.Role
		switch {
		case m.LLM != nil:
			msg := *m.LLM
			if msg.Content == nil {
				msg.Content = []llm.Content{}
			}
			out.Message = &msg
		case m.Bash != nil:
			if !m.Bash.ExcludeFromContext {
				out.Message = userText(session.BashText(m.Bash), m.Bash.Timestamp)
			}
		case m.Custom != nil:
			out.Message = &llm.Message{Role: llm.RoleUser, Content: customContent(m.Custom.Content), Timestamp: m.Custom.Timestamp}
		}
	case session.TypeCustomMessage:
		out.Role = RoleCustom
		out.Message = &llm.Message{Role: llm.RoleUser, Content: customContent(e.Content), Timestamp: ts}
	case session.TypeBranchSummary:
		if e.Summary != "" {
			out.Role = RoleBranchSummary
			out.Message = userText(session.BranchSummaryPrefix+e.Summary+session.BranchSummarySuffix, ts)
		}
	case session.TypeCompaction:
		out.Role = RoleCompactionSummary
		out.Message = userText(session.CompactionSummaryPrefix+e.Summary+session.CompactionSummarySuffix, ts)
	}
	return out
}

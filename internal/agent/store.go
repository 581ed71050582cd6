package agent

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Pi's context roles of app messages (their entries reach the model as user messages).
const (
	RoleBashExecution     = "bashExecution"
	RoleCustom            = "custom"
	RoleBranchSummary     = "branchSummary"
	RoleCompactionSummary = "compactionSummary"
)

// Entry is one session entry on the current branch, as the loop and compaction see it.
type Entry struct {
	ID   string
	Type string // message | compaction | branch_summary | custom_message | model_change | ...
	// Timestamp is Unix milliseconds.
	Timestamp int64
	// Role is the pi role of the context message the entry gives ("" when it gives none):
	// user, assistant, toolResult, bashExecution, custom, branchSummary, compactionSummary.
	Role string
	// Message is that context message as the model sees it (app messages already converted
	// to user messages, as pi's convertToLlm does).
	Message *llm.Message
	// Compaction entries (and Summary also for branch summaries).
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	Details          json.RawMessage
	FromHook         bool
}

// Compaction is a compaction entry to append.
type Compaction struct {
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	Details          json.RawMessage
	FromHook         bool
	Usage            *llm.Usage
}

// Store is the session the loop records into: pi's session manager as the loop needs it.
type Store interface {
	// AppendMessage records a user, assistant or toolResult message at the leaf.
	AppendMessage(m llm.Message) error
	// AppendCompaction records a compaction entry at the leaf.
	AppendCompaction(c Compaction) error
	// Branch is the current branch, root first.
	Branch() []Entry
	// Context is the branch as the model sees it (latest compaction summary, then the kept
	// entries), app messages converted. The loop appends to it: a store gives room after
	// the messages (capacity) to one caller at most, never to two (see session.Transcript).
	Context() []llm.Message
}

// pi's wrappers of summaries in the context (core/messages.js).
const (
	compactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSummarySuffix = "\n</summary>"
	branchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSummarySuffix     = "</summary>"
)

// CompactionSummaryMessage is the user message a compaction summary becomes in the context.
func CompactionSummaryMessage(summary string, ts int64) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(compactionSummaryPrefix + summary + compactionSummarySuffix)}, Timestamp: ts}
}

// BranchSummaryMessage is the user message a branch summary becomes in the context.
func BranchSummaryMessage(summary string, ts int64) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(branchSummaryPrefix + summary + branchSummarySuffix)}, Timestamp: ts}
}

// ContextEntries is pi's buildContextEntries over a branch: with a compaction on the branch,
// the latest compaction, then the entries from its first kept entry, then those after it.
func ContextEntries(branch []Entry) []Entry {
	ci := -1
	for i, e := range branch {
		if e.Type == "compaction" {
			ci = i
		}
	}
	if ci < 0 {
		return branch
	}
	out := []Entry{branch[ci]}
	kept := false
	for i := 0; i < ci; i++ {
		if branch[i].ID == branch[ci].FirstKeptEntryID {
			kept = true
		}
		if kept {
			out = append(out, branch[i])
		}
	}
	return append(out, branch[ci+1:]...)
}

// ContextMessages turns context entries into the messages the model sees.
func ContextMessages(entries []Entry) []llm.Message {
	var out []llm.Message
	for _, e := range entries {
		switch {
		case e.Type == "compaction":
			out = append(out, CompactionSummaryMessage(e.Summary, e.Timestamp))
		case e.Message != nil:
			out = append(out, *e.Message)
		}
	}
	return out
}

// MemStore is an in-memory Store (pi's SessionManager.inMemory): a linear branch.
type MemStore struct {
	mu      sync.Mutex
	entries []Entry
	// Clock stamps entries (nil: the message's own timestamp, or 0 for compactions).
	Clock func() int64
}

func (s *MemStore) nextID() string { return fmt.Sprintf("%08x", len(s.entries)+1) }

// AppendMessage implements Store.
func (s *MemStore) AppendMessage(m llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := m.Timestamp
	if s.Clock != nil {
		ts = s.Clock()
	}
	s.entries = append(s.entries, Entry{ID: s.nextID(), Type: "message", Timestamp: ts, Role: m.Role, Message: &m})
	return nil
}

// AppendCompaction implements Store.
func (s *MemStore) AppendCompaction(c Compaction) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts := time.Now().UnixMilli()
	if s.Clock != nil {
		ts = s.Clock()
	}
	s.entries = append(s.entries, Entry{ID: s.nextID(), Type: "compaction", Timestamp: ts, Role: RoleCompactionSummary,
		Summary: c.Summary, FirstKeptEntryID: c.FirstKeptEntryID, TokensBefore: c.TokensBefore, Details: c.Details, FromHook: c.FromHook})
	return nil
}

// Branch implements Store.
func (s *MemStore) Branch() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Entry(nil), s.entries...)
}

// Context implements Store.
func (s *MemStore) Context() []llm.Message {
	return ContextMessages(ContextEntries(s.Branch()))
}

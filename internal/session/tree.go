package session

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Header returns the session header.
func (s *Session) Header() Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header
}

// ID is the session id.
func (s *Session) ID() string { return s.Header().ID }

// Cwd is the session's working directory (from its header).
func (s *Session) Cwd() string { return s.Header().Cwd }

// Path is the session file ("" for an in-memory session). The file exists once the first
// assistant message has been appended.
func (s *Session) Path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path
}

// Dir is the directory new and branched sessions of this one go to.
func (s *Session) Dir() string { return s.dir }

// Persisted reports whether the session is written to a file.
func (s *Session) Persisted() bool { return s.persist }

// Entries returns all entries in file order (the header excluded).
func (s *Session) Entries() []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Entry(nil), s.entries...)
}

// Entry returns the entry with the id, or nil.
func (s *Session) Entry(id string) *Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID(id)
}

// Leaf is the current position's entry id ("" before the first entry).
func (s *Session) Leaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leaf
}

// SetLeaf moves the leaf to an earlier entry; the next entry starts a new branch there
// (pi's branch). No entry is changed or removed.
func (s *Session) SetLeaf(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID(id) == nil {
		return fmt.Errorf("entry %s not found", id)
	}
	s.leaf = id
	return nil
}

// ResetLeaf moves the leaf before the first entry: the next entry is a new root.
func (s *Session) ResetLeaf() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leaf = ""
}

// Children returns the direct children of an entry ("" for the roots), in file order.
func (s *Session) Children(id string) []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Entry
	for _, e := range s.entries {
		if e.ParentID == id {
			out = append(out, e)
		}
	}
	return out
}

// Label returns an entry's label ("" when it has none).
func (s *Session) Label(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.labels[id]
}

// Name is the session's display name: the latest session_info entry's ("" when unnamed or
// cleared).
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The last session_info entry is kept as entries are added: a long session without one
	// was walked whole, pointer by pointer, at every call (two on a continuation's way to its
	// first request: ~1.5 ms each at 64 MB).
	if s.info == 0 {
		return ""
	}
	return trimSpace(s.entries[s.info-1].Name)
}

// Branch returns the path from the root to the entry id ("" = the leaf), in order. It
// includes every entry type.
func (s *Session) Branch(id string) []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id == "" {
		id = s.leaf
	}
	return append([]*Entry(nil), s.branchLocked(id)...)
}

// LatestCompaction is the current branch's last compaction entry (nil: none). A session
// without compaction entries answers at once: the branch is neither copied nor walked (after
// every run of a 64 MB session, ~75,000 entries and a cache miss each).
func (s *Session) LatestCompaction() *Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.compactions == 0 {
		return nil
	}
	path := s.branchLocked(s.leaf)
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].Type == TypeCompaction {
			return path[i]
		}
	}
	return nil
}

// branchLocked is the path to id; the caller must not change it (the leaf's is cached).
func (s *Session) branchLocked(id string) []*Entry {
	if s.branch != nil && id == s.branchLeaf {
		return s.branch[:len(s.branch):len(s.branch)]
	}
	path := s.walk(id)
	if id == s.leaf && len(path) > 0 {
		s.branch, s.branchLeaf = path, id
	}
	return path[:len(path):len(path)]
}

// walk follows the parent links from id to the root: the parent positions index resolved
// (one map lookup per entry here was most of a long session's walk).
func (s *Session) walk(id string) []*Entry {
	if s.stale {
		s.relink()
	}
	if p := s.ids.get(s.entries, id); p >= 0 && p < s.chain {
		return slices.Clone(s.entries[:p+1])
	}
	var path []*Entry
	// A parent chain longer than the entry count has a cycle (a hand-edited file): stop.
	for e := s.byID(id); e != nil && len(path) <= len(s.entries); {
		path = append(path, e)
		if e.parent == 0 {
			break
		}
		e = s.entries[e.parent-1]
	}
	slices.Reverse(path)
	return path
}

// ContextEntries is the compaction-aware entry list of the current branch (pi's
// buildContextEntries): without a compaction, the branch; with one, the latest compaction
// entry, then the kept entries from its firstKeptEntryId, then everything after it.
func (s *Session) ContextEntries() []*Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Entry(nil), contextEntries(s.branchLocked(s.leaf))...)
}

func contextEntries(path []*Entry) []*Entry {
	ci := -1
	for i, e := range path {
		if e.Type == TypeCompaction {
			ci = i
		}
	}
	if ci < 0 {
		return path
	}
	c := path[ci]
	out := []*Entry{c}
	kept := false
	for _, e := range path[:ci] {
		if e.ID == c.FirstKeptEntryID {
			kept = true
		}
		if kept {
			out = append(out, e)
		}
	}
	return append(out, path[ci+1:]...)
}

// ModelRef names a model.
type ModelRef struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

// Context is what the model sees of the current branch, and the settings it implies.
type Context struct {
	// Messages are the LLM messages (app messages converted as pi's convertToLlm does).
	Messages []llm.Message
	// ThinkingLevel is the last thinking_level_change on the branch ("off" when none).
	ThinkingLevel string
	// Model is the last model_change or assistant message's model on the branch (nil: none).
	Model *ModelRef
}

// Context builds the LLM context from the current branch (pi's buildSessionContext +
// convertToLlm): the compaction summary first, then the kept entries.
func (s *Session) Context() Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cachedContext()
	// The messages are shared with the cache and earlier callers: clipped, so that an
	// append copies them; no caller changes a message in place (the agent's transcript is
	// only appended to or replaced whole).
	c := *s.ctx
	c.Messages = c.Messages[:len(c.Messages):len(c.Messages)]
	if c.Model != nil {
		m := *c.Model
		c.Model = &m
	}
	return c
}

// Transcript is Context's messages for the one caller that appends to them (the agent's
// transcript): the first call after a build gets them with the room buildContext leaves
// after them, so that the turn's first appends do not copy the whole transcript (at 64 MB,
// 20 MB, with the cache's copy still live); later calls get them clipped, as Context's
// callers do, so no two callers ever append into the same room.
func (s *Session) Transcript() []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := s.cachedContext().Messages
	if s.ctxRoom {
		s.ctxRoom = false
		return ms
	}
	return ms[:len(ms):len(ms)]
}

// transcriptRoom is the number of messages buildContext leaves room for after a context's.
const transcriptRoom = 32

// cachedContext returns the context of the current leaf, built if it is not cached.
func (s *Session) cachedContext() *Context {
	if s.ctx == nil || s.ctxLeaf != s.leaf {
		c := s.buildContext()
		s.ctx, s.ctxLeaf, s.ctxRoom = &c, s.leaf, true
	}
	return s.ctx
}

func (s *Session) buildContext() Context {
	path := s.branchLocked(s.leaf)
	c := Context{ThinkingLevel: "off"}
	var model ModelRef
	hasModel := false
	for _, e := range path {
		switch {
		case e.Type == TypeThinkingLevelChange:
			c.ThinkingLevel = e.ThinkingLevel
		case e.Type == TypeModelChange:
			model, hasModel = ModelRef{e.Provider, e.ModelID}, true
		case e.Type == TypeMessage && e.Message != nil && e.Message.LLM != nil && e.Message.Role == llm.RoleAssistant:
			model, hasModel = ModelRef{e.Message.LLM.Provider, e.Message.LLM.Model}, true
		}
	}
	if hasModel {
		c.Model = &model
	}
	ces := contextEntries(path)
	c.Messages = appendLLMs(make([]llm.Message, 0, len(ces)+transcriptRoom), ces)
	return c
}

// halvesAbove is the number of entries from which appendLLMs copies their messages on two
// cores.
const halvesAbove = 4096

// appendLLMs appends the messages of es (appendLLM's) to dst. A long list is done in two
// halves at once when dst has room for a message an entry (appendLLM gives at most one):
// the second half is written on another goroutine from where the first half's most would
// end, then moved down behind the first. At 64 MB this copies ~67,000 messages (18 MB,
// most of it fresh pages): a continuation's context took 25-37 ms on one core while the
// other was idle.
func appendLLMs(dst []llm.Message, es []*Entry) []llm.Message {
	base, h := len(dst), len(es)/2
	if len(es) < halvesAbove || runtime.GOMAXPROCS(0) < 2 || cap(dst)-base < len(es) {
		for _, e := range es {
			dst = appendLLM(dst, e)
		}
		return dst
	}
	// Each half's capacity is its most: should an entry ever give more, its append copies
	// that half elsewhere and the join below still holds.
	second := dst[base+h : base+h : base+len(es)]
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, e := range es[h:] {
			second = appendLLM(second, e)
		}
	}()
	first := dst[: base : base+h]
	for _, e := range es[:h] {
		first = appendLLM(first, e)
	}
	<-done
	if len(first) > 0 && &first[0] != &dst[:1][0] {
		return append(first, second...)
	}
	out := append(dst[:len(first)], second...)
	clear(out[len(out) : base+len(es)]) // the moved messages' old places: no stale pointers
	return out
}

// Branched writes the path from the root to leafID ("" = the leaf) as a new session (pi's
// createBranchedSession, used by /fork): labels are dropped from the path, the kept entries
// re-chained, and the labels of kept entries re-added at the end. The receiver becomes the
// new session; its header's parentSession is the old file. Nothing is written until an
// assistant message exists on the new path. It returns the new file.
func (s *Session) Branched(leafID string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if leafID == "" {
		leafID = s.leaf
	}
	path := s.branchLocked(leafID)
	if len(path) == 0 {
		return "", fmt.Errorf("entry %s not found", leafID)
	}
	prevFile := s.path
	var kept []*Entry
	parent := ""
	ids := map[string]bool{}
	for _, e := range path {
		if e.Type == TypeLabel {
			continue
		}
		c := *e
		if c.ParentID != parent {
			c.ParentID = parent
			c.setRaw(withParent(c.raw(), parent))
		}
		kept = append(kept, &c)
		ids[c.ID] = true
		parent = c.ID
	}
	type lbl struct{ target, label, ts string }
	var labels []lbl
	// Labels in the order pi's Map holds them: first set first (re-set keeps the place).
	for _, e := range s.entries {
		if e.Type == TypeLabel && ids[e.TargetID] {
			if l, ok := s.labels[e.TargetID]; ok {
				dup := false
				for i := range labels {
					if labels[i].target == e.TargetID {
						labels[i].ts = e.Timestamp
						dup = true
					}
				}
				if !dup {
					labels = append(labels, lbl{e.TargetID, l, e.Timestamp})
				}
			}
		}
	}
	if err := s.closeFile(); err != nil {
		return "", err
	}
	o := Options{}
	if s.persist {
		o.ParentSession = prevFile
	}
	s.reset(s.header.Cwd, o)
	for _, e := range kept {
		s.index(e)
	}
	for _, l := range labels {
		label := l.label
		e := &Entry{Type: TypeLabel, ID: newEntryID(func(id string) bool { return ids[id] }), ParentID: parent, Timestamp: l.ts, EntryData: &EntryData{TargetID: l.target, Label: &label}}
		ids[e.ID] = true
		parent = e.ID
		s.index(e)
	}
	if !s.persist {
		return "", nil
	}
	if s.hasAssistant {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
			return "", err
		}
		if err := s.rewrite(); err != nil {
			return "", err
		}
		s.flushed = true
	}
	return s.path, nil
}

// withParent rewrites the parentId of an entry's line in place (keeping every other field and
// its order, as pi's object spread does), or returns nil to re-encode the entry.
func withParent(raw []byte, parent string) []byte {
	if raw == nil {
		return nil
	}
	o, err := parseObject(raw)
	if err != nil {
		return nil
	}
	p, _ := nullable(parent).MarshalJSON()
	o.set("parentId", p)
	return o.bytes()
}

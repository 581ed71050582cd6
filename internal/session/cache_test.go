package session

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

// walkByID is the walk as it was before parent pointers: a map lookup per entry, which
// always sees the latest entry of an id. It is the reference for the pointers.
func walkByID(s *Session, id string) []*Entry {
	var path []*Entry
	for e := s.byID(id); e != nil && len(path) <= len(s.entries); e = s.byID(e.ParentID) {
		path = append(path, e)
		if e.ParentID == "" {
			break
		}
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// uncachedContext is Context built from an uncached walk by ids: the reference for the
// caches and the parent pointers.
func uncachedContext(s *Session) ([]*Entry, Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, bl, c, cl := s.branch, s.branchLeaf, s.ctx, s.ctxLeaf
	defer func() { s.branch, s.branchLeaf, s.ctx, s.ctxLeaf = b, bl, c, cl }()
	path := walkByID(s, s.leaf)
	s.branch, s.branchLeaf, s.ctx = path, s.leaf, nil
	if len(path) == 0 {
		s.branch = nil
	}
	return path, s.buildContext()
}

// checkWalks compares the pointer walk from every entry with the walk by ids.
func checkWalks(t *testing.T, s *Session, what string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.entries {
		if got, want := s.walk(e.ID), walkByID(s, e.ID); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the walk from %s has %d entries, by ids %d", what, e.ID, len(got), len(want))
		}
	}
}

// TestBranchAndContextCaches drives a session through random appends, leaf moves (to
// earlier entries, before the first entry), duplicate ids, dangling parents, a cycle and a
// compaction, and checks after each step that the cached Branch and Context equal the ones
// walked and built from nothing. It fails when index extends the cached branch where it
// must not (a duplicate id, an entry that is the path's missing root) or when a change
// leaves a stale Context.
func TestBranchAndContextCaches(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		s := InMemory(t.TempDir())
		ids := []string{}
		for step := 0; step < 300; step++ {
			var e *Entry
			switch k := r.Intn(20); {
			case k < 10:
				m := user(fmt.Sprint("u", step))
				if k%2 == 1 {
					m = assistant(fmt.Sprint("a", step))
					m.Provider, m.Model = "p", fmt.Sprint("m", step)
				}
				e = &Entry{Type: TypeMessage, Message: LLMMessage(m)}
			case k == 10 && len(ids) > 0:
				if err := s.SetLeaf(ids[r.Intn(len(ids))]); err != nil {
					t.Fatal(err)
				}
			case k == 11:
				s.ResetLeaf()
			case k == 12 && len(ids) > 0:
				// A duplicate id: the later entry replaces the earlier in the index.
				e = &Entry{Type: TypeMessage, ID: ids[r.Intn(len(ids))], Message: LLMMessage(user("dup"))}
			case k == 13:
				// An entry whose parent is missing, then (sometimes) the missing parent as a
				// child of the leaf: a cycle through the path's root.
				miss := fmt.Sprint("missing", step)
				s.mu.Lock()
				s.index(&Entry{Type: TypeMessage, ID: fmt.Sprint("d", step), ParentID: miss, Message: LLMMessage(user("dangling"))})
				s.mu.Unlock()
				s.Context()
				if r.Intn(2) == 0 {
					e = &Entry{Type: TypeMessage, ID: miss, Message: LLMMessage(user("closes a cycle"))}
				}
			case k == 14 && len(ids) > 2:
				e = &Entry{Type: TypeCompaction, EntryData: &EntryData{Summary: "sum", FirstKeptEntryID: ids[len(ids)-2]}}
			case k == 15:
				e = &Entry{Type: TypeThinkingLevelChange, EntryData: &EntryData{ThinkingLevel: fmt.Sprint("t", step)}}
			case k == 16:
				e = &Entry{Type: TypeModelChange, EntryData: &EntryData{Provider: "q", ModelID: fmt.Sprint("mc", step)}}
			case k == 17 && len(ids) > 0 && r.Intn(4) == 0:
				// A fork: the session becomes the path to an entry, re-chained.
				if _, err := s.Branched(ids[r.Intn(len(ids))]); err != nil {
					t.Fatal(err)
				}
				ids = ids[:0]
				for _, e := range s.Entries() {
					ids = append(ids, e.ID)
				}
			default:
				s.Branch("")
			}
			if e != nil {
				if _, err := s.Append(e); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, e.ID)
			}
			if r.Intn(3) > 0 {
				s.Branch("")
			}
			if r.Intn(3) > 0 {
				s.Context()
			}
			if step%25 == 0 {
				checkWalks(t, s, fmt.Sprintf("seed %d step %d", seed, step))
			}
			wantPath, wantCtx := uncachedContext(s)
			if got := s.Branch(""); !reflect.DeepEqual(got, wantPath) && !(len(got) == 0 && len(wantPath) == 0) {
				for i := range got {
					if got[i] != wantPath[i] {
						t.Logf("%d: %s<-%s vs %s<-%s", i, got[i].ID, got[i].ParentID, wantPath[i].ID, wantPath[i].ParentID)
					}
				}
				t.Fatalf("seed %d step %d: cached branch has %d entries, the walk %d", seed, step, len(got), len(wantPath))
			}
			if got := s.Context(); !reflect.DeepEqual(got, wantCtx) {
				t.Fatalf("seed %d step %d: cached context differs from a new one:\n%+v\n%+v", seed, step, got, wantCtx)
			}
			var wantC *Entry
			for _, e := range wantPath {
				if e.Type == TypeCompaction {
					wantC = e
				}
			}
			if got := s.LatestCompaction(); got != wantC {
				t.Fatalf("seed %d step %d: LatestCompaction %v, the branch's %v", seed, step, got, wantC)
			}
		}
	}
}

// TestCachesAreNotShared: what Branch, ContextEntries and Context return can be appended
// to and changed without changing what the next caller gets.
func TestCachesAreNotShared(t *testing.T) {
	s := InMemory(t.TempDir())
	for i := 0; i < 4; i++ {
		s.AppendMessage(user(fmt.Sprint("u", i)))
		s.AppendMessage(assistant(fmt.Sprint("a", i)))
	}
	b := s.Branch("")
	b[0] = nil
	_ = append(b[:2], nil)
	ce := s.ContextEntries()
	ce[1] = nil
	c := s.Context()
	if cap(c.Messages) != len(c.Messages) {
		t.Fatal("Context's messages are not clipped: an append would write into the cache")
	}
	c.Messages = append(c.Messages, llm.Message{Role: "y"})
	if c.Model != nil {
		c.Model.ModelID = "changed"
	}
	wantPath, wantCtx := uncachedContext(s)
	if got := s.Branch(""); !reflect.DeepEqual(got, wantPath) {
		t.Fatal("a caller's change to Branch's result reached the cache")
	}
	if got := s.ContextEntries(); !reflect.DeepEqual(got, wantPath) {
		t.Fatal("a caller's change to ContextEntries's result reached the cache")
	}
	if got := s.Context(); !reflect.DeepEqual(got, wantCtx) {
		t.Fatal("a caller's change to Context's result reached the cache")
	}
}

// TestParentPointersFromFiles opens random files whose entries name parents before and after
// them, missing, themselves and each other (cycles), with repeated ids, and compares the walk
// from every entry with the walk by ids, then again after appends and leaf moves.
func TestParentPointersFromFiles(t *testing.T) {
	for seed := int64(0); seed < 200; seed++ {
		r := rand.New(rand.NewSource(seed))
		n := 1 + r.Intn(30)
		id := func() string { return fmt.Sprint("e", r.Intn(n+3)) }
		lines := []string{`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`}
		prev := ""
		for i := 0; i < n; i++ {
			me := fmt.Sprint("e", i)
			if r.Intn(6) == 0 {
				me = id()
			}
			parent := prev
			switch r.Intn(6) {
			case 0:
				parent = id()
			case 1:
				parent = ""
			case 2:
				parent = me
			}
			p := "null"
			if parent != "" {
				p = `"` + parent + `"`
			}
			lines = append(lines, fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"x","timestamp":1}}`, me, p))
			prev = me
		}
		path := writeFile(t, "p.jsonl", lines...)
		s, err := Open(path, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("seed %d", seed)
		checkWalks(t, s, what)
		for i := 0; i < 5; i++ {
			if r.Intn(2) == 0 {
				s.SetLeaf(id())
			}
			e := &Entry{Type: TypeMessage, Message: LLMMessage(user("more"))}
			if r.Intn(3) == 0 {
				e.ID = id()
			}
			s.Append(e)
			checkWalks(t, s, what+" after appends")
		}
		s.Close()
	}
}

// TestWalkCopiesAChain: in a session whose every entry's parent is the one before it (what
// pi and pigo write until a branch), the walk from an entry is the entries up to it, copied
// in one allocation rather than followed parent by parent; after a branch, the entries
// before the branch point still are, and the walk by ids agrees everywhere.
func TestWalkCopiesAChain(t *testing.T) {
	s := InMemory(t.TempDir())
	for i := range 2000 {
		s.AppendMessage(user(fmt.Sprint("u", i)))
	}
	s.mu.Lock()
	if s.chain != len(s.entries) {
		t.Fatalf("chain %d of %d entries", s.chain, len(s.entries))
	}
	leaf, mid := s.entries[len(s.entries)-1].ID, s.entries[999].ID
	for _, id := range []string{leaf, mid} {
		if got, want := s.walk(id), walkByID(s, id); !reflect.DeepEqual(got, want) {
			t.Fatalf("the walk from %s has %d entries, by ids %d", id, len(got), len(want))
		}
	}
	if n := testing.AllocsPerRun(10, func() { s.walk(leaf) }); n != 1 {
		t.Fatalf("the walk along a chain of %d entries made %v allocations, want 1", len(s.entries), n)
	}
	s.mu.Unlock()
	if err := s.SetLeaf(mid); err != nil {
		t.Fatal(err)
	}
	s.AppendMessage(user("a branch"))
	s.mu.Lock()
	if s.chain != 2000 {
		t.Fatalf("after a branch: chain %d, want the 2000 entries before it", s.chain)
	}
	s.mu.Unlock()
	checkWalks(t, s, "after a branch")
}

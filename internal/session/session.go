package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Session is one session: its header, its entries in file order, the tree index and the
// current leaf. New entries become children of the leaf and move it. A persisted session
// writes nothing until its first assistant message exists (pi's deferred first flush), then
// appends one fsync'd line per entry.
//
// A Session is safe for concurrent use.
type Session struct {
	mu sync.Mutex

	header  Header
	entries []*Entry
	// info is 1 + the index in entries of the last session_info entry, 0 for none (Name).
	info   int
	ids    idIndex
	labels map[string]string
	leaf   string

	path    string
	dir     string
	persist bool
	flushed bool
	// hasAssistant: an assistant message exists (pi scans for it on every append).
	hasAssistant bool
	// needNL: the file does not end in a newline (a torn last line), so the next append
	// starts a new line rather than gluing onto it.
	needNL bool
	f      *os.File
	// sync fsyncs what is appended to f in the background (syncer.go).
	sync *syncer

	// Warnings are problems met while loading (torn or malformed lines), one sentence each.
	Warnings []string

	// now is the clock (tests fix it).
	now func() time.Time

	// branch is the path from the root to branchLeaf (nil: not built), kept because a
	// continued session walks its branch several times before its first request (the
	// model, the thinking level, the tools' replay, the context, compaction's check) and
	// each walk was a map lookup per entry. index extends it when an entry is appended to
	// its leaf and drops it on any other change; callers get copies.
	branch     []*Entry
	branchLeaf string
	// ctx is the last Context built (nil: none since the last change), for the same leaf:
	// a continued session asks for it several times before anything changes, and each
	// build is an llm.Message per entry (at 64 MB, 19 MB of them).
	ctx     *Context
	ctxLeaf string
	// ctxRoom: the room after ctx's messages was not handed out yet (Transcript).
	ctxRoom bool

	// Every indexed entry's parent is the position of byID(ParentID) (none for a root or a
	// missing parent) unless stale: an id indexed again (a duplicate replaces the earlier
	// entry in the index, so positions of it are out of date) or an id some entry's parent
	// was missing under (dangling). A walk of a stale session resolves them all again (relink): only a
	// hand-edited file gets there.
	stale    bool
	dangling map[string]struct{}
	// chain: each of entries[:chain] has the entry before it as its parent (the first has
	// none), so the walk from one of them is the entries up to it (walk copies them instead of
	// following ~75,000 parents at 64 MB, a cache miss each). index and relink keep it.
	chain int
	// compactions counts the compaction entries (LatestCompaction).
	compactions int
}

// Options are the options of New.
type Options struct {
	// ID is the session id (default: a new UUIDv7).
	ID string
	// ParentSession is the header's parentSession (the file this one was forked from).
	ParentSession string
}

// New starts a session for cwd whose file will be DIR/<timestamp>_<id>.jsonl. With dir ""
// the session is in memory only (--no-session).
func New(cwd, dir string, o Options) *Session {
	s := &Session{dir: dir, persist: dir != "", now: time.Now}
	s.reset(absPath(cwd), o)
	return s
}

// InMemory starts a session that is never written.
func InMemory(cwd string) *Session { return New(cwd, "", Options{}) }

func (s *Session) reset(cwd string, o Options) {
	id := o.ID
	if id == "" {
		id = newSessionID()
	}
	ts := Timestamp(s.now())
	s.header = Header{Type: TypeSession, Version: Version, ID: id, Timestamp: ts, Cwd: cwd, ParentSession: o.ParentSession}
	s.entries, s.info = nil, 0
	s.ids = idIndex{}
	s.labels = map[string]string{}
	s.leaf = ""
	s.branch, s.ctx = nil, nil
	s.stale, s.dangling, s.chain, s.compactions = false, nil, 0, 0
	s.flushed = false
	s.hasAssistant = false
	if s.persist {
		s.path = filepath.Join(s.dir, FileName(ts, id))
	}
}

// FileName is pi's session file name: the ISO timestamp with ":" and "." as "-", "_", the id.
func FileName(timestamp, id string) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(timestamp) + "_" + id + ".jsonl"
}

func newSessionID() string {
	u, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return u.String()
}

// newEntryID is 8 hex characters of a random UUID, checked against taken (pi's generateId).
func newEntryID(taken func(string) bool) string {
	for i := 0; i < 100; i++ {
		id := uuid.NewString()[:8]
		if !taken(id) {
			return id
		}
	}
	return uuid.NewString()
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// OpenOptions are the options of Open.
type OpenOptions struct {
	// Dir is where a later new or branched session goes ("": the file's directory).
	Dir string
	// Cwd is the working directory recorded when the file is absent or empty ("": the
	// process's).
	Cwd string
}

// ErrNotSession is returned for a non-empty file that does not start with a session header.
var ErrNotSession = errors.New("not a valid pi session")

// Open loads a session file. A file that does not exist yet is a new session that will be
// written there; an empty file gets a fresh header (as pi does). Versions 1 and 2 are
// migrated and the file rewritten (pi's only rewrite on load). Malformed lines are skipped
// with a warning; a torn last line never loses the session, and the next append starts on a
// new line.
func Open(path string, o OpenOptions) (*Session, error) { return open(path, o, true) }

// Read loads a session file to look at it: nothing is written (a version 1 or 2 file is
// migrated in memory only), and a file that is missing, empty or not a session is an error.
func Read(path string) (*Session, error) {
	s, err := open(path, OpenOptions{}, false)
	if err != nil {
		return nil, err
	}
	if len(s.header.raw) == 0 {
		if _, err := os.Stat(s.path); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("Session file is %w: %s", ErrNotSession, s.path)
	}
	return s, nil
}

// open loads a session; with write false nothing is written (listing and forking read a
// file without migrating it on disk or giving an empty file a header).
//
// The file is read once, line by line into blocks that the entries then share (lines.go),
// and each line is decoded once (decode.go). A line over MaxLineBytes is skipped unread.
func open(path string, o OpenOptions, write bool) (*Session, error) {
	path = absPath(path)
	dir := o.Dir
	if dir == "" {
		dir = filepath.Dir(path)
	}
	cwd := o.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	cwd = absPath(cwd)
	s := &Session{dir: dir, persist: true, now: time.Now, path: path}
	f, fi, err := openRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		s.reset(cwd, Options{})
		s.path = path
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer holdGC(fi.Size())()
	lr := newLineReader(f, path, fi.Size())
	var (
		header   bool
		nonBlank bool
		old      [][]byte // a version 1 or 2 file's lines, header first, for the migration
		// dec: a large file's entry lines are decoded on the other cores as they are read
		// (addAll).
		dec *decoder
	)
	if fi.Size() >= parallelAbove && runtime.GOMAXPROCS(0) > 1 {
		dec = &decoder{run: parallelRun}
		dec.cond.L = &dec.mu
		defer dec.close() // an early return: the goroutines end
		lr.chunk = readChunk
	}
	for {
		l, ok, err := lr.next()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if !ok {
			break
		}
		t := bytes.TrimSpace(l.b)
		if len(t) == 0 {
			continue
		}
		nonBlank = true
		t = t[:len(t):len(t)]
		if !header {
			h, err := decodeHeader(t)
			if err == errSyntax {
				s.Warnings = append(s.Warnings, lineWarning(path, l))
				continue
			}
			if err != nil || h.Type != TypeSession || h.ID == "" {
				return nil, fmt.Errorf("Session file is %w: %s", ErrNotSession, path)
			}
			header = true
			s.header = h
			// The index is sized for a line a KiB (pi's own large-session.jsonl averages
			// 956 bytes): grown from 64, at 64 MB its growth was ~8% of the load's CPU
			// (BenchmarkLoad 235-259 -> 220-240 ms). A file of longer lines has a larger
			// index than it needs: 4-8 bytes of index and 8 of list per KiB, ~1% of the
			// file.
			hint := int(max(64, fi.Size()>>10))
			s.entries = make([]*Entry, 0, hint)
			s.ids = idIndex{}
			s.ids.reserve(nil, hint)
			s.labels = map[string]string{}
			if h.Version < Version {
				old = [][]byte{t}
			}
			continue
		}
		if old != nil {
			// Migrations are rare (files from pi before 0.x): the old lines are migrated as
			// raw objects, then decoded below.
			if r := (jreader{b: t}); r.skip() && r.end() == nil && t[0] == '{' {
				old = append(old, t)
			} else {
				s.Warnings = append(s.Warnings, lineWarning(path, l))
			}
			continue
		}
		if dec != nil {
			dec.add(line{b: t, n: l.n, last: l.last})
			continue
		}
		e, err := decodeEntry(t)
		s.add(path, l, t, e, err)
	}
	if dec != nil {
		s.addAll(path, dec)
	}
	s.Warnings = append(s.Warnings, lr.warnings...)
	if !header {
		if nonBlank || lr.skipped > 0 {
			return nil, fmt.Errorf("Session file is %w: %s", ErrNotSession, path)
		}
		s.reset(cwd, Options{})
		s.path = path
		if !write {
			return s, nil
		}
		if err := s.rewrite(); err != nil {
			return nil, err
		}
		s.flushed = true
		return s, nil
	}
	if old != nil {
		if _, err := migrate(old, func(ids map[string]bool) string {
			return newEntryID(func(id string) bool { return ids[id] })
		}); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if s.header, err = decodeHeader(old[0]); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		for _, l := range old[1:] {
			e, err := decodeEntry(l)
			if err != nil {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: ignoring a malformed line: %v", path, err))
				continue
			}
			if e.Type != TypeSession {
				s.index(e)
			}
		}
		if write {
			if err := s.rewrite(); err != nil {
				return nil, err
			}
		}
	} else if !lr.endsInNewline {
		s.needNL = true
	}
	s.flushed = true
	return s, nil
}

// add indexes the entry decoded from the entry line t (l trimmed), or warns about the line.
func (s *Session) add(path string, l line, t []byte, e *Entry, err error) {
	if err != nil || t[0] != '{' {
		s.Warnings = append(s.Warnings, lineWarning(path, l))
		return
	}
	if e.Type == TypeSession {
		return
	}
	s.index(e)
}

// A file of at least parallelAbove bytes is read in pieces of readChunk bytes and has its
// entry lines decoded on the other cores as they are found, in runs of parallelRun lines; once
// the file is read, this goroutine decodes too and indexes the runs in file order as they are
// done: entries, warnings and their order are those of the one-core load. Variables so that
// tests take this path with small files and pieces.
var (
	parallelAbove int64 = 2 << 20
	parallelRun         = 256
	readChunk           = 1 << 20
)

// decoder decodes a file's entry lines on other goroutines while they are read.
type decoder struct {
	run int
	cur []line // the run being gathered
	n   int    // lines added

	mu      sync.Mutex
	cond    sync.Cond // on mu: a run was pushed, or the decoder closed
	runs    []*decodeRun
	next    int // the first run no goroutine took
	closed  bool
	started bool
}

// decodeRun is a run of entry lines and, once done is closed, their entries.
type decodeRun struct {
	lines []line
	out   []decoded
	done  chan struct{}
}

type decoded struct {
	e   *Entry
	err error
}

// add gathers an entry line (trimmed, in file order).
func (d *decoder) add(l line) {
	if d.cur == nil {
		d.cur = make([]line, 0, d.run)
	}
	d.cur = append(d.cur, l)
	d.n++
	if len(d.cur) == d.run {
		d.push()
	}
}

// push hands the gathered run to the decoding goroutines, started at the first run.
func (d *decoder) push() {
	if len(d.cur) == 0 {
		return
	}
	r := &decodeRun{lines: d.cur, done: make(chan struct{})}
	d.cur = nil
	d.mu.Lock()
	d.runs = append(d.runs, r)
	start := !d.started
	d.started = true
	d.mu.Unlock()
	d.cond.Signal()
	if start {
		for range runtime.GOMAXPROCS(0) - 1 {
			go d.work()
		}
	}
}

// close pushes the last run and lets the goroutines end once no run is left to take.
func (d *decoder) close() {
	d.push()
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.cond.Broadcast()
}

// take returns the next run nobody took; with wait, it waits for one until the decoder is
// closed. nil: none.
func (d *decoder) take(wait bool) *decodeRun {
	d.mu.Lock()
	defer d.mu.Unlock()
	for d.next >= len(d.runs) {
		if d.closed || !wait {
			return nil
		}
		d.cond.Wait()
	}
	r := d.runs[d.next]
	d.next++
	return r
}

func (d *decoder) work() {
	for r := d.take(true); r != nil; r = d.take(true) {
		r.decode()
	}
}

func (r *decodeRun) decode() {
	r.out = make([]decoded, len(r.lines))
	for j := range r.lines {
		r.out[j].e, r.out[j].err = decodeEntry(r.lines[j].b)
	}
	close(r.done)
}

// addAll closes d, the file being read, and adds its entries as add does, in file order: it
// decodes runs nobody took while the next one to add is not done.
func (s *Session) addAll(path string, d *decoder) {
	d.close()
	if n := len(s.entries) + d.n; cap(s.entries) < n {
		// The entries are known: the index is made at its size once.
		s.entries = slices.Grow(s.entries, n-len(s.entries))
		s.ids.reserve(s.entries, n)
	}
	// Closed: d.runs no longer changes.
	for _, r := range d.runs {
	wait:
		for {
			select {
			case <-r.done:
				break wait
			default:
			}
			if o := d.take(false); o != nil {
				o.decode()
				continue
			}
			<-r.done
			break
		}
		for j, l := range r.lines {
			s.add(path, l, l.b, r.out[j].e, r.out[j].err)
		}
		r.lines, r.out = nil, nil
	}
}

// lineWarning is the warning for a line that is not JSON: a torn last line (a crash while
// writing it) or a malformed one.
func lineWarning(path string, l line) string {
	if l.last {
		return fmt.Sprintf("%s:%d: ignoring a torn last line (%d bytes; the session was interrupted while writing)", path, l.n, len(l.b))
	}
	return fmt.Sprintf("%s:%d: ignoring a malformed line", path, l.n)
}

func (s *Session) index(e *Entry) {
	s.ctx = nil
	if e.EntryData == nil && e.Type != TypeMessage {
		// Every entry but a message has its fields, set or not (readers check Type only).
		e.EntryData = new(EntryData)
	}
	if s.branch != nil && s.byID(e.ID) == nil && e.ParentID != "" && e.ParentID == s.branchLeaf && e.ParentID == s.leaf &&
		len(s.branch) <= len(s.entries) && s.branch[0].ParentID != e.ID {
		// The walk from e is e, then the walk from its parent: the cached path, unchanged
		// because no id was replaced and e cannot close a cycle (it is not the missing
		// parent of the path's first entry) nor was the path cut short by one.
		s.branch = append(s.branch, e)
		s.branchLeaf = e.ID
	} else {
		s.branch = nil
	}
	e.parent = 0
	if e.ParentID != "" {
		// In a file, an entry's parent is nearly always the entry before it.
		if n := len(s.entries); n > 0 && s.entries[n-1].ID == e.ParentID {
			e.parent = uint32(n)
		} else if p := s.ids.get(s.entries, e.ParentID); p >= 0 {
			e.parent = uint32(p + 1)
		} else {
			s.addDangling(e.ParentID)
		}
	}
	if s.chain == len(s.entries) && e.parent == uint32(len(s.entries)) {
		s.chain++
	}
	s.entries = append(s.entries, e)
	if e.Type == TypeCompaction {
		s.compactions++
	}
	if e.Type == TypeSessionInfo {
		s.info = len(s.entries)
	}
	if s.ids.put(s.entries, len(s.entries)-1) {
		s.stale = true
	} else if _, ok := s.dangling[e.ID]; ok {
		s.stale = true
	}
	s.leaf = e.ID
	if e.Type == TypeMessage && e.Message != nil && e.Message.Role == llm.RoleAssistant {
		s.hasAssistant = true
	}
	if e.Type == TypeLabel {
		if e.Label != nil && *e.Label != "" {
			s.labels[e.TargetID] = *e.Label
		} else {
			delete(s.labels, e.TargetID)
		}
	}
}

func (s *Session) addDangling(id string) {
	if s.dangling == nil {
		s.dangling = map[string]struct{}{}
	}
	s.dangling[id] = struct{}{}
}

// relink resolves every indexed entry's parent position again (see Session.stale). An entry
// that a later one with its id replaced in the index is left as it is: no walk reaches it.
func (s *Session) relink() {
	s.dangling = nil
	for _, e := range s.entries {
		if s.byID(e.ID) != e {
			continue
		}
		e.parent = 0
		if e.ParentID != "" {
			if p := s.ids.get(s.entries, e.ParentID); p >= 0 {
				e.parent = uint32(p + 1)
			} else {
				s.addDangling(e.ParentID)
			}
		}
	}
	s.stale = false
	s.chain = 0
	for s.chain < len(s.entries) && s.entries[s.chain].parent == uint32(s.chain) {
		s.chain++
	}
}

// rewrite writes the whole file (header and entries) atomically: a temporary file renamed
// over the old one, so a crash leaves either the old or the new file, never a truncated one.
func (s *Session) rewrite() error {
	if !s.persist || s.path == "" {
		return nil
	}
	if err := s.closeFile(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".pigo-session-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := s.writeAll(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if fi, err := os.Stat(s.path); err == nil {
		os.Chmod(tmp.Name(), fi.Mode().Perm())
	}
	s.needNL = false
	return os.Rename(tmp.Name(), s.path)
}

func (s *Session) writeAll(f *os.File) error {
	var buf bytes.Buffer
	h, err := s.header.MarshalJSON()
	if err != nil {
		return err
	}
	buf.Write(h)
	buf.WriteByte('\n')
	for _, e := range s.entries {
		b, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	_, err = f.Write(buf.Bytes())
	return err
}

func (s *Session) closeFile() error {
	if s.f == nil {
		return nil
	}
	var err error
	if s.sync != nil {
		err = s.sync.stop()
		s.sync = nil
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	return err
}

// Close waits for the fsync of the last entries (syncer.go) and closes the file handle; its
// error is the first fsync or close error. Every entry was written when it was appended.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeFile()
}

// persistEntry is pi's _persist: nothing before the first assistant message; then the
// buffered entries in one new file (created exclusively); then one line per entry.
func (s *Session) persistEntry(e *Entry) error {
	if !s.persist || s.path == "" {
		return nil
	}
	if !s.hasAssistant {
		if s.flushed {
			return s.appendLine(e)
		}
		return nil
	}
	if !s.flushed {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		if err := s.writeAll(f); err != nil {
			f.Close()
			return err
		}
		s.f = f
		s.flushed = true
		s.sync = startSyncer(f)
		return s.sync.request()
	}
	return s.appendLine(e)
}

func (s *Session) appendLine(e *Entry) error {
	b, err := e.MarshalJSON()
	if err != nil {
		return err
	}
	if s.f == nil {
		f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		s.f = f
	}
	line := make([]byte, 0, len(b)+2)
	if s.needNL {
		line = append(line, '\n')
	}
	line = append(append(line, b...), '\n')
	if _, err := s.f.Write(line); err != nil {
		return err
	}
	s.needNL = false
	if s.sync == nil {
		s.sync = startSyncer(s.f)
	}
	return s.sync.request()
}

// Append adds e as a child of the current leaf and moves the leaf to it. It fills in ID,
// ParentID and Timestamp when they are empty, and returns the id.
func (s *Session) Append(e *Entry) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendLocked(e, true)
}

func (s *Session) appendLocked(e *Entry, parentIsLeaf bool) (string, error) {
	if e.ID == "" {
		e.ID = newEntryID(func(id string) bool { return s.byID(id) != nil })
	}
	if parentIsLeaf {
		e.ParentID = s.leaf
	}
	if e.Timestamp == "" {
		e.Timestamp = Timestamp(s.now())
	}
	e.setRaw(nil)
	s.index(e)
	return e.ID, s.persistEntry(e)
}

// AppendMessage appends an LLM message (user, assistant or toolResult).
func (s *Session) AppendMessage(m llm.Message) (string, error) {
	if m.Role == llm.RoleAssistant {
		repaceAfterFirstReply()
	}
	return s.Append(&Entry{Type: TypeMessage, Message: LLMMessage(m)})
}

// AppendBashExecution appends a user `!command` run.
func (s *Session) AppendBashExecution(b BashExecution) (string, error) {
	return s.Append(&Entry{Type: TypeMessage, Message: &Message{Role: RoleBashExecution, Bash: &b}})
}

// AppendModelChange records a model switch.
func (s *Session) AppendModelChange(provider, modelID string) (string, error) {
	return s.Append(&Entry{Type: TypeModelChange, EntryData: &EntryData{Provider: provider, ModelID: modelID}})
}

// AppendThinkingLevelChange records a thinking level switch.
func (s *Session) AppendThinkingLevelChange(level string) (string, error) {
	return s.Append(&Entry{Type: TypeThinkingLevelChange, EntryData: &EntryData{ThinkingLevel: level}})
}

// Compaction is what a compaction entry records.
type Compaction struct {
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	// Details is {readFiles, modifiedFiles} for pi's own compaction (any JSON for a hook's).
	Details  any
	Usage    *llm.Usage
	FromHook *bool
}

// AppendCompaction appends a compaction summary.
func (s *Session) AppendCompaction(c Compaction) (string, error) {
	e := &Entry{Type: TypeCompaction, EntryData: &EntryData{Summary: c.Summary, FirstKeptEntryID: c.FirstKeptEntryID, TokensBefore: c.TokensBefore, FromHook: c.FromHook}}
	var err error
	if e.Details, err = rawOf(c.Details); err != nil {
		return "", err
	}
	if c.Usage != nil {
		if e.Usage, err = rawOf(c.Usage); err != nil {
			return "", err
		}
	}
	return s.Append(e)
}

// AppendCustom appends an extension's state entry (not part of the context).
func (s *Session) AppendCustom(customType string, data any) (string, error) {
	raw, err := rawOf(data)
	if err != nil {
		return "", err
	}
	return s.Append(&Entry{Type: TypeCustom, EntryData: &EntryData{CustomType: customType, Data: raw}})
}

// AppendCustomMessage appends an extension message that takes part in the context. content
// is a string or a []llm.Content.
func (s *Session) AppendCustomMessage(customType string, content any, display bool, details any) (string, error) {
	c, err := rawOf(content)
	if err != nil {
		return "", err
	}
	d, err := rawOf(details)
	if err != nil {
		return "", err
	}
	return s.Append(&Entry{Type: TypeCustomMessage, EntryData: &EntryData{CustomType: customType, Content: c, Display: display, Details: d}})
}

// AppendSessionInfo sets the session's display name (newlines become spaces, as pi does).
func (s *Session) AppendSessionInfo(name string) (string, error) {
	name = strings.TrimSpace(joinLines(name))
	return s.Append(&Entry{Type: TypeSessionInfo, EntryData: &EntryData{Name: name}})
}

// AppendLabel sets (or, with "", clears) the label of an entry.
func (s *Session) AppendLabel(targetID, label string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID(targetID) == nil {
		return "", fmt.Errorf("entry %s not found", targetID)
	}
	e := &Entry{Type: TypeLabel, EntryData: &EntryData{TargetID: targetID}}
	if label != "" {
		e.Label = &label
	}
	return s.appendLocked(e, true)
}

// BranchSummary is what a branch_summary entry records.
type BranchSummary struct {
	Summary  string
	Details  any
	Usage    *llm.Usage
	FromHook *bool
}

// BranchWithSummary moves the leaf to fromID ("" = before the first entry) and appends a
// summary of the path that was left (pi's branchWithSummary, /tree): its fromId is the old
// leaf ("root" when there was none).
func (s *Session) BranchWithSummary(fromID string, b BranchSummary) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fromID != "" {
		if s.byID(fromID) == nil {
			return "", fmt.Errorf("entry %s not found", fromID)
		}
	}
	from := s.leaf
	if from == "" {
		from = "root"
	}
	e := &Entry{Type: TypeBranchSummary, EntryData: &EntryData{FromID: from, Summary: b.Summary, FromHook: b.FromHook}}
	var err error
	if e.Details, err = rawOf(b.Details); err != nil {
		return "", err
	}
	if b.Usage != nil {
		if e.Usage, err = rawOf(b.Usage); err != nil {
			return "", err
		}
	}
	s.leaf = fromID
	return s.appendLocked(e, true)
}

// joinLines is pi's `name.replace(/[\r\n]+/g, " ")`: each run of CR and LF becomes one space.
// Both are ASCII, never part of a longer UTF-8 sequence, so a byte loop replaces exactly what
// the regexp did; the package keeps no state built at start-up (D25.44).
func joinLines(s string) string {
	i := strings.IndexAny(s, "\r\n")
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		if c := s[i]; c != '\r' && c != '\n' {
			b = append(b, c)
		} else if i == 0 || (s[i-1] != '\r' && s[i-1] != '\n') {
			b = append(b, ' ')
		}
	}
	return string(b)
}

func rawOf(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	if r, ok := v.(json.RawMessage); ok {
		return r, nil
	}
	b, err := marshal(v)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return nil, nil
	}
	return b, nil
}

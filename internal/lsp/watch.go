package lsp

import (
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/pattern"
)

// The seed's workspace watch (lsp.json `watch`): one recursive watcher on the session
// workspace; changes nobody announced (git checkout, a formatter, another editor) reach the
// running servers as workspace/didChangeWatchedFiles batches, after a trailing debounce
// (watch.debounceMs) and at most WatchFlush after the first change of a batch. A batch over
// watch.maxBatch is cut, with one notice. node_modules, .git, dist, build, .venv, venv, target
// and coverage are ignored, and so are watch.ignore's globs (relative to the workspace).

// builtinIgnores are the folders a watch never reports.
var builtinIgnores = []string{"node_modules", ".git", "dist", "build", ".venv", "venv", "target", "coverage"}

// FileChange is one workspace/didChangeWatchedFiles entry's kind.
const (
	FileCreated = 1
	FileChanged = 2
	FileDeleted = 3
)

// maxWatchedDirs bounds the directories one watch adds (inotify watches are a per-user limit).
const maxWatchedDirs = 20000

// watcher batches the changes a platform source (watch_linux.go) reports.
type watcher struct {
	root     string
	ignore   []*pattern.Pattern
	debounce time.Duration
	flush    time.Duration
	maxBatch int
	send     func(batch map[string]int, truncated bool)

	mu      sync.Mutex
	pending map[string]int
	order   []string
	first   time.Time
	timer   *time.Timer
	noticed bool

	stop func()
}

// ignored reports whether path (absolute, inside root) is left out of the watch.
func (w *watcher) ignored(path string) bool {
	rel, err := filepath.Rel(w.root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return rel != "."
	}
	rel = filepath.ToSlash(rel)
	for _, part := range strings.Split(rel, "/") {
		for _, b := range builtinIgnores {
			if part == b {
				return true
			}
		}
	}
	for _, p := range w.ignore {
		if p.Match(rel) || p.Match(rel+"/") {
			return true
		}
		// A pattern naming a folder covers what is inside it.
		for dir := rel; strings.Contains(dir, "/"); {
			dir = dir[:strings.LastIndex(dir, "/")]
			if p.Match(dir) {
				return true
			}
		}
	}
	return false
}

// add records one change; the batch goes out after the debounce, or WatchFlush after its
// first change.
func (w *watcher) add(path string, kind int) {
	if w.ignored(path) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pending == nil {
		w.pending = map[string]int{}
		w.first = time.Now()
	}
	prev, seen := w.pending[path]
	switch {
	case !seen:
		w.order = append(w.order, path)
		w.pending[path] = kind
	case prev == FileCreated && kind == FileChanged:
	default:
		w.pending[path] = kind
	}
	wait := w.debounce
	if left := w.flush - time.Since(w.first); left < wait {
		wait = max(left, 0)
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(wait, w.fire)
	} else {
		w.timer.Reset(wait)
	}
}

func (w *watcher) fire() {
	w.mu.Lock()
	pending, order := w.pending, w.order
	w.pending, w.order, w.timer = nil, nil, nil
	truncated := false
	if len(order) > w.maxBatch {
		for _, p := range order[w.maxBatch:] {
			delete(pending, p)
		}
		truncated = !w.noticed
		w.noticed = true
	}
	w.mu.Unlock()
	if len(pending) > 0 {
		w.send(pending, truncated)
	}
}

func (w *watcher) close() {
	if w.stop != nil {
		w.stop()
	}
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
}

// startWatch starts the workspace watch when lsp.json's watch is enabled.
func (m *Manager) startWatch() {
	m.mu.Lock()
	cfg := m.cfg
	m.mu.Unlock()
	if cfg == nil || !cfg.Watch.Enabled || m.cwd == "" {
		return
	}
	w := &watcher{root: m.cwd, debounce: cfg.Watch.Debounce, flush: cfg.Watch.Flush, maxBatch: cfg.Watch.MaxBatch}
	if w.debounce <= 0 {
		w.debounce = DefaultWatchDebounce
	}
	if w.flush <= 0 {
		w.flush = WatchFlush
	}
	if w.maxBatch <= 0 {
		w.maxBatch = DefaultWatchMaxBatch
	}
	for _, g := range cfg.Watch.Ignore {
		if p, err := pattern.Compile(g); err == nil {
			w.ignore = append(w.ignore, p)
		}
	}
	w.send = func(batch map[string]int, truncated bool) { m.sendChanges(batch, truncated) }
	stop, err := watchTree(m.cwd, w.ignored, w.add)
	if err != nil {
		return
	}
	w.stop = stop
	m.mu.Lock()
	m.watch = w
	m.mu.Unlock()
}

// sendChanges notifies every running server whose root holds a changed file.
func (m *Manager) sendChanges(batch map[string]int, truncated bool) {
	if truncated {
		m.mu.Lock()
		max, n := m.cfg.Watch.MaxBatch, m.Notify
		m.mu.Unlock()
		if n != nil {
			n("warning", "LSP watch: more than "+itoa(max)+" files changed at once; the servers were told about the first "+itoa(max)+" (watch.maxBatch)")
		}
	}
	m.mu.Lock()
	clients := make([]*managed, 0, len(m.clients))
	for _, mc := range m.clients {
		clients = append(clients, mc)
	}
	m.mu.Unlock()
	paths := make([]string, 0, len(batch))
	for p := range batch {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, mc := range clients {
		root := mc.c.plan.Root
		var changes []any
		for _, p := range paths {
			if root != "" && p != root && !strings.HasPrefix(p, root+string(filepath.Separator)) {
				continue
			}
			changes = append(changes, map[string]any{"uri": fileURI(p), "type": batch[p]})
		}
		if len(changes) > 0 {
			_ = mc.c.conn.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": changes})
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

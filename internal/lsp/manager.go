package lsp

// The session side of the LSP client: servers kept running for a session,
// documents kept open with versions, the document-mode diagnostics wait of
// the seed (src/lib/lsp/diagnostic.ts, runtime-behaviour.md §1.7) and the
// requests the LSP tools make (definition, references, hover, rename).

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sort"
	"sync"
	"time"
)

// PublishedDiagnostic is one diagnostic as the server sent it: 0-based
// line and character (UTF-16 code units unless the server agreed to
// UTF-8), severity 1 error, 2 warning, 3 info, 4 hint, 0 unset.
type PublishedDiagnostic struct {
	Line      int    `json:"line"`
	Character int    `json:"character"`
	Severity  int    `json:"severity"`
	Message   string `json:"message"`
}

// Location is a position in a file, 0-based as LSP sends it.
type Location struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Character int    `json:"character"`
}

// pullRetry is how often a diagnostic pull is retried while the server is
// not ready to answer.
const pullRetry = 100 * time.Millisecond

// Manager keeps the servers of one session: one client per (server id,
// root), started on first use, and the documents opened on them.
type Manager struct {
	cfg *Config
	cwd string
	env Env

	mu      sync.Mutex
	clients map[string]*managed
	// plans caches the plan of each file: planning may run the {sh}
	// commands of a server's env, which a read should not repeat.
	plans map[string]*Plan
	// failed remembers servers that would not start, so a session does not
	// retry one on every read (the seed's cooldown).
	failed map[string]time.Time
	// disabled is /lsp-stop: no server starts until /lsp-start.
	disabled bool
	// watch sends workspace file changes to the running servers (nil: off).
	watch *watcher
	// Notify, when set, receives the manager's notices (a watch batch cut at maxBatch).
	Notify func(level, text string)
}

// managed is a running client and its open documents.
type managed struct {
	c    *Client
	id   string
	kind string
	lang string
	mu   sync.Mutex
	docs map[string]int // path → version
	lru  []string
	// max is lsp.json's maxOpenDocuments: past it the least recently used
	// document is closed.
	max int
	// first is the first file the server was started for: /lsp-reload plans
	// it again to restart the server with the re-read lsp.json.
	first string
}

// startCooldown is how long a server that failed to start is left alone.
const startCooldown = 60 * time.Second

// NewManager returns a manager for cfg's servers in workspace cwd; env is
// the process environment plans are made with.
func NewManager(cfg *Config, cwd string, env Env) *Manager {
	m := &Manager{cfg: cfg, cwd: cwd, env: env, clients: map[string]*managed{}, failed: map[string]time.Time{}, plans: map[string]*Plan{}}
	m.startWatch()
	return m
}

// Close shuts every server down and stops the workspace watcher.
func (m *Manager) Close() {
	m.mu.Lock()
	w := m.watch
	m.watch = nil
	m.mu.Unlock()
	if w != nil {
		w.close()
	}
	m.stopAll()
}

// stopAll shuts every running server down; the manager stays usable.
func (m *Manager) stopAll() []*managed {
	m.mu.Lock()
	cs := m.clients
	m.clients = map[string]*managed{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	var out []*managed
	for _, mc := range cs {
		out = append(out, mc)
		wg.Add(1)
		go func(c *Client) { defer wg.Done(); _ = c.Close() }(mc.c)
	}
	wg.Wait()
	return out
}

// Stop is /lsp-stop: every server stops and none starts again until Start.
func (m *Manager) Stop() {
	m.mu.Lock()
	m.disabled = true
	m.mu.Unlock()
	m.stopAll()
}

// Start is /lsp-start: servers start again on the next file a tool touches.
func (m *Manager) Start() {
	m.mu.Lock()
	m.disabled = false
	m.failed = map[string]time.Time{}
	m.mu.Unlock()
}

// Disabled reports whether /lsp-stop is in force.
func (m *Manager) Disabled() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.disabled
}

// Running lists the ids of the running servers, sorted, each once.
func (m *Manager) Running() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for _, mc := range m.clients {
		if !seen[mc.id] {
			seen[mc.id] = true
			out = append(out, mc.id)
		}
	}
	sort.Strings(out)
	return out
}

// Config is the lsp.json the manager runs with.
func (m *Manager) Config() *Config {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cfg
}

// Reload is /lsp-reload: cfg is lsp.json read again. The running servers (only server id
// when id is not "") stop and start again with the new configuration for the file each was
// started for; the others start on the next file they handle. It returns the ids restarted.
func (m *Manager) Reload(ctx context.Context, cfg *Config, id string) ([]string, error) {
	m.mu.Lock()
	if cfg != nil {
		m.cfg = cfg
	}
	m.plans = map[string]*Plan{}
	m.failed = map[string]time.Time{}
	stopping := map[string]*managed{}
	for key, mc := range m.clients {
		if id == "" || mc.id == id {
			stopping[key] = mc
			delete(m.clients, key)
		}
	}
	w := m.watch
	m.watch = nil
	m.mu.Unlock()
	if w != nil {
		w.close()
	}
	m.startWatch()
	var wg sync.WaitGroup
	for _, mc := range stopping {
		wg.Add(1)
		go func(c *Client) { defer wg.Done(); _ = c.Close() }(mc.c)
	}
	wg.Wait()
	if m.Disabled() {
		return nil, nil
	}
	seen := map[string]bool{}
	var restarted []string
	var errs []error
	for _, mc := range stopping {
		if mc.first == "" {
			continue
		}
		servers, serrs := m.servers(ctx, mc.first, false)
		errs = append(errs, serrs...)
		for _, s := range servers {
			if s.id == mc.id && !seen[s.id] {
				seen[s.id] = true
				restarted = append(restarted, s.id)
			}
		}
	}
	sort.Strings(restarted)
	return restarted, errors.Join(errs...)
}

// servers returns the running clients for file, starting those that are
// not yet; onlyLanguage keeps servers of kind "language" (the LSP tools).
func (m *Manager) servers(ctx context.Context, file string, onlyLanguage bool) ([]*managed, []error) {
	m.mu.Lock()
	plan, cfg, disabled := m.plans[file], m.cfg, m.disabled
	m.mu.Unlock()
	if disabled {
		return nil, nil
	}
	if plan == nil {
		p, err := cfg.PlanContext(ctx, m.cwd, file, m.env)
		if err != nil {
			return nil, []error{err}
		}
		plan = p
		m.mu.Lock()
		m.plans[file] = p
		m.mu.Unlock()
	}
	var out []*managed
	var errs []error
	for i := range plan.Servers {
		sp := &plan.Servers[i]
		if onlyLanguage && sp.Kind != "language" && sp.Kind != "" {
			continue
		}
		key := sp.ID + "\x00" + sp.Root
		m.mu.Lock()
		mc := m.clients[key]
		if mc != nil {
			select {
			case <-mc.c.exited:
				delete(m.clients, key)
				mc = nil
			default:
			}
		}
		if mc == nil {
			if at, ok := m.failed[key]; ok && time.Since(at) < startCooldown {
				m.mu.Unlock()
				continue
			}
		}
		m.mu.Unlock()
		if mc == nil {
			c, err := Start(ctx, sp)
			if err != nil {
				m.mu.Lock()
				m.failed[key] = time.Now()
				m.mu.Unlock()
				errs = append(errs, err)
				continue
			}
			mc = &managed{c: c, id: sp.ID, kind: sp.Kind, lang: sp.LanguageID, docs: map[string]int{}, max: cfg.MaxOpenDocuments, first: file}
			if mc.max <= 0 {
				mc.max = DefaultMaxOpenDocuments
			}
			m.mu.Lock()
			if prev := m.clients[key]; prev != nil {
				m.mu.Unlock()
				c.Kill()
				mc = prev
			} else {
				m.clients[key] = mc
				m.mu.Unlock()
			}
		}
		out = append(out, mc)
	}
	return out, errs
}

// sync opens path with text on the server, or sends the new text as the
// next version when it is open already. It returns the number of pushes
// seen for path before, to tell a new push from an old one.
func (mc *managed) sync(path, text string) (int, error) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	baseline := 0
	if p := mc.c.latest(path); p != nil {
		baseline = p.seq
	}
	uri := fileURI(path)
	if v, ok := mc.docs[path]; ok {
		mc.docs[path] = v + 1
		mc.touch(path)
		return baseline, mc.c.conn.Notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": v + 1},
			"contentChanges": []any{map[string]any{"text": text}},
		})
	}
	if len(mc.lru) >= mc.max {
		oldest := mc.lru[0]
		mc.lru = mc.lru[1:]
		delete(mc.docs, oldest)
		_ = mc.c.conn.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": fileURI(oldest)}})
	}
	mc.docs[path] = 1
	mc.lru = append(mc.lru, path)
	return baseline, mc.c.Open(path, mc.lang, text)
}

func (mc *managed) touch(path string) {
	for i, p := range mc.lru {
		if p == path {
			mc.lru = append(append(mc.lru[:i:i], mc.lru[i+1:]...), path)
			return
		}
	}
}

// DocumentDiagnostics opens (or updates) path with content on every server
// that handles it and waits for their diagnostics in document mode: a new
// push for the document, or an answer to a textDocument/diagnostic pull
// retried every 100 ms; the budget is the document wait (5 s by default),
// or the silent wait (1.5 s) when the document's last push was empty. A
// server that does not answer in time contributes nothing. Results are in
// server order, each server's in the order sent.
func (m *Manager) DocumentDiagnostics(ctx context.Context, path string, content []byte) ([]PublishedDiagnostic, error) {
	servers, errs := m.servers(ctx, path, false)
	if len(servers) == 0 {
		return nil, errors.Join(errs...)
	}
	text := string(content)
	results := make([][]PublishedDiagnostic, len(servers))
	werrs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, mc := range servers {
		wg.Add(1)
		go func(i int, mc *managed) {
			defer wg.Done()
			results[i], werrs[i] = mc.documentWait(ctx, path, text)
		}(i, mc)
	}
	wg.Wait()
	var all []PublishedDiagnostic
	for _, r := range results {
		all = append(all, r...)
	}
	return all, errors.Join(append(errs, werrs...)...)
}

func (mc *managed) documentWait(ctx context.Context, path, text string) ([]PublishedDiagnostic, error) {
	before := mc.c.latest(path)
	baseline, err := mc.sync(path, text)
	if err != nil {
		return nil, err
	}
	t := mc.c.plan.Timeouts
	deadline := time.NewTimer(documentBudget(before, t))
	defer deadline.Stop()
	pull := true
	tick := time.NewTimer(0)
	defer tick.Stop()
	for {
		if p := mc.c.latest(path); p != nil && p.seq > baseline {
			return published(p.diagnostics), nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline.C:
			return nil, nil
		case <-mc.c.conn.Done():
			return nil, mc.c.errConnClosed()
		case <-mc.c.changed:
		case <-tick.C:
			// The tick also re-checks for a push: another waiter on this
			// client may have taken the change signal.
			if !pull {
				tick.Reset(pullRetry)
				continue
			}
			ds, ok, err := mc.pull(ctx, path, ms(t.RequestMs))
			if err != nil {
				pull = false // not supported: wait for a push
				tick.Reset(pullRetry)
				continue
			}
			if ok {
				return ds, nil
			}
			tick.Reset(pullRetry)
		}
	}
}

// documentBudget is how long document mode waits: the document wait, or
// the silent wait when the document's last push was empty (a clean file
// is likely to stay clean, so the read is not held up for long).
func documentBudget(before *publish, t PlanTimeouts) time.Duration {
	if before != nil && len(before.diagnostics) == 0 {
		return ms(t.SilentWaitMs)
	}
	return ms(t.DocumentWaitMs)
}

// pull asks for the document's diagnostics. ok is false when the server
// is not ready yet (it cancelled, or answered "unchanged"); an error means
// the server does not do pulls.
func (mc *managed) pull(ctx context.Context, path string, timeout time.Duration) ([]PublishedDiagnostic, bool, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rep struct {
		Kind  string          `json:"kind"`
		Items []lspDiagnostic `json:"items"`
	}
	err := mc.c.conn.Call(cctx, "textDocument/diagnostic", map[string]any{
		"textDocument": map[string]any{"uri": fileURI(path)},
	}, &rep)
	if err != nil {
		var re *rpcError
		if errors.As(err, &re) && re.Code == codeMethodNotFound {
			return nil, false, err
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, false, err // a pull timeout falls back to waiting for a push
		}
		return nil, false, nil // ServerCancelled, ContentModified, …: retry
	}
	if rep.Kind != "full" {
		return nil, false, nil
	}
	return published(rep.Items), true, nil
}

func published(ds []lspDiagnostic) []PublishedDiagnostic {
	out := make([]PublishedDiagnostic, len(ds))
	for i, d := range ds {
		out[i] = PublishedDiagnostic{Line: d.Range.Start.Line, Character: d.Range.Start.Character, Severity: d.Severity, Message: d.Message}
	}
	return out
}

// Running is a running language server the LSP tools query.
type Running struct {
	m  *managed
	ID string
	// UTF8 is true when positions count bytes instead of UTF-16 units.
	UTF8 bool
}

// LanguageServer returns the first server of kind "language" that handles
// path, started and with path open at its content on disk.
func (m *Manager) LanguageServer(ctx context.Context, path string) (*Running, error) {
	servers, errs := m.servers(ctx, path, true)
	if len(servers) == 0 {
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		return nil, errors.New("no language server handles " + path)
	}
	mc := servers[0]
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if _, err := mc.sync(path, string(data)); err != nil {
		return nil, err
	}
	return &Running{m: mc, ID: mc.id, UTF8: mc.c.utf8}, nil
}

// Sync sends path's current content to the server (after a rename wrote it).
func (s *Running) Sync(path string, content []byte) error {
	_, err := s.m.sync(path, string(content))
	return err
}

func position(path string, line, char int) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": fileURI(path)},
		"position": map[string]any{"line": line, "character": char}}
}

// lspLocation is Location | LocationLink as servers send them.
type lspLocation struct {
	URI       string `json:"uri"`
	TargetURI string `json:"targetUri"`
	Range     struct {
		Start lspPosition `json:"start"`
	} `json:"range"`
	TargetSelectionRange struct {
		Start lspPosition `json:"start"`
	} `json:"targetSelectionRange"`
}

func locations(raw json.RawMessage) []Location {
	var many []lspLocation
	if json.Unmarshal(raw, &many) != nil {
		var one lspLocation
		if json.Unmarshal(raw, &one) != nil || (one.URI == "" && one.TargetURI == "") {
			return nil
		}
		many = []lspLocation{one}
	}
	out := make([]Location, 0, len(many))
	for _, l := range many {
		if l.TargetURI != "" {
			if p := uriPath(l.TargetURI); p != "" {
				out = append(out, Location{p, l.TargetSelectionRange.Start.Line, l.TargetSelectionRange.Start.Character})
			}
			continue
		}
		if p := uriPath(l.URI); p != "" {
			out = append(out, Location{p, l.Range.Start.Line, l.Range.Start.Character})
		}
	}
	return out
}

func (s *Running) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var raw json.RawMessage
	cctx, cancel := context.WithTimeout(ctx, ms(max(s.m.c.plan.Timeouts.RequestMs, 10000)))
	defer cancel()
	if err := s.m.c.conn.Call(cctx, method, params, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// Definition is textDocument/definition at a 0-based position.
func (s *Running) Definition(ctx context.Context, path string, line, char int) ([]Location, error) {
	raw, err := s.call(ctx, "textDocument/definition", position(path, line, char))
	if err != nil {
		return nil, err
	}
	return locations(raw), nil
}

// References is textDocument/references (declaration included), sorted by
// path and position.
func (s *Running) References(ctx context.Context, path string, line, char int) ([]Location, error) {
	p := position(path, line, char)
	p["context"] = map[string]any{"includeDeclaration": true}
	raw, err := s.call(ctx, "textDocument/references", p)
	if err != nil {
		return nil, err
	}
	ls := locations(raw)
	sort.SliceStable(ls, func(i, j int) bool {
		a, b := ls[i], ls[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Character < b.Character
	})
	return ls, nil
}

// Hover is textDocument/hover; nil when the server has nothing.
func (s *Running) Hover(ctx context.Context, path string, line, char int) (json.RawMessage, error) {
	raw, err := s.call(ctx, "textDocument/hover", position(path, line, char))
	if err != nil {
		return nil, err
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var h struct {
		Contents json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(raw, &h) != nil || len(h.Contents) == 0 {
		return nil, nil
	}
	return h.Contents, nil
}

// TextEdit is one edit of a rename, 0-based.
type TextEdit struct {
	StartLine, StartChar, EndLine, EndChar int
	NewText                                string
}

// Rename is textDocument/prepareRename (when the server has it) and
// textDocument/rename: the placeholder (the current name, "" when
// unknown) and the edits per file. ErrNotRenameable reports a position the
// server will not rename.
func (s *Running) Rename(ctx context.Context, path string, line, char int, newName string) (string, map[string][]TextEdit, error) {
	placeholder := ""
	if raw, err := s.call(ctx, "textDocument/prepareRename", position(path, line, char)); err == nil {
		if string(raw) == "null" {
			return "", nil, ErrNotRenameable
		}
		var pr struct {
			Placeholder string `json:"placeholder"`
		}
		if json.Unmarshal(raw, &pr) == nil {
			placeholder = pr.Placeholder
		}
	}
	p := position(path, line, char)
	p["newName"] = newName
	raw, err := s.call(ctx, "textDocument/rename", p)
	if err != nil {
		var re *rpcError
		if errors.As(err, &re) {
			return "", nil, errors.Join(ErrNotRenameable, err)
		}
		return "", nil, err
	}
	if string(raw) == "null" {
		return "", nil, ErrNotRenameable
	}
	type edit struct {
		Range struct {
			Start lspPosition `json:"start"`
			End   lspPosition `json:"end"`
		} `json:"range"`
		NewText *string `json:"newText"`
	}
	var we struct {
		Changes         map[string][]edit `json:"changes"`
		DocumentChanges []json.RawMessage `json:"documentChanges"`
	}
	if err := json.Unmarshal(raw, &we); err != nil {
		return "", nil, err
	}
	out := map[string][]TextEdit{}
	add := func(uri string, es []edit) error {
		p := uriPath(uri)
		if p == "" {
			return errors.New("lsp-rename: unsupported uri scheme: " + uri)
		}
		for _, e := range es {
			if e.NewText == nil {
				continue
			}
			out[p] = append(out[p], TextEdit{e.Range.Start.Line, e.Range.Start.Character, e.Range.End.Line, e.Range.End.Character, *e.NewText})
		}
		return nil
	}
	for uri, es := range we.Changes {
		if err := add(uri, es); err != nil {
			return "", nil, err
		}
	}
	for _, dc := range we.DocumentChanges {
		var d struct {
			Kind         string `json:"kind"`
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
			Edits []edit `json:"edits"`
		}
		if json.Unmarshal(dc, &d) != nil || d.Kind != "" || d.TextDocument.URI == "" {
			return "", nil, errors.New("lsp-rename: file-level document changes (create/rename/delete) are not supported")
		}
		if err := add(d.TextDocument.URI, d.Edits); err != nil {
			return "", nil, err
		}
	}
	return placeholder, out, nil
}

// ErrNotRenameable is a position the server will not rename.
var ErrNotRenameable = errors.New("not renameable")

package tui

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/termui"
)

// The tabs.
const (
	tabRegistry = iota
	tabDiagnostics
	tabCommands
	tabSandbox
	numTabs
)

var tabNames = [numTabs]string{"Registry", "Diagnostics", "Commands", "Sandbox"}

// Model is the root Bubble Tea model of `pigo tui`.
type Model struct {
	opts   Options
	keys   keyMap
	st     styles
	width  int
	height int
	tab    int

	snap    *snapshot
	gen     int // generation of the newest load asked for
	loading bool
	status  string
	failed  bool // status is an error
	written []string

	model string // the model the registry is resolved for ("" = the settings' default)

	// Registry.
	toolSel int // index into the visible (filtered) rows
	toolTop int
	finding bool
	// showHelp shows the key list (?) instead of the tab body.
	showHelp   bool
	find       input
	picking    bool
	pick       input
	pickSel    int
	writeScope config.Scope // "" = cfg.DefaultScope()
	undo       *undoRecord
	keepTool   string // select this tool after the next load ("name\x00source")

	// Diagnostics.
	diagSel, diagTop int
	sevFilter        int // 0 all, 1 errors, 2 warnings, 3 infos
	fileFilter       string

	// Commands.
	cmdFocus bool
	cmdIn    input
	cmdSel   int
	cmdTop   int

	// done: an embedded explorer was closed.
	done bool

	// Sandbox.
	sbFocus  bool
	sbIn     input
	approval *sandbox.Approval
	sbTop    int
}

// New returns the root model; r renders the styles (its colour profile decides the escapes).
func New(o Options, r *lipgloss.Renderer) *Model {
	return &Model{opts: o, keys: defaultKeys(), st: newStyles(termui.New(r, o.Theme, o.Color, false)), model: o.Resolve.Model,
		width: 80, height: 24, loading: true, gen: 1}
}

// quit ends the program, or, embedded in the chat, hands the screen back to it.
func (m *Model) quit() tea.Cmd {
	if m.opts.Embedded {
		m.done = true
		return nil
	}
	return tea.Quit
}

// Done reports that an embedded explorer was closed (q or Ctrl+C).
func (m *Model) Done() bool { return m.done }

// Init starts the first load and the file watcher.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{loadCmd(m.opts, m.model, m.gen, "")}
	if d := m.poll(); d > 0 {
		cmds = append(cmds, tickCmd(d))
	}
	return tea.Batch(cmds...)
}

func (m *Model) poll() time.Duration {
	switch {
	case m.opts.Poll < 0:
		return 0
	case m.opts.Poll == 0:
		return time.Second
	}
	return m.opts.Poll
}

// reload asks for a new load (the newest one wins).
func (m *Model) reload(note string) tea.Cmd {
	m.gen++
	m.loading = true
	return loadCmd(m.opts, m.model, m.gen, note)
}

func (m *Model) setStatus(s string, failed bool) { m.status, m.failed = s, failed }

// Update handles one message. It never does I/O: that is what the returned commands do.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case loadedMsg:
		if msg.gen != m.gen {
			return m, nil // a newer load is on its way
		}
		m.loading = false
		m.snap = msg.snap
		m.afterLoad()
		switch {
		case msg.note != "":
			m.setStatus(msg.note, false)
		case m.snap != nil && len(m.snap.notApplied) > 0:
			m.setStatus(notAppliedStatus(m.snap.notApplied), true)
		}
		return m, nil
	case tickMsg:
		if m.poll() == 0 {
			return m, nil
		}
		if m.snap == nil || m.loading {
			return m, tickCmd(m.poll())
		}
		paths := make([]string, len(m.snap.stamps))
		for i, s := range m.snap.stamps {
			paths[i] = s.Path
		}
		return m, statCmd(paths)
	case stampsMsg:
		var next tea.Cmd
		if d := m.poll(); d > 0 {
			next = tickCmd(d)
		}
		if m.snap != nil && !m.loading && !sameStamps(m.snap.stamps, msg.stamps) {
			return m, tea.Batch(m.reload("a file changed on disk: re-checked"), next)
		}
		return m, next
	case editMsg:
		if msg.err != nil {
			m.setStatus(editErrText(msg.err), true)
			return m, nil
		}
		m.undo = msg.undo
		m.written = append(m.written, msg.line)
		return m, m.reload(m.short(msg.line) + " (u: undo)")
	case undoMsg:
		if msg.err != nil {
			m.setStatus("undo refused: "+msg.err.Error(), true)
			return m, nil
		}
		m.undo = nil
		m.written = append(m.written, msg.line)
		return m, m.reload(m.short(msg.line))
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

func editErrText(err error) string {
	var ee *config.EditError
	if errors.As(err, &ee) {
		s := "edit refused: " + ee.Error()
		if len(ee.Diags) > 0 {
			d := ee.Diags[0]
			l, c := d.Pos()
			s += fmt.Sprintf(" (%s:%d:%d: %s)", d.File(), l, c, d.Message)
		}
		return s
	}
	return "edit failed: " + err.Error()
}

// key handles a key press. Several runes in one event (keys piped together) are handled one
// by one unless a text field takes them.
func (m *Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.keys.ForceQuit.is(k) {
		return m, m.quit()
	}
	if m.typing() {
		return m.typeKey(k)
	}
	if m.showHelp {
		m.showHelp = false // any key closes the key list
		return m, nil
	}
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 {
		var cmds []tea.Cmd
		for i, r := range k.Runes {
			_, c := m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt})
			cmds = append(cmds, c)
			if m.typing() { // the rest goes into the field that just opened
				rest := k.Runes[i+1:]
				if len(rest) > 0 {
					_, c := m.typeKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: rest})
					cmds = append(cmds, c)
				}
				break
			}
		}
		return m, tea.Batch(cmds...)
	}
	switch {
	case m.keys.Quit.is(k):
		return m, m.quit()
	case m.keys.Help.is(k):
		m.showHelp = true
		return m, nil
	case m.keys.NextTab.is(k):
		m.tab = (m.tab + 1) % numTabs
		return m, nil
	case m.keys.PrevTab.is(k):
		m.tab = (m.tab + numTabs - 1) % numTabs
		return m, nil
	case m.keys.Registry.is(k):
		m.tab = tabRegistry
		return m, nil
	case m.keys.Diagnostics.is(k):
		m.tab = tabDiagnostics
		return m, nil
	case m.keys.Commands.is(k):
		m.tab = tabCommands
		return m, nil
	case m.keys.SandboxTab.is(k):
		m.tab = tabSandbox
		return m, nil
	case m.keys.Reload.is(k):
		return m, m.reload("re-checked")
	case m.keys.Undo.is(k):
		if m.undo == nil {
			m.setStatus("nothing to undo", false)
			return m, nil
		}
		return m, undoCmd(*m.undo)
	}
	switch m.tab {
	case tabRegistry:
		return m.registryKey(k)
	case tabDiagnostics:
		return m.diagKey(k)
	case tabCommands:
		if m.keys.Edit.is(k) {
			m.cmdFocus = true
			if k.String() == "/" {
				m.cmdIn.set("/")
				m.cmdSel, m.cmdTop = 0, 0
			}
			return m, nil
		}
		m.cmdSel, m.cmdTop = m.move(k, m.cmdSel, m.cmdTop, len(m.commandRows()), m.listHeight())
	case tabSandbox:
		if m.keys.Edit.is(k) {
			m.sbFocus = true
			return m, nil
		}
		m.sbTop, _ = m.move(k, m.sbTop, 0, 1<<20, 1)
		m.sbTop = max(0, min(m.sbTop, len(m.policyLines())-1))
	}
	return m, nil
}

// typing reports whether a text field has the keyboard.
func (m *Model) typing() bool {
	switch m.tab {
	case tabRegistry:
		return m.finding || m.picking
	case tabCommands:
		return m.cmdFocus
	case tabSandbox:
		return m.sbFocus
	}
	return false
}

// typeKey sends a key to the focused text field; tab, esc, enter and the arrows keep their
// meaning.
func (m *Model) typeKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.keys.NextTab.is(k) || m.keys.PrevTab.is(k) {
		m.finding, m.picking, m.cmdFocus, m.sbFocus = false, false, false, false
		return m.key(k)
	}
	switch m.tab {
	case tabRegistry:
		if m.picking {
			return m.pickKey(k)
		}
		return m.findKey(k)
	case tabCommands:
		switch {
		case m.keys.Cancel.is(k):
			m.cmdFocus = false
			m.cmdIn.set("")
		case m.keys.Accept.is(k):
			m.cmdFocus = false
		case m.keys.Up.is(k) && k.Type != tea.KeyRunes, m.keys.Down.is(k) && k.Type != tea.KeyRunes:
			m.cmdSel, m.cmdTop = m.move(k, m.cmdSel, m.cmdTop, len(m.commandRows()), m.listHeight())
		default:
			if m.cmdIn.handle(k) {
				m.cmdSel, m.cmdTop = 0, 0
			}
		}
	case tabSandbox:
		switch {
		case m.keys.Cancel.is(k):
			m.sbFocus = false
		case m.keys.Accept.is(k):
			m.sbFocus = false
		default:
			m.sbIn.handle(k)
		}
		m.evaluate()
	}
	return m, nil
}

// evaluate decides the sandbox command line (pure computation, no I/O).
func (m *Model) evaluate() {
	m.approval = nil
	if m.snap == nil || m.snap.policyErr != nil || m.sbIn.String() == "" {
		return
	}
	ap := sandbox.Evaluate(m.snap.policy.ApprovalRules, m.sbIn.String())
	m.approval = &ap
}

// move applies a navigation key to a selection in a list of n rows shown h at a time.
func (m *Model) move(k tea.KeyMsg, sel, top, n, h int) (int, int) {
	switch {
	case m.keys.Up.is(k):
		sel--
	case m.keys.Down.is(k):
		sel++
	case m.keys.PageUp.is(k):
		sel -= max(h-1, 1)
	case m.keys.PageDown.is(k):
		sel += max(h-1, 1)
	case m.keys.Home.is(k):
		sel = 0
	case m.keys.End.is(k):
		sel = n - 1
	default:
		return sel, top
	}
	return clampView(sel, top, n, h)
}

// clampView keeps sel inside [0,n) and the window [top, top+h) around it.
func clampView(sel, top, n, h int) (int, int) {
	sel = max(0, min(sel, n-1))
	h = max(h, 1)
	if sel < top {
		top = sel
	}
	if sel >= top+h {
		top = sel - h + 1
	}
	top = max(0, min(top, max(n-h, 0)))
	return sel, top
}

// afterLoad keeps the selections valid after a new snapshot.
func (m *Model) afterLoad() {
	rows := m.toolRows()
	if m.keepTool != "" {
		for i, r := range rows {
			if key(m.snap.res.Tools.Tools[r]) == m.keepTool {
				m.toolSel = i
			}
		}
		m.keepTool = ""
	}
	m.toolSel, m.toolTop = clampView(m.toolSel, m.toolTop, len(rows), m.tableHeight())
	ds := m.diagRows()
	m.diagSel, m.diagTop = clampView(m.diagSel, m.diagTop, len(ds), m.listHeight())
	m.evaluate()
	if m.snap.loadErr != nil {
		m.setStatus("cannot load the configuration: "+m.snap.loadErr.Error(), true)
	}
}

func key(t engine.ToolResult) string { return t.Name + "\x00" + t.Source }

// scope is where toggles write.
func (m *Model) scope() config.Scope {
	if m.writeScope != "" {
		return m.writeScope
	}
	if m.snap != nil && m.snap.cfg != nil {
		return m.snap.cfg.DefaultScope()
	}
	return config.Global
}

// diagRows are the diagnostics that pass the filters.
func (m *Model) diagRows() []diag.Diagnostic {
	if m.snap == nil {
		return nil
	}
	var out []diag.Diagnostic
	for _, d := range m.snap.diags {
		if m.sevFilter > 0 && int(d.Severity) != m.sevFilter-1 {
			continue
		}
		if m.fileFilter != "" && d.File() != m.fileFilter {
			continue
		}
		out = append(out, d)
	}
	return out
}

// notAppliedStatus says in the status line which files are not applied (their problems are in
// the Diagnostics tab): one notice per file, never silent.
func notAppliedStatus(list diag.List) string {
	var names []string
	for _, d := range list {
		where := filepath.Base(d.File())
		if d.HasPos() {
			l, c := d.Pos()
			where += fmt.Sprintf(":%d:%d", l, c)
		}
		names = append(names, where)
	}
	return fmt.Sprintf("not applied: %s (see 2 Diagnostics)", strings.Join(names, ", "))
}

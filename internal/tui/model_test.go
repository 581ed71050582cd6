package tui

import (
	"github.com/charmbracelet/x/ansi"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/google/go-cmp/cmp"
	"github.com/muesli/termenv"

	"github.com/pigo-agent/pigo/config"
)

// The fixed config tree of the model tests: a global agent dir with comments, a rule that
// disables the claude-code TodoWrite tool, a typo (a warning), a custom model, a prompt
// template and sandbox approval rules; an empty project.
const settingsJSON = `// my settings
{
  "defaultProvider": "anthropic",
  "defaultModel": "claude-sonnet-4-5",
  "personalExtensions": {
    // no todo lists please
    "disabledTools": ["Todo*"],
  },
  "thme": "dark",
}
`

const modelsJSON = `{
  "providers": {
    "local": {
      "baseUrl": "http://127.0.0.1:8080/v1",
      "api": "openai-completions",
      "apiKey": "KEY",
      "models": [{ "id": "qwen-coder", "input": ["text"] }],
    },
  },
}
`

const sandboxJSON = `{
  // approval rules: later rules win
  "approvalRules": [
    { "action": "allow", "pattern": "git *" },
    { "action": "deny", "pattern": "git push *" },
  ],
}
`

const reviewMD = `---
description: Review the staged changes
argument-hint: "[focus]"
---
Review the staged changes.
`

type fixture struct {
	root, home, agent, proj string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	root := t.TempDir()
	f := fixture{root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj")}
	f.agent = filepath.Join(f.home, ".pi", "agent")
	write(t, filepath.Join(f.agent, "settings.json"), settingsJSON)
	write(t, filepath.Join(f.agent, "models.json"), modelsJSON)
	write(t, filepath.Join(f.agent, "sandbox.json"), sandboxJSON)
	write(t, filepath.Join(f.agent, "prompts", "review.md"), reviewMD)
	if err := os.MkdirAll(f.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	// Conditions such as which("gh") look at the real PATH: make it empty so that the
	// registry is the same on every machine.
	t.Setenv("PATH", t.TempDir())
	return f
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f fixture) options() Options {
	return Options{Poll: -1, Load: config.Options{Home: f.home, ProjectDir: f.proj,
		Getenv: func(k string) string {
			if k == "HOME" {
				return f.home
			}
			return ""
		}}}
}

// start builds a model, sizes it and runs its first load.
func start(t *testing.T, o Options, w, h int) *Model {
	t.Helper()
	m := New(o, lipgloss.NewRenderer(io.Discard))
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drive(t, m, m.Init())
	return m
}

// drive runs a command and feeds its messages back into Update until nothing is left, the
// way the Bubble Tea runtime would (timer ticks are left out: tests send them by hand).
func drive(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil, tickMsg, tea.QuitMsg:
	case tea.BatchMsg:
		for _, c := range msg {
			drive(t, m, c)
		}
	default:
		_, next := m.Update(msg)
		drive(t, m, next)
	}
}

// keys sends key presses: named keys ("enter", "esc", "tab", "up", "down") or runes.
func keys(t *testing.T, m *Model, ks ...string) {
	t.Helper()
	named := map[string]tea.KeyType{"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "up": tea.KeyUp,
		"down": tea.KeyDown, "backspace": tea.KeyBackspace, "space": tea.KeySpace}
	for _, k := range ks {
		msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		if kt, ok := named[k]; ok {
			msg = tea.KeyMsg{Type: kt}
		}
		_, cmd := m.Update(msg)
		drive(t, m, cmd)
	}
}

// typeText sends each rune as its own key press.
func typeText(t *testing.T, m *Model, s string) {
	t.Helper()
	for _, r := range s {
		keys(t, m, string(r))
	}
}

// golden compares the view with testdata/NAME.golden (UPDATE_GOLDEN=1 rewrites it). The temp
// root is written as $TMP and trailing blanks are dropped; every line must fit the width.
func golden(t *testing.T, f fixture, m *Model, name string) {
	t.Helper()
	view := m.View()
	lines := strings.Split(view, "\n")
	if len(lines) != m.height {
		t.Errorf("%s: view has %d lines, want %d", name, len(lines), m.height)
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w > m.width {
			t.Errorf("%s: line %d is %d cells wide (window %d): %q", name, i+1, w, m.width, l)
		}
		lines[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	got := strings.ReplaceAll(strings.Join(lines, "\n")+"\n", f.root, "$TMP")
	compareGolden(t, name, got)
}

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	// The layout is compared; the styles (the chat's theme roles) are termui's to test.
	got = ansi.Strip(got)
	path := filepath.Join("testdata", name+".golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, d)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRegistryStart(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	golden(t, f, m, "registry_80x24")
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	golden(t, f, m, "registry_160x40")
}

// TestFindDisableEnableUndo walks the toggle loop: find the tool a rule disabled, re-enable
// it for the current model, check the bytes written, undo, check the bytes are back.
func TestFindDisableEnableUndo(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	keys(t, m, "/")
	typeText(t, m, "Todo")
	keys(t, m, "enter")
	golden(t, f, m, "registry_find_todo")
	if tl, _, _ := m.selectedTool(); tl.Name != "TodoWrite" || tl.State != "disabled" {
		t.Fatalf("selected %s (%s), want TodoWrite disabled", tl.Name, tl.State)
	}

	keys(t, m, "E")
	golden(t, f, m, "registry_enabled_for_model")
	settings := filepath.Join(f.agent, "settings.json")
	compareGolden(t, "settings_after_enable.json", readFile(t, settings))
	if tl, _, _ := m.selectedTool(); tl.Name != "TodoWrite" || tl.State != "active" {
		t.Fatalf("after enabling: %s (%s), want TodoWrite active", tl.Name, tl.State)
	}

	keys(t, m, "u")
	if got := readFile(t, settings); got != settingsJSON {
		t.Errorf("undo left:\n%s", got)
	}
	if tl, _, _ := m.selectedTool(); tl.State != "disabled" {
		t.Errorf("after undo: %s, want disabled", tl.State)
	}
	keys(t, m, "u")
	if !strings.Contains(m.status, "nothing to undo") {
		t.Errorf("second undo: status %q", m.status)
	}
}

func TestDisableForAllModelsThenEnableAll(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	keys(t, m, "/")
	typeText(t, m, "Glob")
	keys(t, m, "enter", "d")
	settings := filepath.Join(f.agent, "settings.json")
	got := readFile(t, settings)
	if !strings.Contains(got, `"disabledTools": ["Todo*", "Glob"]`) || !strings.Contains(got, "// no todo lists please") {
		t.Errorf("after disabling Glob:\n%s", got)
	}
	if tl, _, _ := m.selectedTool(); tl.Name != "Glob" || tl.State != "disabled" {
		t.Fatalf("selected %s (%s), want Glob disabled", tl.Name, tl.State)
	}
	keys(t, m, "d")
	if !strings.Contains(m.status, "already disabled") {
		t.Errorf("status %q", m.status)
	}
	keys(t, m, "e")
	if tl, _, _ := m.selectedTool(); tl.State != "active" {
		t.Errorf("after enabling: %s", tl.State)
	}
	if got := readFile(t, settings); !strings.Contains(got, `"enabledTools": ["Glob"]`) {
		t.Errorf("after enabling Glob:\n%s", got)
	}
	keys(t, m, "e")
	if !strings.Contains(m.status, "nothing to enable") {
		t.Errorf("status %q", m.status)
	}
	if len(m.written) != 2 {
		t.Errorf("written = %q", m.written)
	}
}

// An edit that would make the configuration invalid is refused and nothing is written.
func TestEditRefusedOnBrokenFile(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	settings := filepath.Join(f.agent, "settings.json")
	broken := `{ "personalExtensions": { "disabledTools": "Todo*" } }`
	write(t, settings, broken)
	keys(t, m, "d")
	if !m.failed || !strings.Contains(m.status, "refused") {
		t.Errorf("status %q (failed %v)", m.status, m.failed)
	}
	if got := readFile(t, settings); got != broken {
		t.Errorf("file changed:\n%s", got)
	}
}

func TestUndoRefusedAfterOutsideChange(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	keys(t, m, "d") // disables "read"
	settings := filepath.Join(f.agent, "settings.json")
	changed := readFile(t, settings) + "\n// edited elsewhere\n"
	write(t, settings, changed)
	keys(t, m, "u")
	if !m.failed || !strings.Contains(m.status, "undo refused") {
		t.Errorf("status %q", m.status)
	}
	if got := readFile(t, settings); got != changed {
		t.Errorf("undo overwrote an outside change:\n%s", got)
	}
}

func TestModelPicker(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	keys(t, m, "m")
	typeText(t, m, "local/qwen")
	golden(t, f, m, "picker_qwen")
	keys(t, m, "enter")
	if got := m.modelRef(); got != "local/qwen-coder" || m.snap.res.Model.Source != "models.json" {
		t.Errorf("model %q from %q", got, m.snap.res.Model.Source)
	}
	// A typed provider/id that no list knows is offered first and resolved with defaults.
	keys(t, m, "m")
	typeText(t, m, "acme/rocket-1")
	keys(t, m, "enter")
	if got := m.modelRef(); got != "acme/rocket-1" || m.snap.res.Model.Source != "defaults" {
		t.Errorf("model %q from %q", got, m.snap.res.Model.Source)
	}
	keys(t, m, "m", "esc")
	if m.picking || m.modelRef() != "acme/rocket-1" {
		t.Errorf("esc changed the model or left the picker open")
	}
}

func TestDiagnostics(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.agent, "agents", "bad.md"), "---\nname: [\n---\nbody\n")
	m := start(t, f.options(), 80, 24)
	keys(t, m, "2")
	golden(t, f, m, "diagnostics_all")
	keys(t, m, "v")
	golden(t, f, m, "diagnostics_errors")
	keys(t, m, "v", "f", "f")
	golden(t, f, m, "diagnostics_file")
}

// Changing a loaded file on disk triggers a re-check at the next poll.
func TestWatchReloads(t *testing.T) {
	f := newFixture(t)
	o := f.options()
	o.Poll = 1 // the test sends the ticks itself
	m := start(t, o, 80, 24)
	if _, w, _ := m.snap.diags.Count(); w != 1 {
		t.Fatalf("warnings = %d", w)
	}
	_, cmd := m.Update(tickMsg{})
	drive(t, m, cmd)
	if m.status != "" {
		t.Errorf("reloaded without a change: %q", m.status)
	}
	write(t, filepath.Join(f.agent, "settings.json"), strings.Replace(settingsJSON, `"thme"`, `"themee": 1, "thme"`, 1))
	_, cmd = m.Update(tickMsg{})
	drive(t, m, cmd)
	if _, w, _ := m.snap.diags.Count(); w != 2 {
		t.Errorf("after the change: %d warnings, want 2", w)
	}
	if !strings.Contains(m.status, "changed on disk") {
		t.Errorf("status %q", m.status)
	}
}

func TestSlashCommands(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	keys(t, m, "3", "/")
	typeText(t, m, "rev")
	golden(t, f, m, "commands_rev")
	rows := m.commandRows()
	if len(rows) == 0 || rows[0].Name != "review" || rows[0].Tag != "[u]" {
		t.Errorf("first row %+v", rows)
	}
	keys(t, m, "backspace", "backspace", "backspace")
	if got, all := len(m.commandRows()), len(m.snap.res.Commands.Autocomplete); got != all {
		t.Errorf("bare / shows %d of %d", got, all)
	}
}

func TestSandboxDecision(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	keys(t, m, "4", "i")
	typeText(t, m, "git status && git push origin main")
	golden(t, f, m, "sandbox_deny")
	if m.approval == nil || m.approval.Decision != "deny" {
		t.Fatalf("approval %+v", m.approval)
	}
	keys(t, m, "esc")
	for range len(" && git push origin main") {
		keys(t, m, "i", "backspace", "esc")
	}
	if m.approval == nil || m.approval.Decision != "allow" {
		t.Errorf("git status && : %+v", m.approval)
	}
}

// Keys piped in together arrive as one event; outside a text field each rune counts.
func TestGluedKeys(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	keys(t, m, "jjj")
	if m.toolSel != 3 {
		t.Errorf("toolSel = %d after jjj", m.toolSel)
	}
	keys(t, m, "/Todo")
	if m.find.String() != "Todo" || !m.finding {
		t.Errorf("find = %q (finding %v)", m.find.String(), m.finding)
	}
}

func TestScopeUntrustedProject(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.proj, ".pi", "settings.json"), "{}\n")
	m := start(t, f.options(), 80, 24)
	keys(t, m, "s")
	if !m.failed || !strings.Contains(m.status, "not trusted") || m.scope() != config.Global {
		t.Errorf("status %q scope %s", m.status, m.scope())
	}
	o := f.options()
	yes := true
	o.Load.Approve = &yes
	m = start(t, o, 80, 24)
	if m.scope() != config.Project {
		t.Fatalf("default scope %s for a trusted project", m.scope())
	}
	keys(t, m, "d")
	if got := readFile(t, filepath.Join(f.proj, ".pi", "settings.json")); !strings.Contains(got, `"read"`) {
		t.Errorf("project settings:\n%s", got)
	}
	keys(t, m, "s")
	if m.scope() != config.Global {
		t.Errorf("scope %s after s", m.scope())
	}
}

func TestColour(t *testing.T) {
	f := newFixture(t)
	for _, color := range []bool{false, true} {
		o := f.options()
		o.Color = color
		r := lipgloss.NewRenderer(io.Discard)
		r.SetColorProfile(termenv.TrueColor)
		m := New(o, r)
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		drive(t, m, m.Init())
		v := m.View()
		hasColour := strings.Contains(v, "\x1b[3") || strings.Contains(v, "\x1b[4") || strings.Contains(v, ";3")
		if hasColour != color {
			t.Errorf("Color=%v: colour escapes present = %v", color, hasColour)
		}
		if !strings.Contains(v, "\x1b[") {
			t.Errorf("Color=%v: no escapes at all (the selection should still be marked)", color)
		}
	}
}

func TestQuit(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q does not quit")
	}
	keys(t, m, "3", "/")
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	if cmd != nil || m.cmdIn.String() != "/q" {
		t.Errorf("q in a text field: input %q", m.cmdIn.String())
	}
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyCtrlC})
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("ctrl+c does not quit")
	}
}

// A settings.json that does not parse is said in the status line, and the header does not
// claim that the settings name no default model.
func TestSettingsNotApplied(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.agent, "settings.json"), `{"defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5",,}`)
	m := start(t, f.options(), 80, 24)
	v := m.View()
	if strings.Contains(v, "settings name no default model") || !strings.Contains(v, "model: none (settings.json not applied)") {
		t.Errorf("header:\n%s", v)
	}
	if !strings.Contains(m.status, "not applied: settings.json:1:") {
		t.Errorf("status = %q", m.status)
	}
}

// A toggle that cannot take effect says why and writes nothing: disabling a tool an
// enabledTools rule keeps, or toggling a tool that is unavailable.
func TestUselessToggleSaysWhy(t *testing.T) {
	f := newFixture(t)
	settings := filepath.Join(f.agent, "settings.json")
	const text = `{ "personalExtensions": { "enabledTools": ["Gr*"] } }`
	write(t, settings, text)
	m := start(t, f.options(), 80, 24)
	keys(t, m, "/")
	typeText(t, m, "Grep")
	keys(t, m, "enter")
	for i := 0; i < 5; i++ {
		if tl, _, _ := m.selectedTool(); tl.Name == "Grep" {
			break
		}
		keys(t, m, "j")
	}
	if tl, _, _ := m.selectedTool(); tl.Name != "Grep" {
		t.Fatalf("selected %s", tl.Name)
	}
	keys(t, m, "d")
	if !strings.Contains(m.status, `an enabledTools rule wins over disabledTools: "Gr*" at `) || !m.failed {
		t.Errorf("status = %q", m.status)
	}
	keys(t, m, "esc", "/")
	typeText(t, m, "aft_zoom")
	keys(t, m, "enter", "d")
	if !strings.Contains(m.status, `aft_zoom is unavailable (condition`) || !strings.Contains(m.status, "a disabledTools rule would change nothing") {
		t.Errorf("status = %q", m.status)
	}
	if got := readFile(t, settings); got != text {
		t.Errorf("settings.json was written:\n%s", got)
	}
}

// ? lists every key, fitting the window; any key closes the list. The key line of every tab
// fits 80 columns without being cut.
func TestKeysHelp(t *testing.T) {
	f := newFixture(t)
	m := start(t, f.options(), 80, 24)
	for _, tab := range []string{"1", "2", "3", "4"} {
		keys(t, m, tab)
		if h := m.helpLine(); lipgloss.Width(h) > 80 {
			t.Errorf("tab %s: key line is %d columns: %q", tab, lipgloss.Width(h), h)
		}
	}
	keys(t, m, "1", "?")
	golden(t, f, m, "keys_help")
	v := m.View()
	for _, want := range []string{"d disable", "D disable for model", "v severity", "? keys", "q quit"} {
		if !strings.Contains(v, want) {
			t.Errorf("key list lacks %q", want)
		}
	}
	keys(t, m, "x")
	if m.showHelp || strings.Contains(m.View(), "any key closes") {
		t.Error("a key did not close the key list")
	}
}

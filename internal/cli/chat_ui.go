package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/chat"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/keymap"
	"github.com/pigo-agent/pigo/internal/pattern"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/termui"
	"github.com/pigo-agent/pigo/internal/theme"
	"github.com/pigo-agent/pigo/internal/tui"
)

// uiSettings are the settings.json keys the chat reads (pi's "Terminal and display").
type uiSettings struct {
	TUIMode        string          `json:"tuiMode"`
	ExitOutput     string          `json:"fullscreenExitOutput"`
	Quiet          json.RawMessage `json:"quietStartup"`
	HideThinking   bool            `json:"hideThinkingBlock"`
	MaxVisible     int             `json:"autocompleteMaxVisible"`
	ExternalEditor string          `json:"externalEditor"`
	DoubleEscape   string          `json:"doubleEscapeAction"`
	EditorPadding  int             `json:"editorPaddingX"`
	OutputPad      *int            `json:"outputPad"`
	Theme          string          `json:"theme"`
	Themes         []string        `json:"themes"`
	Markdown       struct {
		CodeBlockIndent string `json:"codeBlockIndent"`
	} `json:"markdown"`
	Terminal struct {
		Hyperlinks json.RawMessage `json:"hyperlinks"`
	} `json:"terminal"`
	Compaction struct {
		Enabled *bool `json:"enabled"`
	} `json:"compaction"`
	EnabledModels []string `json:"enabledModels"`
}

// chatLook fills the chat's display options from the run: settings, keybindings.json, the
// theme (the agent dir's and a trusted project's themes folders, the settings' themes
// paths), the terminal's hyperlink support; problems with those files become notices.
func (c *CLI) chatLook(o *chat.Options, r *run, a *args) {
	var us uiSettings
	_ = json.Unmarshal(r.settingsJSON, &us)
	quiet := ""
	switch strings.TrimSpace(string(us.Quiet)) {
	case "true":
		quiet = "true"
	case `"header"`:
		quiet = "header"
	}
	mode := us.TUIMode
	if v := a.str("--tui-mode"); v != "" {
		mode = v
	}
	o.UI = chat.UI{Mode: mode, ExitOutput: us.ExitOutput, Quiet: quiet, HideThinking: us.HideThinking,
		CodeIndent: us.Markdown.CodeBlockIndent, MaxVisible: us.MaxVisible, ExternalEditor: us.ExternalEditor,
		DoubleEscape: us.DoubleEscape, EditorPadding: us.EditorPadding, OutputPad: us.OutputPad, Env: c.getenv}
	o.AutoCompact = us.Compaction.Enabled == nil || *us.Compaction.Enabled
	o.Version = Version
	o.Cwd = r.cfg.ProjectDir
	if abs, err := filepath.Abs(o.Cwd); err == nil {
		o.Cwd = abs
	}
	o.Home = r.cfg.Home
	o.Reasoning = r.model.Reasoning
	o.Providers = providerCount(r.cfg)
	km, kd := keymap.Load(r.cfg.AgentDir)
	o.Keys = km
	// pi's order: the trusted project's themes, the agent dir's, then the packages' (their
	// list is the configuration's), then the settings' themes paths.
	var places []string
	for _, t := range r.cfg.Themes() {
		places = append(places, t.Path)
	}
	for _, p := range us.Themes {
		if strings.HasPrefix(p, "~/") {
			p = filepath.Join(r.cfg.Home, p[2:])
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(r.cfg.AgentDir, p)
		}
		places = append(places, p)
	}
	name := theme.Pick(us.Theme, c.getenv("COLORFGBG"))
	if v := a.str("--use-theme"); v != "" {
		name = theme.Pick(v, c.getenv("COLORFGBG"))
	}
	th, td := theme.Find(name, places)
	o.Theme = th
	links := strings.Trim(strings.TrimSpace(string(us.Terminal.Hyperlinks)), `"`)
	o.Hyperlinks = termui.Hyperlinks(links, c.getenv)
	for _, d := range append(kd, td...) {
		if d.Severity == diag.Info {
			continue
		}
		o.Notices = append(o.Notices, diagLine(d))
	}
	loc := session.Locate(r.cfg.AgentDir, r.cfg.ProjectDir, a.str("--session-dir"), c.getenv(session.EnvDir))
	if d := r.sess.Dir(); d != "" && d != session.DefaultDir(r.cfg.AgentDir, r.cfg.ProjectDir) {
		o.SessionDir = d
	}
	_ = loc
	o.Clipboard = systemClipboard
	if n := tmuxExtendedKeysNotice(c.getenv); n != "" {
		o.Notices = append(o.Notices, n)
	}
}

// tmuxExtendedKeysNotice warns, inside tmux with extended keys off, that Shift+Enter and the
// other modified keys reach the chat as plain ones (pi warns the same way).
func tmuxExtendedKeysNotice(getenv func(string) string) string {
	if getenv("TMUX") == "" {
		return ""
	}
	out, err := exec.Command("tmux", "show-options", "-gv", "extended-keys").Output()
	if err != nil || strings.TrimSpace(string(out)) != "off" {
		return ""
	}
	return "Warning: tmux extended-keys is off, so Shift+Enter and other modified keys arrive as plain keys (Ctrl+J adds a line). Add `set -g extended-keys on` to ~/.tmux.conf and restart tmux."
}

func diagLine(d diag.Diagnostic) string {
	if d.HasPos() {
		l, col := d.Pos()
		return fmt.Sprintf("Warning: %s:%d:%d: %s", d.File(), l, col, d.Message)
	}
	if f := d.File(); f != "" {
		return fmt.Sprintf("Warning: %s: %s", f, d.Message)
	}
	return "Warning: " + d.Message
}

// providerCount is how many providers the person configured (the footer names the model's
// provider when there are several, as pi does for providers with credentials).
func providerCount(cfg *config.Config) int {
	seen := map[string]bool{}
	for _, ref := range configuredRefs(cfg) {
		p, _, _ := strings.Cut(ref, "/")
		seen[p] = true
	}
	return len(seen)
}

// systemClipboard copies text with the first clipboard program found (wl-copy, xclip,
// xsel, pbcopy); an error when there is none.
func systemClipboard(text string) error {
	for _, c := range [][]string{{"wl-copy"}, {"xclip", "-selection", "clipboard"}, {"xsel", "--clipboard", "--input"}, {"pbcopy"}} {
		if _, err := exec.LookPath(c[0]); err != nil {
			continue
		}
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Stdin = strings.NewReader(text)
		return cmd.Run()
	}
	return errors.New("no clipboard program (wl-copy, xclip, xsel, pbcopy)")
}

// explorer is the configuration explorer embedded in the chat (/config) with this session's
// own options: the same agent dir, project, trust and model as the session.
type explorer struct{ m *tui.Model }

func (e explorer) Init() tea.Cmd { return e.m.Init() }
func (e explorer) View() string  { return e.m.View() }
func (e explorer) Done() bool    { return e.m.Done() }
func (e explorer) Update(msg tea.Msg) (chat.Embedded, tea.Cmd) {
	_, cmd := e.m.Update(msg)
	return e, cmd
}

func (c *CLI) configEmbed(a *args, r *run, color bool, th func() *theme.Theme) func(w, h int) chat.Embedded {
	return func(w, h int) chat.Embedded {
		load := c.loadOptions(a)
		trusted := r.cfg.Trusted
		load.Approve = &trusted
		load.AskTrust = nil
		o := tui.Options{Load: load, Color: color, Embedded: true, Theme: th(),
			Resolve: config.ResolveOptions{Model: r.model.Provider + "/" + r.model.ID, Tools: a.csv("--tools"),
				ExcludeTools: a.csv("--exclude-tools"), NoBuiltinTools: a.has("--no-builtin-tools"), NoTools: a.has("--no-tools")}}
		rd := lipgloss.NewRenderer(c.Stdout)
		if !color {
			rd.SetColorProfile(termenv.Ascii)
		}
		m := tui.New(o, rd)
		m.Update(tea.WindowSizeMsg{Width: w, Height: h})
		return explorer{m}
	}
}

// chatHost adds the host commands of the chat's keys and pi's commands: the thinking level,
// cycling models, saving a setting, /clone, /import, /trust, /scoped-models.
func (c *CLI) chatHost(o *chat.Options, r *run, a *args, newAgent func() *agent.Agent, ag **agent.Agent) {
	var us uiSettings
	_ = json.Unmarshal(r.settingsJSON, &us)
	scoped := us.EnabledModels
	o.Host["thinking"] = func(_ context.Context, level string) (chat.HostResult, error) {
		t := clampThinking(r.model, level)
		r.thinking = t
		if _, err := r.sess.AppendThinkingLevelChange(t); err != nil {
			return chat.HostResult{}, err
		}
		*ag = newAgent()
		return chat.HostResult{Text: "Thinking level: " + t, Agent: *ag, Keep: true, Thinking: t}, nil
	}
	o.Host["cycle-model"] = func(_ context.Context, dir string) (chat.HostResult, error) {
		refs := modelRefs(r.cfg)
		if len(scoped) > 0 {
			var in []string
			for _, ref := range refs {
				if matchesAny(scoped, ref) {
					in = append(in, ref)
				}
			}
			refs = in
		} else {
			refs = configuredRefs(r.cfg)
		}
		if len(refs) < 2 {
			msg := "Only one model available"
			if len(scoped) > 0 {
				msg = "Only one model in scope"
			}
			return chat.HostResult{Text: msg}, nil
		}
		cur := r.model.Provider + "/" + r.model.ID
		i := slices.IndexFunc(refs, func(s string) bool { return strings.EqualFold(s, cur) })
		step := 1
		if dir == "previous" {
			step = -1
		}
		next := refs[((i+step)%len(refs)+len(refs))%len(refs)]
		res, err := switchModel(c, r, next, newAgent, ag)
		if err == nil {
			res.Text = "Switched to " + r.model.ID
			if r.model.Reasoning && r.thinking != "off" && r.thinking != "" {
				res.Text += " (thinking: " + r.thinking + ")"
			}
			reasoning := r.model.Reasoning
			res.Reasoning = &reasoning
		}
		return res, err
	}
	o.Host["set-setting"] = func(_ context.Context, kv string) (chat.HostResult, error) {
		k, v, _ := strings.Cut(kv, "=")
		raw := v
		if v != "true" && v != "false" && strings.Trim(v, "0123456789") != "" {
			b, _ := json.Marshal(v)
			raw = string(b)
		}
		ch, err := r.cfg.Edit(config.Settings, config.Global, config.EditOp{Op: config.OpSet, Path: k, Value: json.RawMessage(raw)})
		if err != nil {
			return chat.HostResult{}, err
		}
		if err := ch.Write(); err != nil {
			return chat.HostResult{}, err
		}
		return chat.HostResult{}, nil
	}
	o.Host["clone"] = func(context.Context, string) (chat.HostResult, error) {
		old := r.sess
		ns, err := cloneSession(old, r.cfg.ProjectDir)
		if err != nil {
			return chat.HostResult{}, err
		}
		if err := old.Close(); err != nil {
			return chat.HostResult{}, err
		}
		r.sess = ns
		*ag = newAgent()
		return chat.HostResult{Text: "Cloned to new session", Agent: *ag}, nil
	}
	o.Host["import"] = func(_ context.Context, path string) (chat.HostResult, error) {
		if path == "" {
			return chat.HostResult{Text: "Usage: /import <path.jsonl>", Error: true}, nil
		}
		path = strings.Trim(path, `"'`)
		if strings.HasPrefix(path, "~/") {
			path = filepath.Join(r.cfg.Home, path[2:])
		} else if !filepath.IsAbs(path) {
			path = filepath.Join(r.cfg.ProjectDir, path)
		}
		ns, err := importSession(path, r.sess.Dir())
		if err != nil {
			return chat.HostResult{}, err
		}
		if err := r.sess.Close(); err != nil {
			ns.Close()
			return chat.HostResult{}, err
		}
		r.sess = ns
		note := restoreModel(c, r)
		*ag = newAgent()
		text := "Session imported from: " + path
		if note != "" {
			text += "\n" + note
		}
		return chat.HostResult{Text: text, Agent: *ag, Model: r.model.Provider + "/" + r.model.ID,
			ContextWindow: r.model.ContextWindow, Thinking: r.thinking}, nil
	}
	o.Host["trust"] = func(_ context.Context, arg string) (chat.HostResult, error) {
		return trustFromChat(r, arg)
	}
	o.Pick["trust"] = func() (chat.Picker, error) {
		return chat.Picker{Title: "Trust " + r.cfg.ProjectDir + "?", Items: []chat.PickItem{
			{Label: "Trust this folder", Arg: "trust", Description: "load its .pi/ settings, extensions and packages from now on"},
			{Label: "Do not trust this folder", Arg: "untrust", Description: "ignore its .pi/ folder from now on"},
		}, Hint: "The decision is saved in trust.json and applies when pigo starts again"}, nil
	}
	o.Host["scoped-models"] = func(_ context.Context, ref string) (chat.HostResult, error) {
		if ref == "" {
			return chat.HostResult{}, nil
		}
		if i := slices.Index(scoped, ref); i >= 0 {
			scoped = slices.Delete(scoped, i, i+1)
		} else {
			scoped = append(scoped, ref)
		}
		v, _ := json.Marshal(scoped)
		ch, err := r.cfg.Edit(config.Settings, config.Global, config.EditOp{Op: config.OpSet, Path: "enabledModels", Value: v})
		if err == nil {
			err = ch.Write()
		}
		if err != nil {
			return chat.HostResult{}, err
		}
		if len(scoped) == 0 {
			return chat.HostResult{Text: "Model scope cleared: Ctrl+P cycles through every configured model"}, nil
		}
		return chat.HostResult{Text: "Models in scope: " + strings.Join(scoped, ", ")}, nil
	}
	o.Pick["model"] = func() (chat.Picker, error) {
		// pi lists the models it can use; the configured providers' models come first here,
		// then the rest of the catalogue.
		cur := r.model.Provider + "/" + r.model.ID
		p := chat.Picker{Title: "Select model", Empty: "No models available"}
		conf := configuredRefs(r.cfg)
		seen := map[string]bool{}
		add := func(ref, desc string) {
			if seen[strings.ToLower(ref)] {
				return
			}
			seen[strings.ToLower(ref)] = true
			label := ref
			if strings.EqualFold(ref, cur) {
				label += " ✓"
				p.Current = len(p.Items)
			}
			p.Items = append(p.Items, chat.PickItem{Label: label, Arg: ref, Description: desc})
		}
		for _, ref := range conf {
			add(ref, "configured")
		}
		for _, ref := range modelRefs(r.cfg) {
			add(ref, "")
		}
		return p, nil
	}
	o.Pick["scoped-models"] = func() (chat.Picker, error) {
		p := chat.Picker{Title: "Scoped models (enter toggles a model for Ctrl+P cycling; saved to settings enabledModels)", Empty: "No models available"}
		for _, ref := range configuredRefs(r.cfg) {
			label := "[ ] " + ref
			if matchesAny(scoped, ref) {
				label = "[x] " + ref
			}
			p.Items = append(p.Items, chat.PickItem{Label: label, Arg: ref})
		}
		return p, nil
	}
}

// matchesAny reports whether ref matches one of pi's model patterns (id or provider/id).
func matchesAny(patterns []string, ref string) bool {
	_, id, _ := strings.Cut(ref, "/")
	for _, p := range patterns {
		if strings.EqualFold(p, ref) || strings.EqualFold(p, id) {
			return true
		}
		if g, err := pattern.Compile(p); err == nil && (g.Match(ref) || g.Match(id)) {
			return true
		}
	}
	return false
}

// configuredRefs are the models of providers the person configured (models.json, or
// providers with a key in the environment): what /model lists first and Ctrl+P cycles.
func configuredRefs(cfg *config.Config) []string {
	var out []string
	for _, ref := range modelRefs(cfg) {
		if configured(cfg, ref) {
			out = append(out, ref)
		}
	}
	return out
}

// configured reports a model of models.json, or of a catalogue provider whose API key is
// in the environment.
func configured(cfg *config.Config, ref string) bool {
	mi, err := cfg.SessionModel(ref)
	if err != nil || mi == nil {
		return false
	}
	if mi.Source != "" && mi.Source != "catalogue" && mi.Source != "defaults" {
		return true
	}
	p, _, _ := strings.Cut(ref, "/")
	for _, k := range envKeys(p) {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}

// envKeys are the environment variables pi reads a provider's key from.
func envKeys(provider string) []string {
	up := strings.ToUpper(strings.ReplaceAll(provider, "-", "_"))
	keys := []string{up + "_API_KEY"}
	switch provider {
	case "anthropic":
		keys = append(keys, "ANTHROPIC_OAUTH_TOKEN")
	case "google", "gemini":
		keys = append(keys, "GEMINI_API_KEY")
	}
	return keys
}

// cloneSession is /clone: a new session file holding the current branch (pi's clone).
func cloneSession(s *session.Session, cwd string) (*session.Session, error) {
	if s.Path() == "" || !s.Persisted() {
		ns := session.New(cwd, s.Dir(), session.Options{ParentSession: s.Path()})
		for _, e := range s.Branch(s.Leaf()) {
			if _, err := ns.Append(cloneEntry(e)); err != nil {
				return nil, err
			}
		}
		return ns, nil
	}
	return session.Fork(s.Path(), cwd, s.Dir())
}

func cloneEntry(e *session.Entry) *session.Entry {
	c := *e
	return &c
}

// importSession is /import PATH: the JSONL session is copied into the session folder, keeping
// its id and working directory (pi's import), and opened.
func importSession(path, dir string) (*session.Session, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h session.Header
	first, _, _ := strings.Cut(string(b), "\n")
	if err := json.Unmarshal([]byte(first), &h); err != nil || h.Type != "session" || h.ID == "" {
		return nil, fmt.Errorf("%s is not a session file (its first line is not a session header)", path)
	}
	if dir == "" {
		return nil, errors.New("this session is in memory (--no-session): there is no session folder to import into")
	}
	dst := filepath.Join(dir, filepath.Base(path))
	if !strings.HasSuffix(dst, ".jsonl") {
		dst += ".jsonl"
	}
	if _, err := os.Stat(dst); err == nil && dst != path {
		return nil, fmt.Errorf("%s already exists", dst)
	}
	if dst != path {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return nil, err
		}
	}
	return session.Open(dst, session.OpenOptions{Dir: dir, Cwd: h.Cwd})
}

// trustFromChat is /trust: the project folder's decision saved in trust.json, as
// `pigo trust` saves it; it applies when pigo starts again.
func trustFromChat(r *run, arg string) (chat.HostResult, error) {
	dir := r.cfg.ProjectDir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	var decision *bool
	word := "trusted"
	switch arg {
	case "trust", "always", "":
		t := true
		decision = &t
	case "untrust", "never":
		f := false
		decision, word = &f, "not trusted"
	default:
		return chat.HostResult{Text: "Usage: /trust [always|never]", Error: true}, nil
	}
	path, err := config.SaveTrust(r.cfg.AgentDir, dir, decision)
	if err != nil {
		return chat.HostResult{}, fmt.Errorf("%s: %v", path, err)
	}
	return chat.HostResult{Text: fmt.Sprintf("%s is %s (saved in %s; restart pigo to apply it)", dir, word, path)}, nil
}

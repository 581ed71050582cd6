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
	"github.com/pigo-agent/pigo/internal/app"
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

// chatLook fills the chat's display options from the session's configuration: settings,
// keybindings.json, the theme (the agent dir's and a trusted project's themes folders, the
// settings' themes paths), the terminal's hyperlink support; problems with those files
// become notices.
func (c *CLI) chatLook(o *chat.Options, s *app.Session, ac *appConfig, st *app.Setup, a *args) {
	cfg := ac.cfg
	var us uiSettings
	_ = json.Unmarshal(st.Settings, &us)
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
	o.Cwd = cfg.ProjectDir
	if abs, err := filepath.Abs(o.Cwd); err == nil {
		o.Cwd = abs
	}
	o.Home = cfg.Home
	o.Providers = providerCount(cfg)
	km, kd := keymap.Load(cfg.AgentDir)
	o.Keys = km
	// pi's order: the trusted project's themes, the agent dir's, then the packages' (their
	// list is the configuration's), then the settings' themes paths.
	var places []string
	for _, t := range cfg.Themes() {
		places = append(places, t.Path)
	}
	for _, p := range us.Themes {
		if strings.HasPrefix(p, "~/") {
			p = filepath.Join(cfg.Home, p[2:])
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(cfg.AgentDir, p)
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
	if d := s.File().Dir(); d != "" && d != session.DefaultDir(cfg.AgentDir, cfg.ProjectDir) {
		o.SessionDir = d
	}
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

func (c *CLI) configEmbed(a *args, ac *appConfig, s *app.Session, color bool, th func() *theme.Theme) func(w, h int) chat.Embedded {
	return func(w, h int) chat.Embedded {
		load := c.loadOptions(a)
		trusted := ac.cfg.Trusted
		load.Approve = &trusted
		load.AskTrust = nil
		o := tui.Options{Load: load, Color: color, Embedded: true, Theme: th(),
			Resolve: config.ResolveOptions{Model: s.State().Model, Tools: a.csv("--tools"),
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

// chatCommands are the commands the chat's keys and pi's settings commands run on top of the
// session's: /model listing the configured providers' models first, cycling models (Ctrl+P),
// saving a setting (/settings), /scoped-models and /trust. They write the configuration
// files, which only the command line reaches.
func chatCommands(ac *appConfig, st *app.Setup) []app.Command {
	// The configuration is read at each call: /reload replaces it.
	var us uiSettings
	_ = json.Unmarshal(st.Settings, &us)
	scoped := us.EnabledModels
	switchTo := func(s *app.Session, ref string) (app.Result, error) {
		if err := s.SwitchModel(ref); err != nil {
			return app.Result{}, err
		}
		// pi's status names the model's id.
		_, id, _ := strings.Cut(s.State().Model, "/")
		return app.Result{Text: "Model: " + id}, nil
	}
	// Apply reads settings.json again under its lock: the configuration loaded at start is
	// stale after the first save (a second Edit+Write was refused as "changed on disk").
	saveSetting := func(key string, v json.RawMessage) error {
		_, err := ac.cfg.Apply(config.Settings, config.Global, false, config.EditOp{Op: config.OpSet, Path: key, Value: v})
		return err
	}
	return []app.Command{
		{Name: "model", Interactive: true, Run: func(_ context.Context, s *app.Session, ref string) (app.Result, error) {
			return switchTo(s, ref)
		}, Pick: func(_ context.Context, s *app.Session) (app.Picker, error) {
			// pi lists the models it can use; the configured providers' models come first
			// here, then the rest of the catalogue.
			cur := s.State().Model
			p := app.Picker{Title: "Select model", Empty: "No models available"}
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
				p.Items = append(p.Items, app.PickItem{Label: label, Arg: ref, Description: desc})
			}
			for _, ref := range configuredRefs(ac.cfg) {
				add(ref, "configured")
			}
			for _, ref := range ac.cfg.ModelRefs() {
				add(ref, "")
			}
			return p, nil
		}},
		{Name: "cycle-model", Interactive: true, Run: func(_ context.Context, s *app.Session, dir string) (app.Result, error) {
			refs := ac.cfg.ModelRefs()
			if len(scoped) > 0 {
				var in []string
				for _, ref := range refs {
					if matchesAny(scoped, ref) {
						in = append(in, ref)
					}
				}
				refs = in
			} else {
				refs = configuredRefs(ac.cfg)
			}
			if len(refs) < 2 {
				msg := "Only one model available"
				if len(scoped) > 0 {
					msg = "Only one model in scope"
				}
				return app.Result{Text: msg}, nil
			}
			cur := s.State().Model
			i := slices.IndexFunc(refs, func(r string) bool { return strings.EqualFold(r, cur) })
			step := 1
			if dir == "previous" {
				step = -1
			}
			next := refs[((i+step)%len(refs)+len(refs))%len(refs)]
			if err := s.SwitchModel(next); err != nil {
				return app.Result{}, err
			}
			stt := s.State()
			_, id, _ := strings.Cut(stt.Model, "/")
			text := "Switched to " + id
			if stt.Reasoning && stt.Thinking != "off" && stt.Thinking != "" {
				text += " (thinking: " + stt.Thinking + ")"
			}
			return app.Result{Text: text}, nil
		}},
		{Name: "set-setting", Interactive: true, Run: func(_ context.Context, _ *app.Session, kv string) (app.Result, error) {
			k, v, _ := strings.Cut(kv, "=")
			raw := v
			if v != "true" && v != "false" && strings.Trim(v, "0123456789") != "" {
				b, _ := json.Marshal(v)
				raw = string(b)
			}
			return app.Result{}, saveSetting(k, json.RawMessage(raw))
		}},
		{Name: "trust", Interactive: true, Run: func(_ context.Context, _ *app.Session, arg string) (app.Result, error) {
			return trustFromChat(ac.cfg, arg)
		}, Pick: func(context.Context, *app.Session) (app.Picker, error) {
			return app.Picker{Title: "Trust " + ac.cfg.ProjectDir + "?", Items: []app.PickItem{
				{Label: "Trust this folder", Arg: "trust", Description: "load its .pi/ settings, extensions and packages from now on"},
				{Label: "Do not trust this folder", Arg: "untrust", Description: "ignore its .pi/ folder from now on"},
			}, Hint: "The decision is saved in trust.json and applies when pigo starts again"}, nil
		}},
		{Name: "scoped-models", Interactive: true, Run: func(_ context.Context, _ *app.Session, ref string) (app.Result, error) {
			if ref == "" {
				return app.Result{}, nil
			}
			if i := slices.Index(scoped, ref); i >= 0 {
				scoped = slices.Delete(scoped, i, i+1)
			} else {
				scoped = append(scoped, ref)
			}
			v, _ := json.Marshal(scoped)
			if err := saveSetting("enabledModels", v); err != nil {
				return app.Result{}, err
			}
			if len(scoped) == 0 {
				return app.Result{Text: "Model scope cleared: Ctrl+P cycles through every configured model"}, nil
			}
			return app.Result{Text: "Models in scope: " + strings.Join(scoped, ", ")}, nil
		}, Pick: func(context.Context, *app.Session) (app.Picker, error) {
			p := app.Picker{Title: "Scoped models (enter toggles a model for Ctrl+P cycling; saved to settings enabledModels)", Empty: "No models available"}
			for _, ref := range configuredRefs(ac.cfg) {
				label := "[ ] " + ref
				if matchesAny(scoped, ref) {
					label = "[x] " + ref
				}
				p.Items = append(p.Items, app.PickItem{Label: label, Arg: ref})
			}
			return p, nil
		}},
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
	for _, ref := range cfg.ModelRefs() {
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

// trustFromChat is /trust: the project folder's decision saved in trust.json, as
// `pigo trust` saves it; it applies when pigo starts again.
func trustFromChat(cfg *config.Config, arg string) (app.Result, error) {
	dir := cfg.ProjectDir
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
		return app.Result{}, errors.New("Usage: /trust [always|never]")
	}
	path, err := config.SaveTrust(cfg.AgentDir, dir, decision)
	if err != nil {
		return app.Result{}, fmt.Errorf("%s: %v", path, err)
	}
	return app.Result{Text: fmt.Sprintf("%s is %s (saved in %s; restart pigo to apply it)", dir, word, path)}, nil
}

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/chat"
	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/keymap"
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
	for _, ref := range cfg.ConfiguredRefs() {
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

// settingsCommands are the chat's configuration commands (app.SettingsCommands) over this
// session's configuration, read again after /reload.
func settingsCommands(ac *appConfig, st *app.Setup) []app.Command {
	var us uiSettings
	_ = json.Unmarshal(st.Settings, &us)
	return app.SettingsCommands(ac, us.EnabledModels)
}

// ModelRefs, ConfiguredRefs, SaveSetting, SaveTrust and ProjectDir are app.Settings.
func (x *appConfig) ModelRefs() []string      { return x.cfg.ModelRefs() }
func (x *appConfig) ConfiguredRefs() []string { return x.cfg.ConfiguredRefs() }
func (x *appConfig) ProjectDir() string       { return x.cfg.ProjectDir }
func (x *appConfig) SaveTrust(arg string) (string, error) {
	return x.cfg.SaveProjectTrust(arg)
}

// SaveSetting goes through Apply, which reads settings.json again under its lock: the
// configuration loaded at start is stale after the first save (a second Edit+Write was refused
// as "changed on disk").
func (x *appConfig) SaveSetting(key string, v json.RawMessage) error {
	_, err := x.cfg.Apply(config.Settings, config.Global, false, config.EditOp{Op: config.OpSet, Path: key, Value: v})
	return err
}

package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/keymap"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/termui"
	"github.com/pigo-agent/pigo/internal/theme"
)

// Display is where the chat's look comes from: the session's settings, the run's display
// flags and the configuration's folders. Options.SetDisplay reads it.
type Display struct {
	// Settings is the session's settings.json (its "Terminal and display" keys are read).
	Settings json.RawMessage
	// TUIMode and UseTheme are --tui-mode and --use-theme ("": the settings').
	TUIMode, UseTheme string
	// AgentDir, Home and ProjectDir are the configuration's folders; SessionDir the session
	// file's folder.
	AgentDir, Home, ProjectDir, SessionDir string
	// ThemeDirs are the themes folders of a trusted project, the agent dir and the packages,
	// in pi's order (before the settings' themes paths).
	ThemeDirs []string
	// Providers is how many providers the person configured.
	Providers int
	// Version is pigo's version for the header.
	Version string
	// Getenv reads the environment (COLORFGBG, TMUX, the terminal's hyperlink support).
	Getenv func(string) string
}

// displaySettings are the settings.json keys the chat reads (pi's "Terminal and display").
type displaySettings struct {
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
}

// SetDisplay fills the display options from d: the settings, keybindings.json, the theme (the
// agent dir's and a trusted project's themes folders, the settings' themes paths), the
// terminal's hyperlink support, the system clipboard; problems with those files become notices.
func (o *Options) SetDisplay(d Display) {
	var us displaySettings
	_ = json.Unmarshal(d.Settings, &us)
	quiet := ""
	switch strings.TrimSpace(string(us.Quiet)) {
	case "true":
		quiet = "true"
	case `"header"`:
		quiet = "header"
	}
	mode := us.TUIMode
	if d.TUIMode != "" {
		mode = d.TUIMode
	}
	o.UI = UI{Mode: mode, ExitOutput: us.ExitOutput, Quiet: quiet, HideThinking: us.HideThinking,
		CodeIndent: us.Markdown.CodeBlockIndent, MaxVisible: us.MaxVisible, ExternalEditor: us.ExternalEditor,
		DoubleEscape: us.DoubleEscape, EditorPadding: us.EditorPadding, OutputPad: us.OutputPad, Env: d.Getenv}
	o.AutoCompact = us.Compaction.Enabled == nil || *us.Compaction.Enabled
	o.Version = d.Version
	o.Cwd = d.ProjectDir
	if abs, err := filepath.Abs(o.Cwd); err == nil {
		o.Cwd = abs
	}
	o.Home = d.Home
	o.Providers = d.Providers
	km, kd := keymap.Load(d.AgentDir)
	o.Keys = km
	// pi's order: the trusted project's themes, the agent dir's, then the packages' (their
	// list is the configuration's), then the settings' themes paths.
	places := append([]string{}, d.ThemeDirs...)
	for _, p := range us.Themes {
		if strings.HasPrefix(p, "~/") {
			p = filepath.Join(d.Home, p[2:])
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(d.AgentDir, p)
		}
		places = append(places, p)
	}
	name := theme.Pick(us.Theme, d.Getenv("COLORFGBG"))
	if d.UseTheme != "" {
		name = theme.Pick(d.UseTheme, d.Getenv("COLORFGBG"))
	}
	th, td := theme.Find(name, places)
	o.Theme = th
	links := strings.Trim(strings.TrimSpace(string(us.Terminal.Hyperlinks)), `"`)
	o.Hyperlinks = termui.Hyperlinks(links, d.Getenv)
	for _, x := range append(kd, td...) {
		if x.Severity == diag.Info {
			continue
		}
		o.Notices = append(o.Notices, warningLine(x))
	}
	if d.SessionDir != "" && d.SessionDir != session.DefaultDir(d.AgentDir, d.ProjectDir) {
		o.SessionDir = d.SessionDir
	}
	o.Clipboard = systemClipboard
	if n := tmuxExtendedKeysNotice(d.Getenv); n != "" {
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

// warningLine is a keybindings.json or theme problem as a start-up notice.
func warningLine(d diag.Diagnostic) string {
	if d.HasPos() {
		l, col := d.Pos()
		return fmt.Sprintf("Warning: %s:%d:%d: %s", d.File(), l, col, d.Message)
	}
	if f := d.File(); f != "" {
		return fmt.Sprintf("Warning: %s: %s", f, d.Message)
	}
	return "Warning: " + d.Message
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

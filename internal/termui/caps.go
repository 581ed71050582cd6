package termui

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// Hyperlinks decides whether the terminal shows OSC 8 hyperlinks, as pi does: the setting
// (terminal.hyperlinks: true, false or "auto"/"") wins, then PI_HYPERLINKS=1/0, then the
// terminal: inside tmux only when the attached client's features list hyperlinks; screen
// never; Kitty, Ghostty, WezTerm, iTerm2, Warp, Windows Terminal, Alacritty, VS Code and Zed
// yes; anything else no (an unknown terminal could swallow the URL).
func Hyperlinks(setting string, env func(string) string) bool {
	switch setting {
	case "true":
		return true
	case "false":
		return false
	}
	switch env("PI_HYPERLINKS") {
	case "1":
		return true
	case "0":
		return false
	}
	prog := strings.ToLower(env("TERM_PROGRAM"))
	term := strings.ToLower(env("TERM"))
	switch {
	case env("TMUX") != "" || strings.HasPrefix(term, "tmux"):
		return tmuxForwardsLinks()
	case strings.HasPrefix(term, "screen"):
		return false
	case env("KITTY_WINDOW_ID") != "" || prog == "kitty",
		prog == "ghostty" || strings.Contains(term, "ghostty") || env("GHOSTTY_RESOURCES_DIR") != "",
		env("WEZTERM_PANE") != "" || prog == "wezterm",
		prog == "warpterminal" || env("WARP_SESSION_ID") != "",
		env("ITERM_SESSION_ID") != "" || prog == "iterm.app",
		env("WT_SESSION") != "",
		prog == "alacritty" || strings.HasPrefix(term, "alacritty") || env("ALACRITTY_WINDOW_ID") != "",
		prog == "vscode" || prog == "zed":
		return true
	}
	return false
}

func tmuxForwardsLinks() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "display-message", "-p", "#{client_termfeatures}").Output()
	if err != nil {
		return false
	}
	for _, f := range strings.Split(strings.TrimSpace(string(out)), ",") {
		if strings.TrimSpace(f) == "hyperlinks" {
			return true
		}
	}
	return false
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/appconfig"
	"github.com/pigo-agent/pigo/internal/auth"
	"github.com/pigo-agent/pigo/internal/chat"
	"github.com/pigo-agent/pigo/internal/theme"
)

// runChat is `pigo [FLAGS] [PROMPT...]` on a terminal: the interactive chat (D22). The session
// is opened as for -p, with the chat as its front end and approver, so writes outside the
// workspace, escalations and questions are asked instead of refused.
func (c *CLI) runChat(a *args) int {
	prompts := append(append([]string{}, a.pos...), a.rest...)
	if a.has("-r") && len(prompts) > 0 {
		fmt.Fprintln(c.Stderr, "pigo: --resume opens the session picker; give the prompt in the resumed session")
		return ExitUsage
	}
	b := chat.NewBridge()
	rw := chat.NewRewind("")
	s, ac, st, err := c.openAppWith(a, app.Options{Frontend: b, Approver: b, Dialog: chatDialog{b}, OpenURL: auth.OpenBrowser, Rewind: rw, Stderr: c.Stderr,
		Session: app.SessionSpec{MissingCwd: func(stored, cwd string) string { return app.AskMissingCwdTerminal(c.Stdin, c.Stderr, stored, cwd) }}}, func(ac *appconfig.Config, st *app.Setup) []app.Command { return ac.SettingsCommands(st.Settings) })
	if errors.Is(err, app.ErrCancelled) {
		return ExitOK // the person cancelled the start (a --session whose folder is gone)
	}
	if err != nil {
		return c.exitCode(err)
	}
	if err := s.MissingCredential(); err != nil {
		// The chat's first line: the person learns it before a request fails.
		b.Notice(app.Notice{Text: err.Error(), Error: true})
	}
	o := chat.Options{Session: s, Bridge: b, Prompt: strings.Join(prompts, " "), Color: c.color(a), Rewind: rw}
	cfg := ac.Files()
	o.SetDisplay(chat.Display{Settings: st.Settings, TUIMode: a.str("--tui-mode"), UseTheme: a.str("--use-theme"), AgentDir: cfg.AgentDir,
		Home: cfg.Home, ProjectDir: cfg.ProjectDir, SessionDir: s.File().Dir(), ThemeDirs: ac.ThemeDirs(), Providers: ac.Providers(),
		Version: Version, Getenv: c.getenv})
	o.Config = c.configEmbed(a, ac, s, c.color(a), func() *theme.Theme { return o.Theme })
	if a.has("-r") {
		o.Start = "/resume"
	}
	// The chat draws on the terminal itself (Main wraps stdout to catch write errors, which
	// would hide the terminal from bubbletea: no size, no resize events).
	out := c.Stdout
	if ew, ok := out.(*errWriter); ok {
		out = ew.w
	}
	if f, ok := out.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil {
			o.Width, o.Height = int(ws.Col), int(ws.Row)
		}
	}
	in := c.Stdin
	if in == nil {
		in = os.Stdin
	}
	code := ExitOK
	if err := chat.Run(o, in, out); err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		code = ExitInternal
	}
	if err := s.Close(); err != nil {
		fmt.Fprintf(c.Stderr, "pigo: session: %v\n", err)
		return ExitInternal
	}
	return code
}

// chatDialog is the chat's input dialogs as the session's app.Dialog (/login's questions).
type chatDialog struct{ b *chat.Bridge }

func (d chatDialog) Input(ctx context.Context, r app.InputRequest) (string, error) {
	cr := chat.InputRequest{Kind: r.Kind, Message: r.Message, Placeholder: r.Placeholder}
	for _, o := range r.Options {
		cr.Options = append(cr.Options, chat.InputOption{ID: o.ID, Label: o.Label})
	}
	ans, err := d.b.Input(ctx, cr)
	if errors.Is(err, chat.ErrInputCancelled) {
		return "", app.ErrCancelled
	}
	return ans, err
}

func (d chatDialog) Show(text string) { d.b.Show(text) }

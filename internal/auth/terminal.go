package auth

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Terminal is the sign-in conversation on a terminal (pi's: the browser sign-in first,
// --no-browser picks the other method; URLs and device codes printed; the pasted redirect URL
// read while the loopback callback waits). It is the UI of Login for `pigo auth login`.
type Terminal struct {
	// In reads the answers; Fd is its terminal (echo is turned off for a secret); Out shows
	// the conversation.
	In  *bufio.Reader
	Fd  int
	Out io.Writer
	// Provider is the provider signing in; Browser opens sign-in pages in the desktop's
	// browser (false: --no-browser, the other method); APIKey asks for a key.
	Provider string
	Browser  bool
	APIKey   bool
	skipped  []string
}

func (t *Terminal) say(s string) { fmt.Fprintln(t.Out, s) }

func (t *Terminal) Notify(n Notice) {
	switch n.Kind {
	case NoticeAuthURL:
		t.say("Open this URL to sign in:\n  " + n.URL)
		if n.Instructions != "" {
			t.say(n.Instructions)
		}
		if t.Browser {
			OpenBrowser(n.URL)
		}
		rerun := fmt.Sprintf(`"pigo auth login %s --no-browser"`, t.Provider)
		if len(t.skipped) == 1 {
			t.say(fmt.Sprintf("To use %q instead, run %s", t.skipped[0], rerun))
		} else if len(t.skipped) > 1 {
			t.say(fmt.Sprintf("Other sign-in methods: %s. Run %s to choose one.", quoteAll(t.skipped), rerun))
		}
	case NoticeDeviceCode:
		t.say(fmt.Sprintf("Open %s and enter code: %s", n.VerificationURI, n.UserCode))
		if t.Browser {
			OpenBrowser(n.VerificationURI)
		}
		t.say("Waiting for authentication...")
	default:
		t.say(n.Message)
	}
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

func (t *Terminal) Prompt(ctx context.Context, p Prompt) (string, error) {
	switch p.Kind {
	case PromptSelect:
		return t.selectMethod(ctx, p)
	case PromptSecret:
		return t.secret(ctx, p.Message+": ")
	}
	msg := p.Message
	if p.Placeholder != "" {
		msg += " (" + p.Placeholder + ")"
	}
	return t.question(ctx, msg+": ")
}

func (t *Terminal) selectMethod(ctx context.Context, p Prompt) (string, error) {
	if len(p.Options) == 0 {
		return "", errors.New("no sign-in method")
	}
	first, others := p.Options[0], p.Options[1:]
	if t.APIKey {
		return t.choose(ctx, p.Message, p.Options)
	}
	if t.Browser {
		for _, o := range others {
			t.skipped = append(t.skipped, o.Label)
		}
		return first.ID, nil
	}
	switch len(others) {
	case 0:
		return first.ID, nil
	case 1:
		t.say(p.Message + " " + others[0].Label)
		return others[0].ID, nil
	}
	return t.choose(ctx, p.Message, others)
}

func (t *Terminal) choose(ctx context.Context, msg string, opts []Option) (string, error) {
	t.say(msg)
	for i, o := range opts {
		t.say(fmt.Sprintf("  %d. %s", i+1, o.Label))
	}
	for {
		ans, err := t.question(ctx, fmt.Sprintf("Select 1-%d: ", len(opts)))
		if err != nil {
			return "", err
		}
		if n, err := strconv.Atoi(strings.TrimSpace(ans)); err == nil && n >= 1 && n <= len(opts) {
			return opts[n-1].ID, nil
		}
		t.say(fmt.Sprintf("Enter a number from 1 to %d.", len(opts)))
	}
}

// question reads one line; a cancelled ctx (the browser callback came first) abandons it.
func (t *Terminal) question(ctx context.Context, prompt string) (string, error) {
	fmt.Fprint(t.Out, prompt)
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := t.In.ReadString('\n')
		ch <- line{strings.TrimRight(s, "\r\n"), err}
	}()
	select {
	case <-ctx.Done():
		fmt.Fprintln(t.Out)
		return "", errors.New("Login cancelled")
	case l := <-ch:
		if l.err != nil && (l.err != io.EOF || l.s == "") {
			return "", errors.New("Login cancelled")
		}
		return l.s, nil
	}
}

// secret reads a line with echo off.
func (t *Terminal) secret(ctx context.Context, prompt string) (string, error) {
	old, err := unix.IoctlGetTermios(t.Fd, unix.TCGETS)
	if err == nil {
		raw := *old
		raw.Lflag &^= unix.ECHO
		_ = unix.IoctlSetTermios(t.Fd, unix.TCSETS, &raw)
		defer func() {
			_ = unix.IoctlSetTermios(t.Fd, unix.TCSETS, old)
			fmt.Fprintln(t.Out)
		}()
	}
	return t.question(ctx, prompt)
}

// OpenBrowser opens url in the desktop's browser when there is a desktop (never blocks, never
// fails the sign-in: the URL is printed anyway).
func OpenBrowser(url string) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return
	}
	if p, err := exec.LookPath("xdg-open"); err == nil {
		cmd := exec.Command(p, url)
		if cmd.Start() == nil {
			go func() { _ = cmd.Wait() }()
		}
	}
}

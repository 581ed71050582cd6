package chat

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/export"
	"github.com/pigo-agent/pigo/internal/session"
)

// shareViewer is where pi's share links point (PI_SHARE_VIEWER_URL replaces it): the viewer
// reads the gist named after the '#'.
const shareViewer = "https://pi.dev/session/"

// share is /share, as pi shares without Radius: the session exported to HTML as /export
// writes it, uploaded as a secret gist by the GitHub CLI the person is signed in to, and
// pi's viewer link and the gist's printed. Esc stops it ("Share cancelled").
func (m *Model) share() tea.Cmd {
	s := m.sess()
	if s == nil {
		m.fail("Failed to export session: no session")
		return nil
	}
	if m.running {
		m.info("Wait for the agent to finish (or press Esc) before /share")
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancelHost = cancel
	colors := export.DefaultColors
	return m.host("", func(context.Context) (app.Result, error) {
		defer cancel()
		text, err := shareGist(ctx, s, colors)
		return app.Result{Text: text}, err
	})
}

// shareGist uploads the session as a secret gist with gh and returns the status pi shows;
// errors carry pi's texts. The page is written to a private temporary folder, removed after.
func shareGist(ctx context.Context, s *session.Session, colors export.Colors) (string, error) {
	gh, err := exec.LookPath("gh")
	if err != nil {
		return "", errors.New("GitHub CLI (gh) is not installed. Install it from https://cli.github.com/")
	}
	if err := exec.CommandContext(ctx, gh, "auth", "status").Run(); err != nil {
		if ctx.Err() != nil {
			return "Share cancelled", nil
		}
		return "", errors.New("GitHub CLI is not logged in. Run 'gh auth login' first.")
	}
	dir, err := os.MkdirTemp("", "pi-share-")
	if err != nil {
		return "", errors.New("Failed to export session: " + err.Error())
	}
	defer os.RemoveAll(dir)
	page := filepath.Join(dir, "session.html")
	if _, err := export.HTML(s, page, dir, colors); err != nil {
		return "", errors.New("Failed to export session: " + err.Error())
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, gh, "gist", "create", "--public=false", page)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "Share cancelled", nil
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = "Unknown error"
		}
		return "", errors.New("Failed to create gist: " + msg)
	}
	url := strings.TrimSpace(stdout.String())
	id := url[strings.LastIndex(url, "/")+1:]
	if id == "" {
		return "", errors.New("Failed to parse gist ID from gh output")
	}
	viewer := os.Getenv("PI_SHARE_VIEWER_URL")
	if viewer == "" {
		viewer = shareViewer
	}
	return "Share URL: " + viewer + "#" + id + "\nGist: " + url, nil
}

package app

import (
	"context"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/llm"
	namer "github.com/pigo-agent/pigo/internal/naming"
	"github.com/pigo-agent/pigo/internal/session"
)

// naming is the seed's session-name: tried once per session file (the seed's extension is
// rebuilt for each session: a /new, /resume, /fork or /clone session is named from its own
// first prompt), waited for at Close.
type naming struct {
	mu   sync.Mutex
	file *session.Session // the session file last tried
	wg   sync.WaitGroup
}

// first reports whether f has not been tried yet, and marks it tried.
func (n *naming) first(f *session.Session) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.file == f {
		return false
	}
	n.file = f
	return true
}

func (n *naming) wait() { n.wg.Wait() }

// startNaming names an unnamed session from its first user prompt (the first user message of
// a continued session) through the sessionName model, in the background. Where a person is
// (the chat), the seed's notices say what happened: no sessionName configured, the model
// unavailable, the call failed (warnings), or the name given; pi's print mode shows no
// notifications, so -p says nothing.
func (s *Session) startNaming(ctx context.Context, prompt string) {
	s.mu.Lock()
	f, proxy := s.file, s.setup.Proxy
	s.mu.Unlock()
	if !s.naming.first(f) {
		return
	}
	if f.Name() != "" || s.cfg == nil {
		return
	}
	text := strings.TrimSpace(prompt)
	for _, m := range f.Context().Messages {
		if m.Role == llm.RoleUser {
			if t := strings.TrimSpace(m.Text()); t != "" {
				text = t
				break
			}
		}
	}
	if text == "" {
		return
	}
	conf := namer.ParseConfig(s.settings.raw)
	if conf == nil || conf.Model == "" {
		s.namingNotice("warning: " + namer.WarnNoConfig)
		return
	}
	m, err := s.cfg.Model(conf.Provider+"/"+conf.Model, "")
	if err != nil || m == nil {
		s.namingNotice("warning: " + namer.WarnUnavailable)
		return
	}
	p, err := llm.ProviderFor(m.API)
	if err != nil {
		s.namingNotice("warning: " + namer.WarnUnavailable)
		return
	}
	// ctx is the caller's, not the prompt's: the name is asked for beside the prompt (an
	// aborted prompt does not cancel it; an interrupted run does), and Close waits for it.
	s.naming.wg.Add(1)
	go func() {
		defer s.naming.wg.Done()
		name, err := namer.Generate(ctx, p, m, llm.Options{ProxyURL: proxy, SessionID: f.ID(), Headers: requestHeaders(f.ID())}, text, conf.MaxLength)
		if err != nil {
			s.namingNotice("warning: " + namer.WarnFailed)
			return
		}
		if _, err := f.AppendSessionInfo(name); err == nil {
			s.namingNotice(namer.Named(name))
		}
	}()
}

// namingNotice tells a person what session-name did; nothing in print mode.
func (s *Session) namingNotice(text string) {
	if s.interactive {
		s.fe.Notice(Notice{Text: text})
	}
}

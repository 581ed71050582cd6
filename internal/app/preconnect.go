package app

import (
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Preconnect opens the session model's provider connection ahead of the first request, for a
// run that makes one at once (print and JSON modes, with the prompt known, the credential
// checked and the network allowed): see llm.Preconnect. Only the APIs whose requests go to
// the base URL's own host, with a key (an OAuth credential is refreshed first, elsewhere),
// and not azure (its endpoint is derived from the base URL). It returns whether a connection
// was started.
func (s *Session) Preconnect() bool {
	s.mu.Lock()
	m := s.model
	proxy := ""
	if s.setup != nil {
		proxy = s.setup.Proxy
	}
	s.mu.Unlock()
	if m == nil || m.Auth != nil || m.Provider == "azure" {
		return false
	}
	switch m.API {
	case "openai-completions", "openai-responses", "anthropic-messages":
	default:
		return false
	}
	return llm.Preconnect(&llm.Options{ProxyURL: proxy}, strings.TrimRight(m.BaseURL, "/"))
}

package app

import (
	"encoding/json"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/talk"
)

// settings are the settings.json keys a session reads.
type settings struct {
	Retry *struct {
		Enabled     *bool `json:"enabled"`
		MaxRetries  *int  `json:"maxRetries"`
		BaseDelayMs *int  `json:"baseDelayMs"`
	} `json:"retry"`
	Compaction *struct {
		Enabled          *bool `json:"enabled"`
		ReserveTokens    *int  `json:"reserveTokens"`
		KeepRecentTokens *int  `json:"keepRecentTokens"`
	} `json:"compaction"`
	SteeringMode         string        `json:"steeringMode"`
	FollowUpMode         string        `json:"followUpMode"`
	DefaultThinkingLevel string        `json:"defaultThinkingLevel"`
	Talk                 talk.Settings `json:"talk"`

	// raw is the whole file (session-name reads sessionName from it).
	raw []byte
	// shellPath and shellCommandPrefix are strings only; exposeSessionEnvironment hides the
	// PI_* variables only when false.
	shellPath, shellCommandPrefix string
	hideSessionEnv                bool
}

// parseSettings reads the effective settings.json. A key of the wrong type is ignored
// (pigo check reports it), never fatal.
func parseSettings(raw []byte) settings {
	if len(raw) == 0 {
		return settings{}
	}
	if jsonc.IsEmptyObject(raw) {
		// No settings.json anywhere (a run's usual case): the effective settings are `{}`,
		// which set nothing. encoding/json's first decode of these types was ~0.07 ms of
		// app.Open.
		return settings{raw: raw}
	}
	var s settings
	s.raw = raw
	_ = json.Unmarshal(raw, &s)
	var loose map[string]json.RawMessage
	_ = json.Unmarshal(raw, &loose)
	str := func(k string) string {
		var v string
		if json.Unmarshal(loose[k], &v) != nil {
			return ""
		}
		return v
	}
	s.shellPath, s.shellCommandPrefix = str("shellPath"), str("shellCommandPrefix")
	var expose bool
	if b, ok := loose["exposeSessionEnvironment"]; ok && json.Unmarshal(b, &expose) == nil && !expose {
		s.hideSessionEnv = true
	}
	return s
}

// agent is the loop's settings: pi's defaults with the file's values over them.
func (s settings) agent() agent.Settings {
	out := agent.DefaultSettings()
	if r := s.Retry; r != nil {
		if r.Enabled != nil {
			out.Retry.Enabled = *r.Enabled
		}
		if r.MaxRetries != nil {
			out.Retry.MaxRetries = *r.MaxRetries
		}
		if r.BaseDelayMs != nil {
			out.Retry.BaseDelayMs = *r.BaseDelayMs
		}
	}
	if c := s.Compaction; c != nil {
		if c.Enabled != nil {
			out.Compaction.Enabled = *c.Enabled
		}
		if c.ReserveTokens != nil {
			out.Compaction.ReserveTokens = *c.ReserveTokens
		}
		if c.KeepRecentTokens != nil {
			out.Compaction.KeepRecentTokens = *c.KeepRecentTokens
		}
	}
	if s.SteeringMode != "" {
		out.SteeringMode = s.SteeringMode
	}
	if s.FollowUpMode != "" {
		out.FollowUpMode = s.FollowUpMode
	}
	return out
}

package tools

import (
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/aft"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/github"
)

// Notice is a message of the session start, as the seed's extensions send them with
// ui.notify in session_start: the chat shows them, `pigo tools` lists them.
type Notice struct {
	// Level is "error" or "warning".
	Level string `json:"level"`
	// Code is a stable name ("gh-missing", "aft-missing", "aft-config", "aft-search").
	Code string `json:"code"`
	Text string `json:"text"`
}

// AFTStart is what the session start found of aft (config.AFTSetup, as values).
type AFTStart struct {
	Found bool
	Tried []string
	// Config is the user-level aft.jsonc.
	Config aft.Config
}

// StartNotices are the toolsets' session-start messages for a resolved registry: the GitHub
// tools without gh (the seed's error text), aft not found (a warning naming where it was looked
// for), an aft.jsonc that could not be used, aft_search left out for want of an embedding
// backend. A toolset whose every declaration a personalExtensions rule disables says nothing.
func StartNotices(reg *engine.Result, a AFTStart) []Notice {
	var out []Notice
	if declared(reg, "toolset:github") {
		if why := github.Unavailable(); why != "" {
			level := "error"
			if why == github.WindowsText {
				level = "warning"
			}
			out = append(out, Notice{Level: level, Code: "gh-missing", Text: why})
		}
	}
	if declared(reg, "toolset:aft") {
		if a.Config.Problem != "" {
			out = append(out, Notice{Level: "warning", Code: "aft-config", Text: "aft: " + a.Config.Problem})
		}
		switch {
		case !a.Config.Enabled:
		case !a.Found:
			out = append(out, Notice{Level: "warning", Code: "aft-missing", Text: fmt.Sprintf(
				"aft: the aft binary was not found (looked in %s); aft_outline, aft_zoom, aft_callgraph and aft_search are not registered. Install it with `npm install -g %s` or `cargo install agent-file-tools`.",
				strings.Join(a.Tried, ", "), aft.PlatformPackage())})
		default:
			if ok, why := a.Config.SearchReady(); !ok && why != "" {
				out = append(out, Notice{Level: "warning", Code: "aft-search", Text: "aft: aft_search is not registered: " + why})
			}
		}
	}
	return out
}

// declared reports whether the registry has a declaration from source that no
// personalExtensions rule disables.
func declared(reg *engine.Result, source string) bool {
	if reg == nil {
		return false
	}
	for _, r := range reg.Tools {
		if r.Source == source && r.State != engine.Disabled {
			return true
		}
	}
	return false
}

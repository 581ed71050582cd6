// Package toolsets embeds the shipped tool catalogue: one CUE declaration
// file per extension (pi's built-ins, the claude-code and opencode file
// toolsets, LSP, aft, GitHub, web, talk, spawn-agent, vision, codemode).
// Each file is a single #Extension value of schema/declarations.cue; the
// engine reads them in Order.
package toolsets

import "embed"

// FS holds every shipped toolset file (*.cue) at its base name.
//
//go:embed *.cue
var FS embed.FS

// Order is the load order of the shipped toolsets: pi's built-ins first, then
// the extensions in the seed's registration order (file toolsets, aft,
// github, vision, talk, spawn-agent, web, codemode, and LSP last, because
// the seed registers LSP tools from the LSP manager's own session start).
var Order = []string{
	"pi.cue",
	"claude-code.cue",
	"opencode.cue",
	"aft.cue",
	"github.cue",
	"vision.cue",
	"talk.cue",
	"spawn-agent.cue",
	"web.cue",
	"codemode.cue",
	"lsp.cue",
}

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

// Sources: each file of Order as a []byte embed, which is the binary's data itself: Source
// hands it out without a copy (FS.ReadFile copies; the catalogue's sources were 79 KB copied
// by every start, docs/decisions/25-speed.md D25.31). TestSourceIsFS holds them equal to FS.

//go:embed aft.cue
var srcAft []byte

//go:embed claude-code.cue
var srcClaudeCode []byte

//go:embed codemode.cue
var srcCodemode []byte

//go:embed github.cue
var srcGithub []byte

//go:embed lsp.cue
var srcLsp []byte

//go:embed opencode.cue
var srcOpencode []byte

//go:embed pi.cue
var srcPi []byte

//go:embed spawn-agent.cue
var srcSpawnAgent []byte

//go:embed talk.cue
var srcTalk []byte

//go:embed vision.cue
var srcVision []byte

//go:embed web.cue
var srcWeb []byte

// Source returns the file's bytes (shared: do not modify them), or nil when it has none.
func Source(name string) []byte {
	switch name {
	case "aft.cue":
		return srcAft
	case "claude-code.cue":
		return srcClaudeCode
	case "codemode.cue":
		return srcCodemode
	case "github.cue":
		return srcGithub
	case "lsp.cue":
		return srcLsp
	case "opencode.cue":
		return srcOpencode
	case "pi.cue":
		return srcPi
	case "spawn-agent.cue":
		return srcSpawnAgent
	case "talk.cue":
		return srcTalk
	case "vision.cue":
		return srcVision
	case "web.cue":
		return srcWeb
	}
	return nil
}

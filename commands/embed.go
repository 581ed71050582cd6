// Package commands embeds the shipped slash-command catalogue: pi's built-in
// interactive commands and the commands of the shipped extensions (bwrap,
// lsp, talk, mcp). Each file is a single #Extension value of
// schema/declarations.cue holding only commands; the engine reads them in
// Order.
package commands

import "embed"

// FS holds every shipped command file (*.cue) at its base name.
//
//go:embed *.cue
var FS embed.FS

// Order is the load order of the shipped command files: pi's built-ins
// first, then the extensions in the seed's registration order.
var Order = []string{
	"pi.cue",
	"bwrap.cue",
	"talk.cue",
	"lsp.cue",
	"mcp.cue",
}

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

// Sources: each file of Order as a []byte embed, which is the binary's data itself: Source
// hands it out without a copy (FS.ReadFile copies; the catalogue's sources were 79 KB copied
// by every start, docs/decisions/25-speed.md D25.31). TestSourceIsFS holds them equal to FS.

//go:embed bwrap.cue
var srcBwrap []byte

//go:embed lsp.cue
var srcLsp []byte

//go:embed mcp.cue
var srcMcp []byte

//go:embed pi.cue
var srcPi []byte

//go:embed talk.cue
var srcTalk []byte

// Source returns the file's bytes (shared: do not modify them), or nil when it has none.
func Source(name string) []byte {
	switch name {
	case "bwrap.cue":
		return srcBwrap
	case "lsp.cue":
		return srcLsp
	case "mcp.cue":
		return srcMcp
	case "pi.cue":
		return srcPi
	case "talk.cue":
		return srcTalk
	}
	return nil
}

// Package extractwire is the extract engine's protocol, shared by its client (internal/web, in
// pigo) and its server (internal/web/extract, in the pigo-engines helper). It links nothing
// heavy: pigo imports it.
//
//	pigo-engines extract URL
//
// reads the page (UTF-8 HTML, at most MaxPage bytes) on stdin, writes one Answer as JSON on
// stdout and exits 0; URL is the page's final address (relative links resolve against it and
// it is the title of a page without one). A usage error, a limit or a crash is a non-zero
// exit with a message on stderr.
package extractwire

import (
	"strings"
	"time"
)

// Engine is the engine's name in the helper's table.
const Engine = "extract"

// MaxPage is the largest page the server reads: web_fetch's limit for a page read as text
// (the seed's 5 MiB).
const MaxPage = 5 * 1024 * 1024

// MaxAnswer bounds the answer the client reads. Markdown is rarely longer than its page
// (readability keeps the main content; real pages measured: 0.3–1.1×); resolving relative
// links against a long URL and escaping can grow it (5 MiB of `<a href=x>y</a>` gives 10.8 MB),
// JSON's escapes too. A longer answer is an error, not a truncated page.
const MaxAnswer = 4 * MaxPage

// Answer is the server's reply: the page's title and its main content as Markdown, or the
// extraction's error text (the seed's, shown to the model as is).
type Answer struct {
	Title    string `json:"title,omitempty"`
	Markdown string `json:"markdown,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Limits of the server's process (engines.SetLimits): about eight times what the largest
// real pages measured need (4.4–4.9 MB: 0.9–1.3 s of CPU, 135 MB beyond the start;
// docs/decisions/25-speed.md, D25.21).
const (
	CPU = 10 * time.Second
	Mem = 1 << 30 // bytes of address space beyond the helper's at its start
)

// IsSpace is JavaScript's WhiteSpace and LineTerminator (what trim and \s match).
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// Trim is JavaScript's String.prototype.trim, as the seed trims the page's title and text.
func Trim(s string) string { return strings.TrimFunc(s, IsSpace) }

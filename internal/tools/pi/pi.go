// Package pi implements pi's built-in tools, one file per tool: read, bash, edit, write,
// ls, grep, find. They are checked against the real pi 0.84.3 by package tools
// (pidiff_test.go: the same calls on the same files; content, error flag, details and the
// files afterwards must match) and against a golden file of every text. Where pigo departs
// from pi on purpose:
//   - write and edit go through the one write path and its guard (outside the workspace
//     and /tmp, or a protected path: the dialog, or the headless refusal), as the seed's
//     file tools do; pi has no guard;
//   - bash runs in the session's sandbox (bwrap, as the seed's bwrap extension does for
//     every command), with pi's shellPath, shellCommandPrefix and PI_* variables; its full
//     output file is pi's (<os temp dir>/pi-bash-<16 hex>.log), capped at 64 MiB; headless,
//     a call without a timeout gets 120 s;
//   - grep asks ripgrep for --sort path and find sorts fd's results: pi's outputs come in
//     the walk's nondeterministic order, pigo's are one of those orders, always the same;
//   - find uses ripgrep's file list with fd's glob rules when fd is not installed (pi
//     would try to download fd);
//   - edit matches on the file's raw bytes, so a file that is not UTF-8 keeps the bytes the
//     edit does not touch (pi rewrites them as U+FFFD);
//   - read scales large images by area averaging where pi uses Lanczos3 (same sizes, same
//     note, slightly different pixels); bmp and oversized webp are omitted with pi's notes;
//   - ls approximates ICU's root collation (pi's localeCompare) for file names.
package pi

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	// pi's built-in tools (pi-coding-agent 0.84.3 dist/core/tools): the same parameters, limits,
	// notes and error texts. They keep no read-before-write state and have no write guard, as
	// in pi.
	r.Register("pi", "read", toolrun.Impl{Execute: piRead})
	r.Register("pi", "bash", toolrun.Impl{Execute: piBash})
	// pi's own edit and write have no write guard; pigo puts them behind the same guard as the
	// seed's file tools (outside the workspace and /tmp: the dialog, or the headless refusal),
	// or the model could write anywhere with pi's write while bash is sandboxed.
	r.Register("pi", "edit", toolrun.Impl{Prepare: prepareEdit, Execute: piEdit})
	r.Register("pi", "write", toolrun.Impl{Execute: piWrite})
	r.Register("pi", "ls", toolrun.Impl{Execute: piLs})
	r.Register("pi", "grep", toolrun.Impl{Execute: piGrep})
	r.Register("pi", "find", toolrun.Impl{Execute: piFind})
}

// float is an optional JSON number.
type float = *float64

func num(f float64) string { return toolrun.FormatNumber(f) }

func limitOr(f float, def float64) float64 {
	if f == nil {
		return def
	}
	return *f
}

func orDot(p *string) string {
	if p == nil || *p == "" {
		return "."
	}
	return *p
}

func withNotices(out string, notices []string, details map[string]any) toolrun.Result {
	if len(notices) > 0 {
		out += "\n\n[" + strings.Join(notices, ". ") + "]"
	}
	if len(details) == 0 {
		return toolrun.TextResult(out, nil)
	}
	return toolrun.TextResult(out, orderedDetails(details))
}

// orderedDetails marshals details in pi's key order (the order the tool adds them).
func orderedDetails(d map[string]any) json.RawMessage {
	order := []string{"entryLimitReached", "matchLimitReached", "resultLimitReached", "truncation", "linesTruncated"}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, k := range order {
		v, ok := d[k]
		if !ok {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

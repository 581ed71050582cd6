// Package tools holds the Go implementations of the declared tools, one file per toolset:
// pi.go (pi's built-ins), claudecode.go, opencode.go, lsptools.go, ext.go (declarative
// extension tools with an `exec` argv template), and the shared pieces they reuse: bash.go
// (the sandboxed shell runner with spill file, tail ring, progress and truncation) and
// truncate.go (pi's head/tail truncation and its notes).
//
// Each file registers its implementations by toolset and name from an init function; All
// returns them for toolrun.New. The declarations (parameters, descriptions) stay in
// toolsets/*.cue: an implementation only decodes its validated arguments and does the work.
//
// pi's built-ins are checked against the real pi 0.84.3 (pidiff_test.go: the same calls on
// the same files, content, error flag, details and the files afterwards must match) and
// against a golden file of every text. Where pigo departs from pi on purpose:
//   - write and edit go through the write guard (outside the workspace and /tmp: the
//     dialog, or the headless refusal), as the seed's file tools do; pi has no guard;
//   - bash runs in the session's sandbox (bwrap, as the seed's bwrap extension does for
//     every command), with pi's shellPath, shellCommandPrefix and PI_* variables; its full
//     output goes to <agentDir>/tmp/<uuid>.txt instead of pi's /tmp/pi-bash-*.log;
//   - grep asks ripgrep for --sort path and find sorts fd's results: pi's outputs come in
//     the walk's nondeterministic order, pigo's are one of those orders, always the same;
//   - find uses ripgrep's file list with fd's glob rules when fd is not installed (pi
//     would try to download fd);
//   - edit matches on the file's raw bytes, so a file that is not UTF-8 keeps the bytes the
//     edit does not touch (pi rewrites them as U+FFFD);
//   - read scales large images by area averaging where pi uses Lanczos3 (same sizes, same
//     note, slightly different pixels); bmp and oversized webp are omitted with pi's notes;
//   - ls approximates ICU's root collation (pi's localeCompare) for file names.
package tools

import "github.com/pigo-agent/pigo/internal/toolrun"

var impls toolrun.Impls

// Register binds impl to the tool name of toolset ("pi", "claude-code", "opencode", "lsp",
// ...). Call it from an init function of the toolset's file.
func Register(toolset, name string, impl toolrun.Impl) { impls.Register(toolset, name, impl) }

// All returns every registered implementation, including the exec runner for declarative
// extension tools.
func All() *toolrun.Impls { return &impls }

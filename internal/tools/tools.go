// Package tools holds the Go implementations of the declared tools, one file per toolset:
// pi.go (pi's built-ins), claudecode.go, opencode.go, lsptools.go, ext.go (declarative
// extension tools with an `exec` argv template), and the shared pieces they reuse: bash.go
// (the sandboxed shell runner with spill file, tail ring, progress and truncation) and
// truncate.go (pi's head/tail truncation and its notes).
//
// Each file registers its implementations by toolset and name from an init function; All
// returns them for toolrun.New. The declarations (parameters, descriptions) stay in
// toolsets/*.cue: an implementation only decodes its validated arguments and does the work.
package tools

import "github.com/pigo-agent/pigo/internal/toolrun"

var impls toolrun.Impls

// Register binds impl to the tool name of toolset ("pi", "claude-code", "opencode", "lsp",
// ...). Call it from an init function of the toolset's file.
func Register(toolset, name string, impl toolrun.Impl) { impls.Register(toolset, name, impl) }

// All returns every registered implementation, including the exec runner for declarative
// extension tools.
func All() *toolrun.Impls { return &impls }

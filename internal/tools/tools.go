// Package tools composes the Go implementations of the declared tools for toolrun.New. Each
// toolset is its own package, one file per tool where a toolset has several:
//
//   - pi: pi's built-ins (read, bash, edit, write, ls, grep, find);
//   - claudecode and opencode: the seed's file, search, shell, todo and question tools;
//   - lsp: the language-server tools; web: web_search and web_fetch; vision: describe_image;
//   - github, aft, spawn, talk: the tools over packages of the same name under internal/;
//   - codemode: the codemode tool and its fs primitives; ext: declarative extension tools
//     (an `exec` argv template run in the sandbox);
//   - toolkit: what they share (path resolution and Node-style errors, pi's truncation,
//     the sandboxed shell runner, the edit matchers, diffs and patches, images, LSP
//     diagnostics, the seed's common helpers).
//
// [All] binds them in one explicit list: no toolset registers itself from an init
// function. The declarations (parameters, descriptions) stay in toolsets/*.cue: an
// implementation only decodes its validated arguments and does the work; a test
// (declarations_test.go) proves every shipped declaration has an implementation.
//
// This package's tests drive every implementation through the composed list: pi's
// built-ins against the real pi 0.84.3 (pidiff_test.go) and a golden file of every text,
// the seed's file tools against their golden files, issue 20's hostile targets.
package tools

import (
	"github.com/pigo-agent/pigo/internal/lazy"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/aft"
	"github.com/pigo-agent/pigo/internal/tools/claudecode"
	"github.com/pigo-agent/pigo/internal/tools/codemode"
	"github.com/pigo-agent/pigo/internal/tools/ext"
	"github.com/pigo-agent/pigo/internal/tools/github"
	"github.com/pigo-agent/pigo/internal/tools/lsp"
	"github.com/pigo-agent/pigo/internal/tools/opencode"
	"github.com/pigo-agent/pigo/internal/tools/pi"
	"github.com/pigo-agent/pigo/internal/tools/spawn"
	"github.com/pigo-agent/pigo/internal/tools/talk"
	"github.com/pigo-agent/pigo/internal/tools/vision"
	"github.com/pigo-agent/pigo/internal/tools/web"
)

// toolsets is the one list: each entry adds one toolset's implementations.
var toolsets = []func(*toolrun.Impls){
	pi.Register,
	claudecode.Register,
	opencode.Register,
	lsp.Register,
	web.Register,
	vision.Register,
	github.Register,
	aft.Register,
	spawn.Register,
	talk.Register,
	codemode.Register,
	ext.Register, // the exec runner for declarative extension tools
}

var all = lazy.Value[*toolrun.Impls]{New: func() *toolrun.Impls {
	r := &toolrun.Impls{}
	for _, add := range toolsets {
		add(r)
	}
	return r
}}

// All returns every implementation, including the exec runner for declarative extension
// tools. The list is built once, on first use.
func All() *toolrun.Impls { return all.Get() }

// Package deps pins the chosen dependencies until the packages that use them land.
package deps

import (
	_ "cuelang.org/go/cue"
	_ "github.com/charmbracelet/bubbletea"
	_ "github.com/expr-lang/expr"
	_ "github.com/gobwas/glob"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/olekukonko/tablewriter"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/tailscale/hujson"
	_ "gopkg.in/yaml.v3"
	_ "mvdan.cc/sh/v3/syntax"
)

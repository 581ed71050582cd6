// Package schema holds pigo's one CUE schema: a closed definition per kind of
// file (#Settings, #Sandbox, #LSP, #Models, …) with doc comments, defaults,
// `@merge(rule)` overlay attributes and `@pigo(owned)` section markers.
//
// This file only embeds the *.cue sources so the package stays free of CUE
// imports; compiling and interpreting the schema is the loader's job.
package schema

import (
	"embed"
	"io/fs"
	"sort"
)

// FS holds every *.cue file of the schema, at the root of the file system.
//
//go:embed *.cue
var FS embed.FS

// Files returns the names of the embedded schema files in sorted order, so
// callers that concatenate or compile them get a deterministic result.
func Files() []string {
	// The embedded root always exists, so ReadDir cannot fail here.
	entries, _ := fs.ReadDir(FS, ".")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

package lsp

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// formatReferences renders references grouped by file: at most 10 per
// file and 30 files, the rest counted.
func formatReferences(ls []lsp.Location, sc snippetCache) string {
	if len(ls) == 0 {
		return "No references found for this symbol."
	}
	var paths []string
	by := map[string][]lsp.Location{}
	for _, l := range ls {
		if _, ok := by[l.Path]; !ok {
			paths = append(paths, l.Path)
		}
		by[l.Path] = append(by[l.Path], l)
	}
	out := []string{fmt.Sprintf("Found %d reference(s) in %d file(s):", len(ls), len(paths))}
	for _, p := range paths[:min(len(paths), refsFiles)] {
		es := by[p]
		out = append(out, fmt.Sprintf("### %s (%d)", p, len(es)))
		for _, e := range es[:min(len(es), refsPerFile)] {
			l := "- " + strconv.Itoa(e.Line+1) + ":" + strconv.Itoa(e.Character+1)
			if sn := sc.line(p, e.Line); sn != "" {
				l += ": " + sn
			}
			out = append(out, l)
		}
		if len(es) > refsPerFile {
			out = append(out, fmt.Sprintf("(+%d more in this file)", len(es)-refsPerFile))
		}
	}
	if len(paths) > refsFiles {
		n := 0
		for _, p := range paths[refsFiles:] {
			n += len(by[p])
		}
		out = append(out, fmt.Sprintf("(+%d reference(s) in %d more file(s) not shown)", n, len(paths)-refsFiles))
	}
	return strings.Join(out, "\n")
}

func lspFindReference(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	sc := snippetCache{}
	p, _, err := probe(ctx, inv, func(ctx context.Context, srv *lsp.Running, path string, c candidate) (probed, error) {
		ls, err := srv.References(ctx, path, c.line, serverCol(srv, c))
		if err != nil {
			return probed{}, err
		}
		text := formatReferences(ls, sc)
		return probed{text: text, payload: LocationsValue{text, srv.ID, payloadOf(ls)}}, nil
	})
	if err != nil {
		return toolrun.Result{}, err
	}
	return structuredResult(p.text, p.payload), nil
}

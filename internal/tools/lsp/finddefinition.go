package lsp

import (
	"context"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// FormatDefinitions renders definition sites with their source lines.
func formatDefinitions(ls []lsp.Location, sc snippetCache) string {
	if len(ls) == 0 {
		return "No definition found for this symbol."
	}
	lines := []string{"Found " + strconv.Itoa(len(ls)) + " definition(s):"}
	for _, l := range ls {
		e := "- " + l.Path + ":" + strconv.Itoa(l.Line+1) + ":" + strconv.Itoa(l.Character+1)
		if sn := sc.line(l.Path, l.Line); sn != "" {
			e += "\n  " + sn
		}
		lines = append(lines, e)
	}
	return strings.Join(lines, "\n")
}

func lspFindDefinition(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	sc := snippetCache{}
	p, _, err := probe(ctx, inv, func(ctx context.Context, srv *lsp.Running, path string, c candidate) (probed, error) {
		ls, err := srv.Definition(ctx, path, c.line, serverCol(srv, c))
		if err != nil {
			return probed{}, err
		}
		text := formatDefinitions(ls, sc)
		return probed{text: text, payload: LocationsValue{text, srv.ID, payloadOf(ls)}}, nil
	})
	if err != nil {
		return toolrun.Result{}, err
	}
	return structuredResult(p.text, p.payload), nil
}

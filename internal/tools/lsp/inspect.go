package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// FormatHover passes hover contents through: a string as is, a
// MarkedString {language, value} as a fenced block, MarkupContent's value,
// an array of them joined by blank lines.
func FormatHover(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		parts := make([]string, len(arr))
		for i, m := range arr {
			parts[i] = formatMarked(m)
		}
		return strings.Join(parts, "\n\n")
	}
	return formatMarked(raw)
}

func formatMarked(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var m struct {
		Language *string `json:"language"`
		Value    string  `json:"value"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	if m.Language != nil {
		return "```" + *m.Language + "\n" + m.Value + "\n```"
	}
	return m.Value
}

func lspInspect(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a symbolArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	p, _, err := probe(ctx, inv, func(ctx context.Context, srv *lsp.Running, path string, c candidate) (probed, error) {
		h, err := srv.Hover(ctx, path, c.line, serverCol(srv, c))
		if err != nil {
			return probed{}, err
		}
		text := fmt.Sprintf("No hover information for '%s' at line %d of %s.", a.Symbol, a.Line, path)
		if h != nil {
			text = FormatHover(h)
		}
		return probed{text: text, payload: struct {
			Text     string `json:"text"`
			ServerID string `json:"serverID"`
		}{text, srv.ID}}, nil
	})
	if err != nil {
		return toolrun.Result{}, err
	}
	return structuredResult(p.text, p.payload), nil
}

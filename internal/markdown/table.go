package markdown

import (
	"strings"

	"github.com/rivo/uniseg"
	"github.com/yuin/goldmark/ast"
)

// table draws a GFM table with box characters, as pi does: natural column widths when they
// fit; otherwise columns shrink towards their longest word (at most 30 columns) and cells
// wrap; rows are separated by a rule; the header is bold; cells are left-aligned whatever the
// delimiter row asks (pi ignores alignment). Too narrow for one column per
// cell, the table's source is shown instead.
func (r *renderer) table(t *Table, w int) []line {
	var rows [][][]Span
	var header []bool
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		tr := row.(*TableRow)
		var cells [][]Span
		for c := tr.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.inlines(c, 0))
		}
		rows = append(rows, cells)
		header = append(header, tr.Header)
	}
	n := len(t.Align)
	if n == 0 || len(rows) == 0 {
		return nil
	}
	overhead := 3*n + 1
	avail := w - overhead
	if avail < n || avail < n*2 && hasWide(rows) {
		var b strings.Builder
		for row := t.FirstChild(); row != nil; row = row.NextSibling() {
			for c := row.FirstChild(); c != nil; c = c.NextSibling() {
				b.WriteString("| ")
				for _, s := range r.inlines(c, 0) {
					b.WriteString(s.Text)
				}
				b.WriteString(" ")
			}
			b.WriteString("|\n")
		}
		return wrap([]Span{{Text: strings.TrimSuffix(b.String(), "\n")}}, w)
	}
	natural := make([]int, n)
	minWord := make([]int, n)
	// minGraph is each column's widest grapheme: a column narrower than a CJK character or an
	// emoji could not hold it.
	minGraph := make([]int, n)
	for _, cells := range rows {
		for i := 0; i < n && i < len(cells); i++ {
			txt := plain(cells[i])
			natural[i] = max(natural[i], width(txt))
			minWord[i] = max(minWord[i], max(1, min(longestWord(txt), 30)))
			minGraph[i] = max(minGraph[i], widestGrapheme(txt))
		}
	}
	for i := range minWord {
		minWord[i] = max(minWord[i], 1)
	}
	minCols := minWord
	minTotal := sum(minCols)
	if minTotal > avail {
		minCols = make([]int, n)
		for i := range minCols {
			minCols[i] = max(1, minGraph[i])
		}
		remaining := avail - sum(minCols)
		if remaining > 0 {
			weight := 0
			for _, m := range minWord {
				weight += max(0, m-1)
			}
			alloc := 0
			for i, m := range minWord {
				g := 0
				if weight > 0 {
					g = max(0, m-1) * remaining / weight
				}
				minCols[i] += g
				alloc += g
			}
			for i := 0; alloc < remaining && i < n; i++ {
				minCols[i]++
				alloc++
			}
		}
		minTotal = sum(minCols)
	}
	cols := make([]int, n)
	if sum(natural)+overhead <= w {
		for i := range cols {
			cols[i] = max(natural[i], minCols[i])
		}
	} else {
		grow := 0
		for i := range natural {
			grow += max(0, natural[i]-minCols[i])
		}
		extra := max(0, avail-minTotal)
		for i := range cols {
			g := 0
			if grow > 0 {
				g = max(0, natural[i]-minCols[i]) * extra / grow
			}
			cols[i] = minCols[i] + g
		}
		rest := avail - sum(cols)
		for rest > 0 {
			grew := false
			for i := 0; i < n && rest > 0; i++ {
				if cols[i] < natural[i] {
					cols[i]++
					rest--
					grew = true
				}
			}
			if !grew {
				break
			}
		}
	}
	border := func(l, m, r string) line {
		parts := make([]string, n)
		for i, c := range cols {
			parts[i] = strings.Repeat("─", c)
		}
		return line{{Text: l + "─" + strings.Join(parts, "─"+m+"─") + "─" + r, Style: TableBorder}}
	}
	out := []line{border("┌", "┬", "┐")}
	for ri, cells := range rows {
		wrapped := make([][]line, n)
		height := 1
		for i := 0; i < n; i++ {
			var spans []Span
			if i < len(cells) {
				spans = cells[i]
			}
			if header[ri] {
				spans = withStyle(spans, Bold)
			}
			wrapped[i] = wrap(spans, cols[i])
			height = max(height, len(wrapped[i]))
		}
		for li := 0; li < height; li++ {
			l := line{{Text: "│ ", Style: TableBorder}}
			for i := 0; i < n; i++ {
				var cell line
				if li < len(wrapped[i]) {
					cell = wrapped[i][li]
				}
				// pi pads every cell on the right, whatever the column's alignment.
				l = append(l, cell...)
				if pad := cols[i] - lineWidth(cell); pad > 0 {
					l = append(l, Span{Text: strings.Repeat(" ", pad)})
				}
				sep := " │ "
				if i == n-1 {
					sep = " │"
				}
				l = append(l, Span{Text: sep, Style: TableBorder})
			}
			out = append(out, l)
		}
		if ri < len(rows)-1 {
			out = append(out, border("├", "┼", "┤"))
		}
	}
	return append(out, border("└", "┴", "┘"))
}

func widestGrapheme(s string) int {
	m := 1
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		m = max(m, width(g.Str()))
	}
	return m
}

func hasWide(rows [][][]Span) bool {
	for _, cells := range rows {
		for _, c := range cells {
			if widestGrapheme(plain(c)) > 1 {
				return true
			}
		}
	}
	return false
}

func withStyle(spans []Span, st Style) []Span {
	out := make([]Span, len(spans))
	for i, s := range spans {
		s.Style |= st
		out[i] = s
	}
	return out
}

func plain(spans []Span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(s.Text)
	}
	return b.String()
}

func longestWord(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		n = max(n, width(f))
	}
	return n
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

var _ ast.Node = (*Table)(nil)

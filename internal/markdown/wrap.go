package markdown

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

func width(s string) int { return ansi.StringWidth(s) }

// piece is a grapheme cluster with the span it came from.
type piece struct {
	g    string
	w    int
	span int
}

// wrap lays spans out in lines of at most w columns: words move to the next line whole, a
// word wider than a line is broken between graphemes, spaces at a break are dropped (leading
// spaces of a line, such as code indentation, are kept), and a "\n" span breaks the line.
func wrap(spans []Span, w int) []line {
	w = max(w, 1)
	var out []line
	var cur []piece
	curW := 0
	var pending []piece
	pendW := 0
	flush := func() {
		out = append(out, join(spans, cur))
		cur, curW = nil, 0
	}
	addWord := func(word []piece, ww int) {
		if curW+pendW+ww <= w {
			cur = append(cur, pending...)
			cur = append(cur, word...)
			curW += pendW + ww
			pending, pendW = nil, 0
			return
		}
		if curW > 0 {
			flush()
		} else if pendW > 0 && pendW+ww <= w {
			// a line's leading spaces stay with its first word
			cur = append(cur, pending...)
			curW = pendW
		}
		pending, pendW = nil, 0
		if curW+ww <= w {
			cur = append(cur, word...)
			curW += ww
			return
		}
		for _, p := range word {
			if curW+p.w > w && curW > 0 {
				flush()
			}
			cur = append(cur, p)
			curW += p.w
		}
	}
	var word []piece
	wordW := 0
	endWord := func() {
		if len(word) > 0 {
			addWord(word, wordW)
			word, wordW = nil, 0
		}
	}
	for i, s := range spans {
		if s.Text == "\n" {
			endWord()
			if curW+pendW <= w {
				cur = append(cur, pending...)
			}
			pending, pendW = nil, 0
			flush()
			continue
		}
		g := uniseg.NewGraphemes(s.Text)
		for g.Next() {
			c := g.Str()
			if c == "\n" || c == "\r\n" {
				endWord()
				pending, pendW = nil, 0
				flush()
				continue
			}
			p := piece{c, width(c), i}
			if isSpace(c) {
				endWord()
				pending = append(pending, p)
				pendW += p.w
				continue
			}
			word = append(word, p)
			wordW += p.w
		}
	}
	endWord()
	if curW+pendW <= w {
		cur = append(cur, pending...)
	}
	if len(cur) > 0 || len(out) == 0 {
		flush()
	}
	return out
}

func isSpace(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return s != ""
}

// join turns pieces back into spans, merging neighbours of one span.
func join(spans []Span, ps []piece) line {
	var l line
	var b strings.Builder
	last := -1
	same := func(a, b int) bool {
		return a == b || spans[a].Style == spans[b].Style && spans[a].Syn == spans[b].Syn && spans[a].URL == spans[b].URL
	}
	for _, p := range ps {
		if last >= 0 && !same(p.span, last) {
			s := spans[last]
			s.Text = b.String()
			l = append(l, s)
			b.Reset()
		}
		last = p.span
		b.WriteString(p.g)
	}
	if last >= 0 {
		s := spans[last]
		s.Text = b.String()
		l = append(l, s)
	}
	return l
}

// lineWidth is a laid-out line's width.
func lineWidth(l line) int {
	n := 0
	for _, s := range l {
		n += width(s.Text)
	}
	return n
}

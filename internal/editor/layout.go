package editor

import (
	"strconv"
	"strings"
)

// chunk is one wrapped piece of a logical line: bytes [start, end) of it.
type chunk struct{ start, end int }

// wrapLine breaks a line into chunks of at most w columns at word boundaries (after a run of
// spaces, or between CJK characters), breaking a word only when it alone is too wide. A
// marker wider than w is split visually but stays one unit for editing.
func (e *Editor) wrapLine(line string, w int) []chunk {
	if line == "" || w <= 0 || width(line) <= w {
		return []chunk{{0, len(line)}}
	}
	return wrapSegs(line, e.graphemes(line), w, len(line))
}

func wrapSegs(line string, segs []seg, w, end int) []chunk {
	var out []chunk
	cw, start := 0, 0
	if len(segs) > 0 {
		start = segs[0].at
	}
	opp, oppW := -1, 0
	for i, s := range segs {
		gw := width(s.text)
		ws := !isMarker(s.text) && isSpace(s.text)
		if cw+gw > w {
			if opp >= 0 && cw-oppW+gw <= w {
				out = append(out, chunk{start, opp})
				start = opp
				cw -= oppW
			} else if start < s.at {
				out = append(out, chunk{start, s.at})
				start = s.at
				cw = 0
			}
			opp = -1
		}
		if gw > w {
			var sub []seg
			for _, g := range (&Editor{}).graphemes(s.text) {
				sub = append(sub, seg{text: g.text, at: s.at + g.at})
			}
			parts := wrapSegs(line, sub, w, s.at+len(s.text))
			out = append(out, parts[:len(parts)-1]...)
			start = parts[len(parts)-1].start
			cw = width(line[start : s.at+len(s.text)])
			opp = -1
			continue
		}
		cw += gw
		if i+1 < len(segs) {
			next := segs[i+1]
			nextWS := !isMarker(next.text) && isSpace(next.text)
			switch {
			case ws && !nextWS:
				opp, oppW = next.at, cw
			case !ws && !nextWS && ((!isMarker(s.text) && isCJK(s.text)) || (!isMarker(next.text) && isCJK(next.text))):
				opp, oppW = next.at, cw
			}
		}
	}
	return append(out, chunk{start, end})
}

// vline is one visual (wrapped) line: logical line, start byte and length.
type vline struct{ line, start, length int }

func (e *Editor) visualLines() []vline {
	w := max(1, e.layoutWidth)
	var out []vline
	for i, l := range e.st.Lines {
		for _, c := range e.wrapLine(l, w) {
			out = append(out, vline{i, c.start, c.end - c.start})
		}
	}
	return out
}

// findVL is the visual line holding (line, col); the end of a wrapped piece belongs to the
// next piece, except on the last piece of a line.
func (e *Editor) findVL(vls []vline, line, col int) int {
	for i, v := range vls {
		if v.line != line {
			continue
		}
		off := col - v.start
		lastOfLine := i == len(vls)-1 || vls[i+1].line != v.line
		if off >= 0 && (off < v.length || (lastOfLine && off == v.length)) {
			return i
		}
	}
	return len(vls) - 1
}

// moveVertical moves the cursor one visual line up or down, keeping pi's sticky column.
func (e *Editor) moveVertical(delta int) {
	e.last = ""
	vls := e.visualLines()
	cur := e.findVL(vls, e.st.Line, e.st.Col)
	t := cur + delta
	if t >= 0 && t < len(vls) {
		e.toVisualLine(vls, cur, t)
	}
}

func (e *Editor) page(dir int) {
	e.last = ""
	size := max(5, e.Rows*3/10)
	vls := e.visualLines()
	cur := e.findVL(vls, e.st.Line, e.st.Col)
	t := min(max(cur+dir*size, 0), len(vls)-1)
	e.toVisualLine(vls, cur, t)
}

func (e *Editor) toVisualLine(vls []vline, cur, target int) {
	cv, tv := vls[cur], vls[target]
	col := e.st.Col - cv.start
	if e.snapped >= 0 {
		i := e.findVL(vls, cv.line, e.snapped)
		col = e.snapped - vls[i].start
	}
	lastOf := func(i int) bool { return i == len(vls)-1 || vls[i+1].line != vls[i].line }
	srcMax := cv.length
	if !lastOf(cur) {
		srcMax = max(0, cv.length-1)
	}
	tgtMax := tv.length
	if !lastOf(target) {
		tgtMax = max(0, tv.length-1)
	}
	to := e.verticalColumn(col, srcMax, tgtMax)
	e.st.Line = tv.line
	line := e.st.Lines[tv.line]
	e.st.Col = min(tv.start+to, len(line))
	// Never land inside a grapheme or a marker: snap to its start.
	for _, g := range e.graphemes(line) {
		if g.at > e.st.Col {
			break
		}
		if len(g.text) <= 1 || e.st.Col >= g.at+len(g.text) {
			continue
		}
		if isMarker(g.text) && g.at < tv.start && target > cur {
			end := g.at + len(g.text)
			next := target + 1
			for next < len(vls) && vls[next].line == tv.line && vls[next].start < end {
				next++
			}
			if next < len(vls) {
				e.toVisualLine(vls, cur, next)
				return
			}
		}
		if isMarker(g.text) {
			e.snapped = e.st.Col
		}
		e.st.Col = g.at
		return
	}
	e.snapped = -1
}

// verticalColumn is pi's sticky-column rule for a vertical move.
func (e *Editor) verticalColumn(cur, srcMax, tgtMax int) int {
	inMiddle := cur < srcMax
	tooShort := tgtMax < cur
	if e.preferred < 0 || inMiddle {
		if tooShort {
			e.preferred = cur
			return tgtMax
		}
		e.preferred = -1
		return cur
	}
	if tooShort || tgtMax < e.preferred {
		return tgtMax
	}
	p := e.preferred
	e.preferred = -1
	return p
}

// Styles colour the editor's border and cursor (identity functions draw them plain).
type Styles struct {
	Border func(string) string
	Cursor func(string) string
}

// Render draws the editor at width w: a top border (with "↑ N more" when scrolled, or the
// given label such as a working indicator), the visible lines with the cursor, and a bottom
// border ("↓ N more"). At most max(5, 30% of Rows) lines show; the cursor stays visible.
func (e *Editor) Render(w int, st Styles, label string) []string {
	if st.Border == nil {
		st.Border = func(s string) string { return s }
	}
	if st.Cursor == nil {
		st.Cursor = func(s string) string { return "\x1b[7m" + s + "\x1b[27m" }
	}
	w = max(w, 2)
	e.layoutWidth = w - 1 // one column stays free for the cursor at a line's end
	type lay struct {
		text   string
		cursor int // byte offset of the cursor in text; -1 none
	}
	var lays []lay
	for i, l := range e.st.Lines {
		cs := e.wrapLine(l, e.layoutWidth)
		for j, c := range cs {
			cur := -1
			if i == e.st.Line {
				last := j == len(cs)-1
				if (last && e.st.Col >= c.start) || (!last && e.st.Col >= c.start && e.st.Col < c.end) {
					cur = min(e.st.Col-c.start, c.end-c.start)
				}
			}
			lays = append(lays, lay{l[c.start:c.end], cur})
		}
	}
	maxVis := max(5, e.Rows*3/10)
	ci := 0
	for i, l := range lays {
		if l.cursor >= 0 {
			ci = i
		}
	}
	if ci < e.scroll {
		e.scroll = ci
	} else if ci >= e.scroll+maxVis {
		e.scroll = ci - maxVis + 1
	}
	e.scroll = min(max(e.scroll, 0), max(0, len(lays)-maxVis))
	vis := lays[e.scroll:min(len(lays), e.scroll+maxVis)]
	out := []string{e.border(w, "↑", e.scroll, label, st)}
	for _, l := range vis {
		text := l.text
		tw := width(text)
		if l.cursor >= 0 {
			before, after := text[:l.cursor], text[l.cursor:]
			if after != "" {
				g := e.graphemes(after)[0].text
				text = before + st.Cursor(g) + after[len(g):]
			} else {
				text = before + st.Cursor(" ")
				tw++
			}
		}
		out = append(out, text+strings.Repeat(" ", max(0, w-tw)))
	}
	below := len(lays) - (e.scroll + len(vis))
	return append(out, e.border(w, "↓", below, "", st))
}

func (e *Editor) border(w int, arrow string, hidden int, label string, st Styles) string {
	if hidden <= 0 {
		if label != "" && width(label)+5 <= w {
			return st.Border("── ") + label + st.Border(" "+strings.Repeat("─", w-width(label)-4))
		}
		return st.Border(strings.Repeat("─", w))
	}
	l := " " + arrow + " " + strconv.Itoa(hidden) + " more "
	lw := width(l)
	if lw+2 <= w {
		left := (w - lw) / 2
		return st.Border(strings.Repeat("─", left) + l + strings.Repeat("─", w-left-lw))
	}
	return st.Border(strings.Repeat("─", w))
}

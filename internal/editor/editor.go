// Package editor is the chat's prompt editor, with pi's editing model: lines of text and a
// cursor that moves by grapheme cluster (a ZWJ emoji or a CJK character is one step and one
// Backspace), word motion and deletion at Unicode word boundaries, Emacs kills into a kill ring
// with yank and yank-pop, fish-style undo, prompt history on Up/Down at the edges, Ctrl+]
// jumps to a character, and bracketed pastes: a large paste (more than 10 lines or 1,000
// characters) shows as one "[paste #N +L lines]" marker that moves and deletes as a unit and
// is replaced by the exact pasted text when the prompt is submitted.
//
// The editor knows text, not terminals: keys arrive as keymap.Key and actions come from a
// keymap.Map; Render draws it for a width. The chat decides which keys reach it.
package editor

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/pigo-agent/pigo/internal/keymap"
	"github.com/pigo-agent/pigo/internal/lazy"
)

// state is the text and the cursor (Col is a byte offset into Lines[Line]).
type state struct {
	Lines     []string
	Line, Col int
}

func (s state) clone() state {
	s.Lines = append([]string(nil), s.Lines...)
	return s
}

type snapshot struct {
	st      state
	pastes  map[int]string
	counter int
}

// HistoryLimit is how many prompts the history keeps (pi keeps 100).
const HistoryLimit = 100

// Editor is the prompt editor.
type Editor struct {
	st state

	pastes  map[int]string
	counter int

	history []string // newest first
	histIdx int      // -1: not browsing
	draft   *state

	kill []string
	last string // "", "type-word", "kill", "yank"
	jump string // "", "forward", "backward"

	preferred int // sticky visual column for vertical moves; -1 none
	snapped   int // the column before snapping onto a marker; -1 none

	undo []snapshot

	// layoutWidth is the width text wraps at (set by Render; vertical moves use it).
	layoutWidth int
	// Rows is the terminal height; the editor shows at most max(5, 30%) of it.
	Rows   int
	scroll int
}

// New returns an empty editor.
func New() *Editor {
	return &Editor{st: state{Lines: []string{""}}, pastes: map[int]string{}, histIdx: -1, preferred: -1,
		snapped: -1, layoutWidth: 79, Rows: 24}
}

// Result is what a key did.
type Result struct {
	// Handled is false when the key is not the editor's (the caller may act on it).
	Handled bool
	// Submitted is set when Enter submitted; Text is then the prompt with paste markers
	// expanded and trimmed.
	Submitted bool
	Text      string
}

// Text is the editor's text as shown (paste markers not expanded).
func (e *Editor) Text() string { return strings.Join(e.st.Lines, "\n") }

// Expanded is the text with every paste marker replaced by its paste.
func (e *Editor) Expanded() string { return e.expand(e.Text()) }

// Empty reports an empty editor.
func (e *Editor) Empty() bool { return len(e.st.Lines) == 1 && e.st.Lines[0] == "" }

// Cursor is the cursor's line and byte column.
func (e *Editor) Cursor() (line, col int) { return e.st.Line, e.st.Col }

// SetText replaces the text (undoably), the cursor at its end; pastes are forgotten.
func (e *Editor) SetText(s string) {
	e.last = ""
	e.exitHistory()
	s = normalize(s)
	if e.Text() != s {
		e.pushUndo()
	}
	e.pastes, e.counter = map[int]string{}, 0
	e.setText(s, false)
}

// Clear empties the editor (undoably, as pi's Ctrl+C).
func (e *Editor) Clear() { e.SetText("") }

// Insert types s at the cursor as one undoable step.
func (e *Editor) Insert(s string) {
	if s == "" {
		return
	}
	e.pushUndo()
	e.last = ""
	e.exitHistory()
	e.insertRaw(normalize(s))
}

// AddHistory records a submitted prompt (trimmed; a repeat of the newest is not added).
func (e *Editor) AddHistory(s string) {
	s = strings.TrimSpace(s)
	if s == "" || (len(e.history) > 0 && e.history[0] == s) {
		return
	}
	e.history = append([]string{s}, e.history...)
	if len(e.history) > HistoryLimit {
		e.history = e.history[:HistoryLimit]
	}
}

// SetHistory replaces the history (oldest first, as a session lists its prompts).
func (e *Editor) SetHistory(prompts []string) {
	e.history = nil
	for _, p := range prompts {
		e.AddHistory(p)
	}
	e.exitHistory()
}

// History is the history, newest first.
func (e *Editor) History() []string { return append([]string(nil), e.history...) }

func normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.ReplaceAll(s, "\t", "    ")
}

func (e *Editor) setText(s string, atStart bool) {
	e.st.Lines = strings.Split(s, "\n")
	if atStart {
		e.st.Line = 0
		e.setCol(0)
	} else {
		e.st.Line = len(e.st.Lines) - 1
		e.setCol(len(e.st.Lines[e.st.Line]))
	}
	e.scroll = 0
}

func (e *Editor) cur() string { return e.st.Lines[e.st.Line] }

func (e *Editor) setCol(c int) {
	e.st.Col = c
	e.preferred, e.snapped = -1, -1
}

func (e *Editor) pushUndo() {
	p := make(map[int]string, len(e.pastes))
	for k, v := range e.pastes {
		p[k] = v
	}
	e.undo = append(e.undo, snapshot{e.st.clone(), p, e.counter})
}

func (e *Editor) doUndo() {
	e.exitHistory()
	if len(e.undo) == 0 {
		return
	}
	s := e.undo[len(e.undo)-1]
	e.undo = e.undo[:len(e.undo)-1]
	e.st, e.pastes, e.counter = s.st, s.pastes, s.counter
	e.last = ""
	e.preferred = -1
}

func (e *Editor) exitHistory() {
	e.histIdx = -1
	e.draft = nil
}

// Handle applies one key. Keys bound to nothing the editor does are not handled (Result's
// Handled is false), so the caller can use them.
func (e *Editor) Handle(k keymap.Key, km *keymap.Map) Result {
	if e.jump != "" {
		if km.Is(k.Name, keymap.JumpForward) || km.Is(k.Name, keymap.JumpBackward) {
			e.jump = ""
			return Result{Handled: true}
		}
		if k.Text != "" && !k.Paste {
			dir := e.jump
			e.jump = ""
			e.jumpTo(k.Text, dir)
			return Result{Handled: true}
		}
		e.jump = ""
	}
	if k.Paste {
		e.paste(k.Text)
		return Result{Handled: true}
	}
	n := k.Name
	is := func(a keymap.Action) bool { return km.Is(n, a) }
	switch {
	case n == "" && k.Text != "":
		for _, g := range e.graphemes(k.Text) {
			e.typeChar(g.text)
		}
	case is(keymap.Copy):
		return Result{}
	case is(keymap.Undo):
		e.doUndo()
	case is(keymap.DeleteToLineEnd):
		e.killToEnd()
	case is(keymap.DeleteToLineStart):
		e.killToStart()
	case is(keymap.DeleteWordBack):
		e.killWordBack()
	case is(keymap.DeleteWordForward):
		e.killWordForward()
	case is(keymap.DeleteCharBack) || n == "shift+backspace":
		e.backspace()
	case is(keymap.DeleteCharForward) || n == "shift+delete":
		e.deleteForward()
	case is(keymap.Yank):
		e.yank()
	case is(keymap.YankPop):
		e.yankPop()
	case is(keymap.HistoryPrevious):
		e.navigate(-1)
	case is(keymap.HistoryNext):
		e.navigate(1)
	case is(keymap.CursorLineStart):
		e.last = ""
		e.setCol(0)
	case is(keymap.CursorLineEnd):
		e.last = ""
		e.setCol(len(e.cur()))
	case is(keymap.CursorWordLeft):
		e.wordLeft()
	case is(keymap.CursorWordRight):
		e.wordRight()
	case is(keymap.NewLine):
		e.newLine()
	case is(keymap.Submit):
		line := e.cur()
		if e.st.Col > 0 && line[e.st.Col-1] == '\\' {
			// A terminal without Shift+Enter: a trailing backslash asks for a new line.
			e.backspace()
			e.newLine()
			return Result{Handled: true}
		}
		return e.submit()
	case is(keymap.CursorUp):
		vls := e.visualLines()
		first := e.findVL(vls, e.st.Line, e.st.Col) == 0
		switch {
		case first && (e.Empty() || e.histIdx > -1 || e.st.Col == 0):
			e.navigate(-1)
		case first:
			e.last = ""
			e.setCol(0)
		default:
			e.moveVertical(-1)
		}
	case is(keymap.CursorDown):
		vls := e.visualLines()
		lastVL := e.findVL(vls, e.st.Line, e.st.Col) == len(vls)-1
		switch {
		case e.histIdx > -1 && lastVL:
			e.navigate(1)
		case lastVL:
			e.last = ""
			e.setCol(len(e.cur()))
		default:
			e.moveVertical(1)
		}
	case is(keymap.CursorRight):
		e.right()
	case is(keymap.CursorLeft):
		e.left()
	case is(keymap.EditorPageUp):
		e.page(-1)
	case is(keymap.EditorPageDown):
		e.page(1)
	case is(keymap.JumpForward):
		e.jump = "forward"
	case is(keymap.JumpBackward):
		e.jump = "backward"
	case n == "shift+space":
		e.typeChar(" ")
	case k.Text != "":
		e.typeChar(k.Text)
	default:
		return Result{}
	}
	return Result{Handled: true}
}

// Submit submits the text as Enter does (Alt+Enter's follow-up): the prompt with paste
// markers expanded and trimmed, and the editor emptied.
func (e *Editor) Submit() Result { return e.submit() }

func (e *Editor) submit() Result {
	text := strings.TrimSpace(e.expand(e.Text()))
	e.st = state{Lines: []string{""}}
	e.pastes, e.counter = map[int]string{}, 0
	e.exitHistory()
	e.scroll = 0
	e.undo = nil
	e.last = ""
	return Result{Handled: true, Submitted: true, Text: text}
}

func (e *Editor) expand(s string) string {
	for id, p := range e.pastes {
		re := regexp.MustCompile(`\[paste #` + strconv.Itoa(id) + `( (\+\d+ lines|\d+ chars))?\]`)
		s = re.ReplaceAllLiteralString(s, p)
	}
	return s
}

// typeChar types one character, with pi's undo coalescing: a run of word characters is one
// undo step, each space its own.
func (e *Editor) typeChar(c string) {
	e.exitHistory()
	if isSpace(c) || e.last != "type-word" {
		e.pushUndo()
	}
	e.last = "type-word"
	l := e.cur()
	e.st.Lines[e.st.Line] = l[:e.st.Col] + c + l[e.st.Col:]
	e.setCol(e.st.Col + len(c))
}

func (e *Editor) insertRaw(s string) {
	parts := strings.Split(s, "\n")
	l := e.cur()
	before, after := l[:e.st.Col], l[e.st.Col:]
	if len(parts) == 1 {
		e.st.Lines[e.st.Line] = before + s + after
		e.setCol(e.st.Col + len(s))
		return
	}
	lines := append([]string(nil), e.st.Lines[:e.st.Line]...)
	lines = append(lines, before+parts[0])
	lines = append(lines, parts[1:len(parts)-1]...)
	lines = append(lines, parts[len(parts)-1]+after)
	lines = append(lines, e.st.Lines[e.st.Line+1:]...)
	e.st.Lines = lines
	e.st.Line += len(parts) - 1
	e.setCol(len(parts[len(parts)-1]))
}

// paste inserts a bracketed paste: control characters other than newlines are dropped, a
// path gets a space before it after a word, and a large paste becomes a marker.
func (e *Editor) paste(text string) {
	e.exitHistory()
	e.last = ""
	e.pushUndo()
	// tmux with extended keys may re-encode control bytes inside a paste as CSI-u Ctrl+letter.
	text = csiCtrl.Get().ReplaceAllStringFunc(text, func(m string) string {
		n, _ := strconv.Atoi(m[2 : len(m)-3])
		switch {
		case n >= 'a' && n <= 'z':
			return string(rune(n - 96))
		case n >= 'A' && n <= 'Z':
			return string(rune(n - 64))
		}
		return m
	})
	text = normalize(text)
	var b strings.Builder
	for _, r := range text {
		if r == '\n' || r >= 32 {
			b.WriteRune(r)
		}
	}
	text = b.String()
	if strings.ContainsAny(text[:min(1, len(text))], "/~.") && e.st.Col > 0 {
		if c := e.cur()[e.st.Col-1]; c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			text = " " + text
		}
	}
	lines := strings.Count(text, "\n") + 1
	chars := len([]rune(text))
	if lines > 10 || chars > 1000 {
		e.counter++
		e.pastes[e.counter] = text
		marker := "[paste #" + strconv.Itoa(e.counter) + " " + strconv.Itoa(chars) + " chars]"
		if lines > 10 {
			marker = "[paste #" + strconv.Itoa(e.counter) + " +" + strconv.Itoa(lines) + " lines]"
		}
		e.insertRaw(marker)
		return
	}
	e.insertRaw(text)
}

var csiCtrl = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\x1b\[(\d+);5u`) }}

func (e *Editor) newLine() {
	e.exitHistory()
	e.last = ""
	e.pushUndo()
	l := e.cur()
	e.st.Lines = append(e.st.Lines[:e.st.Line+1], append([]string{l[e.st.Col:]}, e.st.Lines[e.st.Line+1:]...)...)
	e.st.Lines[e.st.Line] = l[:e.st.Col]
	e.st.Line++
	e.setCol(0)
}

func (e *Editor) backspace() {
	e.exitHistory()
	e.last = ""
	if e.st.Col > 0 {
		e.pushUndo()
		gs := e.graphemes(e.cur()[:e.st.Col])
		g := gs[len(gs)-1]
		if isMarker(g.text) {
			e.dropPaste(g.text)
		}
		l := e.cur()
		e.st.Lines[e.st.Line] = l[:e.st.Col-len(g.text)] + l[e.st.Col:]
		e.setCol(e.st.Col - len(g.text))
		return
	}
	if e.st.Line > 0 {
		e.pushUndo()
		prev := e.st.Lines[e.st.Line-1]
		e.joinLine(e.st.Line - 1)
		e.st.Line--
		e.setCol(len(prev))
	}
}

// dropPaste forgets a deleted marker's paste and renumbers the ones after it (pi's rule).
func (e *Editor) dropPaste(marker string) {
	m := markerRe.Get().FindStringSubmatch(marker)
	id, _ := strconv.Atoi(m[1])
	delete(e.pastes, id)
	e.counter--
	next := map[int]string{}
	for k, v := range e.pastes {
		if k > id {
			k--
		}
		next[k] = v
	}
	e.pastes = next
	for i, l := range e.st.Lines {
		e.st.Lines[i] = markerRe.Get().ReplaceAllStringFunc(l, func(s string) string {
			sm := markerRe.Get().FindStringSubmatch(s)
			x, _ := strconv.Atoi(sm[1])
			if x <= id {
				return s
			}
			return "[paste #" + strconv.Itoa(x-1) + sm[2] + "]"
		})
	}
}

func (e *Editor) joinLine(i int) {
	e.st.Lines[i] += e.st.Lines[i+1]
	e.st.Lines = append(e.st.Lines[:i+1], e.st.Lines[i+2:]...)
}

func (e *Editor) deleteForward() {
	e.exitHistory()
	e.last = ""
	l := e.cur()
	if e.st.Col < len(l) {
		e.pushUndo()
		g := e.graphemes(l[e.st.Col:])[0]
		e.st.Lines[e.st.Line] = l[:e.st.Col] + l[e.st.Col+len(g.text):]
		return
	}
	if e.st.Line < len(e.st.Lines)-1 {
		e.pushUndo()
		e.joinLine(e.st.Line)
	}
}

func (e *Editor) pushKill(s string, prepend bool) {
	if s == "" {
		return
	}
	if e.last == "kill" && len(e.kill) > 0 {
		last := e.kill[len(e.kill)-1]
		if prepend {
			s += last
		} else {
			s = last + s
		}
		e.kill[len(e.kill)-1] = s
	} else {
		e.kill = append(e.kill, s)
	}
	e.last = "kill"
}

func (e *Editor) killToStart() {
	e.exitHistory()
	l := e.cur()
	switch {
	case e.st.Col > 0:
		e.pushUndo()
		e.pushKill(l[:e.st.Col], true)
		e.st.Lines[e.st.Line] = l[e.st.Col:]
		e.setCol(0)
	case e.st.Line > 0:
		e.pushUndo()
		e.pushKill("\n", true)
		prev := e.st.Lines[e.st.Line-1]
		e.joinLine(e.st.Line - 1)
		e.st.Line--
		e.setCol(len(prev))
	}
}

func (e *Editor) killToEnd() {
	e.exitHistory()
	l := e.cur()
	switch {
	case e.st.Col < len(l):
		e.pushUndo()
		e.pushKill(l[e.st.Col:], false)
		e.st.Lines[e.st.Line] = l[:e.st.Col]
	case e.st.Line < len(e.st.Lines)-1:
		e.pushUndo()
		e.pushKill("\n", false)
		e.joinLine(e.st.Line)
	}
}

func (e *Editor) killWordBack() {
	e.exitHistory()
	l := e.cur()
	if e.st.Col == 0 {
		if e.st.Line > 0 {
			e.pushUndo()
			e.pushKill("\n", true)
			prev := e.st.Lines[e.st.Line-1]
			e.joinLine(e.st.Line - 1)
			e.st.Line--
			e.setCol(len(prev))
		}
		return
	}
	e.pushUndo()
	from := e.wordBackward(l, e.st.Col)
	e.pushKill(l[from:e.st.Col], true)
	e.st.Lines[e.st.Line] = l[:from] + l[e.st.Col:]
	e.setCol(from)
}

func (e *Editor) killWordForward() {
	e.exitHistory()
	l := e.cur()
	if e.st.Col >= len(l) {
		if e.st.Line < len(e.st.Lines)-1 {
			e.pushUndo()
			e.pushKill("\n", false)
			e.joinLine(e.st.Line)
		}
		return
	}
	e.pushUndo()
	to := e.wordForward(l, e.st.Col)
	e.pushKill(l[e.st.Col:to], false)
	e.st.Lines[e.st.Line] = l[:e.st.Col] + l[to:]
}

func (e *Editor) yank() {
	if len(e.kill) == 0 {
		return
	}
	e.pushUndo()
	e.insertYank(e.kill[len(e.kill)-1])
	e.last = "yank"
}

func (e *Editor) yankPop() {
	if e.last != "yank" || len(e.kill) <= 1 {
		return
	}
	e.pushUndo()
	// Remove the text the last yank inserted, rotate the ring, insert the next entry.
	y := e.kill[len(e.kill)-1]
	parts := strings.Split(y, "\n")
	if len(parts) == 1 {
		l := e.cur()
		e.st.Lines[e.st.Line] = l[:e.st.Col-len(y)] + l[e.st.Col:]
		e.setCol(e.st.Col - len(y))
	} else {
		start := e.st.Line - (len(parts) - 1)
		startCol := len(e.st.Lines[start]) - len(parts[0])
		after := e.cur()[e.st.Col:]
		before := e.st.Lines[start][:startCol]
		e.st.Lines = append(e.st.Lines[:start], append([]string{before + after}, e.st.Lines[e.st.Line+1:]...)...)
		e.st.Line = start
		e.setCol(startCol)
	}
	last := e.kill[len(e.kill)-1]
	e.kill = append([]string{last}, e.kill[:len(e.kill)-1]...)
	e.insertYank(e.kill[len(e.kill)-1])
	e.last = "yank"
}

func (e *Editor) insertYank(s string) {
	e.exitHistory()
	e.insertRaw(s)
}

func (e *Editor) navigate(dir int) {
	e.last = ""
	if len(e.history) == 0 {
		return
	}
	idx := e.histIdx - dir
	if idx < -1 || idx >= len(e.history) {
		return
	}
	if e.histIdx == -1 && idx >= 0 {
		e.pushUndo()
		d := e.st.clone()
		e.draft = &d
	}
	e.histIdx = idx
	if idx == -1 {
		if e.draft != nil {
			e.st = *e.draft
			e.draft = nil
			e.preferred, e.snapped = -1, -1
			e.scroll = 0
		} else {
			e.setText("", false)
		}
		return
	}
	e.setText(e.history[idx], dir == -1)
}

func (e *Editor) right() {
	e.last = ""
	l := e.cur()
	switch {
	case e.st.Col < len(l):
		e.setCol(e.st.Col + len(e.graphemes(l[e.st.Col:])[0].text))
	case e.st.Line < len(e.st.Lines)-1:
		e.st.Line++
		e.setCol(0)
	default:
		vls := e.visualLines()
		vl := vls[e.findVL(vls, e.st.Line, e.st.Col)]
		e.preferred = e.st.Col - vl.start
	}
}

func (e *Editor) left() {
	e.last = ""
	switch {
	case e.st.Col > 0:
		gs := e.graphemes(e.cur()[:e.st.Col])
		e.setCol(e.st.Col - len(gs[len(gs)-1].text))
	case e.st.Line > 0:
		e.st.Line--
		e.setCol(len(e.cur()))
	}
}

func (e *Editor) wordLeft() {
	e.last = ""
	if e.st.Col == 0 {
		if e.st.Line > 0 {
			e.st.Line--
			e.setCol(len(e.cur()))
		}
		return
	}
	e.setCol(e.wordBackward(e.cur(), e.st.Col))
}

func (e *Editor) wordRight() {
	e.last = ""
	l := e.cur()
	if e.st.Col >= len(l) {
		if e.st.Line < len(e.st.Lines)-1 {
			e.st.Line++
			e.setCol(0)
		}
		return
	}
	e.setCol(e.wordForward(l, e.st.Col))
}

// wordBackward is where word motion left from cursor lands: over trailing spaces, then over
// one marker, one word (stopping after its last ASCII punctuation) or one punctuation run.
func (e *Editor) wordBackward(text string, cursor int) int {
	segs := e.words(text[:cursor])
	pos := cursor
	for len(segs) > 0 && !isMarker(segs[len(segs)-1].text) && isSpace(segs[len(segs)-1].text) {
		pos -= len(segs[len(segs)-1].text)
		segs = segs[:len(segs)-1]
	}
	if len(segs) == 0 {
		return pos
	}
	last := segs[len(segs)-1]
	switch {
	case isMarker(last.text):
		pos -= len(last.text)
	case last.wordLike:
		if i := strings.LastIndexAny(last.text, punct); i >= 0 {
			pos -= len(last.text) - (i + 1)
		} else {
			pos -= len(last.text)
		}
	default:
		for len(segs) > 0 {
			s := segs[len(segs)-1]
			if isMarker(s.text) || s.wordLike || isSpace(s.text) {
				break
			}
			pos -= len(s.text)
			segs = segs[:len(segs)-1]
		}
	}
	return pos
}

func (e *Editor) wordForward(text string, cursor int) int {
	segs := e.words(text[cursor:])
	pos := cursor
	for len(segs) > 0 && !isMarker(segs[0].text) && isSpace(segs[0].text) {
		pos += len(segs[0].text)
		segs = segs[1:]
	}
	if len(segs) == 0 {
		return pos
	}
	first := segs[0]
	switch {
	case isMarker(first.text):
		pos += len(first.text)
	case first.wordLike:
		if i := strings.IndexAny(first.text, punct); i >= 0 {
			pos += i
		} else {
			pos += len(first.text)
		}
	default:
		for len(segs) > 0 {
			s := segs[0]
			if isMarker(s.text) || s.wordLike || isSpace(s.text) {
				break
			}
			pos += len(s.text)
			segs = segs[1:]
		}
	}
	return pos
}

func (e *Editor) jumpTo(c, dir string) {
	e.last = ""
	if dir == "forward" {
		for i := e.st.Line; i < len(e.st.Lines); i++ {
			l := e.st.Lines[i]
			from := 0
			if i == e.st.Line {
				from = min(e.st.Col+1, len(l))
			}
			if j := strings.Index(l[from:], c); j >= 0 {
				e.st.Line = i
				e.setCol(from + j)
				return
			}
		}
		return
	}
	for i := e.st.Line; i >= 0; i-- {
		l := e.st.Lines[i]
		to := len(l)
		if i == e.st.Line {
			to = e.st.Col
		}
		if j := strings.LastIndex(l[:to], c); j >= 0 {
			e.st.Line = i
			e.setCol(j)
			return
		}
	}
}

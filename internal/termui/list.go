package termui

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/keymap"
)

// Item is one entry of a List.
type Item struct {
	// Label is what the list shows and what the filter matches.
	Label string
	// Description is shown in a second column when there is room.
	Description string
	// Value is the caller's (a command name, a model reference, a file).
	Value string
	// Disabled items show but cannot be chosen.
	Disabled bool
}

// List is pi's select list: a window of items around the selection ("→ " marks it, with a
// "(n/m)" line when not all fit), labels in one column and descriptions in a second, an
// optional filter typed into it. The caller draws a title and hints around it.
type List struct {
	items []Item
	shown []int // indexes into items, in filter order
	sel   int   // index into shown
	// Max is how many items show at once (5 when 0).
	Max int
	// Filterable makes typed characters filter the items (fuzzy, as pi's selectors).
	Filterable bool
	filter     []rune
	// ColumnMin and ColumnMax bound the label column (12 and 32 for the slash menu).
	ColumnMin, ColumnMax int
	// Empty is shown when no item matches.
	Empty string
}

// NewList returns a list of items with the first selected.
func NewList(items []Item) *List {
	l := &List{items: items}
	l.refilter()
	return l
}

// SetItems replaces the items, keeping the filter.
func (l *List) SetItems(items []Item) {
	l.items = items
	l.refilter()
}

// Len is the number of items shown (after the filter).
func (l *List) Len() int { return len(l.shown) }

// Filter is the typed filter.
func (l *List) Filter() string { return string(l.filter) }

// Selected is the selected item; ok is false when nothing matches.
func (l *List) Selected() (Item, bool) {
	if len(l.shown) == 0 {
		return Item{}, false
	}
	return l.items[l.shown[l.sel]], true
}

// SelectedIndex is the selected item's index in the items given (-1: none).
func (l *List) SelectedIndex() int {
	if len(l.shown) == 0 {
		return -1
	}
	return l.shown[l.sel]
}

// Select selects the item with index i in the items given (if shown).
func (l *List) Select(i int) {
	for j, x := range l.shown {
		if x == i {
			l.sel = j
			return
		}
	}
}

// Move moves the selection by d, wrapping at the ends as pi's lists do.
func (l *List) Move(d int) {
	n := len(l.shown)
	if n == 0 {
		return
	}
	l.sel = ((l.sel+d)%n + n) % n
}

// Page moves the selection by a page, stopping at the ends.
func (l *List) Page(d int) {
	n := len(l.shown)
	if n == 0 {
		return
	}
	l.sel = min(max(l.sel+d*l.max(), 0), n-1)
}

func (l *List) max() int {
	if l.Max <= 0 {
		return 5
	}
	return l.Max
}

// Result is what a key did to a list.
type Result int

// The results.
const (
	Ignored Result = iota
	Moved
	Chosen
	Cancelled
)

// Handle applies a key: Up/Down move (wrapping), PageUp/PageDown page, Enter chooses, Escape
// cancels; with Filterable, text filters and Backspace edits the filter.
func (l *List) Handle(k keymap.Key, km *keymap.Map) Result {
	switch {
	case km.Is(k.Name, keymap.SelectUp):
		l.Move(-1)
	case km.Is(k.Name, keymap.SelectDown):
		l.Move(1)
	case km.Is(k.Name, keymap.SelectPageUp):
		l.Page(-1)
	case km.Is(k.Name, keymap.SelectPageDown):
		l.Page(1)
	case km.Is(k.Name, keymap.SelectConfirm):
		if it, ok := l.Selected(); ok && !it.Disabled {
			return Chosen
		}
	case km.Is(k.Name, keymap.SelectCancel):
		return Cancelled
	case l.Filterable && k.Name == "backspace":
		if len(l.filter) > 0 {
			l.filter = l.filter[:len(l.filter)-1]
			l.refilter()
		}
	case l.Filterable && k.Text != "" && !k.Paste:
		l.filter = append(l.filter, []rune(k.Text)...)
		l.refilter()
	case l.Filterable && k.Paste:
		l.filter = append(l.filter, []rune(strings.ReplaceAll(k.Text, "\n", " "))...)
		l.refilter()
	default:
		return Ignored
	}
	return Moved
}

// SetFilter sets the filter text.
func (l *List) SetFilter(s string) {
	l.filter = []rune(s)
	l.refilter()
}

func (l *List) refilter() {
	idx := make([]int, len(l.items))
	for i := range idx {
		idx[i] = i
	}
	// pi's fuzzy filter (the engine's, shared with the command completions).
	l.shown = engine.FuzzyFilter(idx, string(l.filter), func(i int) string { return l.items[i].Label })
	l.sel = 0
}

// Render draws the list at width w. sel paints the selected line, desc a description.
func (l *List) Render(w int, st *Styles) []string {
	if len(l.shown) == 0 {
		e := l.Empty
		if e == "" {
			e = "No matches"
		}
		return []string{st.Fg("warning", "  "+e)}
	}
	mx := l.max()
	start := max(0, min(l.sel-mx/2, len(l.shown)-mx))
	end := min(start+mx, len(l.shown))
	col := l.column(w)
	var out []string
	for i := start; i < end; i++ {
		it := l.items[l.shown[i]]
		out = append(out, l.item(it, i == l.sel, w, col, st))
	}
	if start > 0 || end < len(l.shown) {
		out = append(out, st.Fg("dim", Truncate("  ("+strconv.Itoa(l.sel+1)+"/"+strconv.Itoa(len(l.shown))+")", w-2, "")))
	}
	return out
}

func (l *List) column(w int) int {
	lo, hi := l.ColumnMin, l.ColumnMax
	if lo == 0 && hi == 0 {
		lo, hi = 32, 32
	}
	widest := 0
	for _, i := range l.shown {
		widest = max(widest, Width(oneLine(l.items[i].Label))+2)
	}
	return min(max(widest, lo), hi)
}

func (l *List) item(it Item, sel bool, w, col int, st *Styles) string {
	prefix := "  "
	if sel {
		prefix = "→ "
	}
	label := oneLine(it.Label)
	desc := oneLine(it.Description)
	paint := func(s string) string {
		switch {
		case it.Disabled:
			return st.Fg("dim", s)
		case sel && st.Color():
			return st.Fg("accent", s)
		case sel:
			return st.Reverse(s)
		}
		return s
	}
	if desc != "" && w > 40 {
		c := max(1, min(col, w-2-4))
		v := Truncate(label, max(1, c-2), "…")
		gap := strings.Repeat(" ", max(1, c-Width(v)))
		if rem := w - 2 - Width(v) - len(gap) - 2; rem > 10 {
			d := Truncate(desc, rem, "")
			if sel {
				return paint(prefix + v + gap + d)
			}
			return prefix + paint(v) + st.Fg("dim", gap+d)
		}
	}
	return paint(prefix + Truncate(label, max(1, w-4), "…"))
}

func oneLine(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
}

package editor

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// seg is one unit of text the cursor moves over: a grapheme cluster, a word (for word
// motion), or a whole paste marker.
type seg struct {
	text     string
	at       int // byte offset in the line
	wordLike bool
}

// markerRe matches paste markers: "[paste #1 +123 lines]" or "[paste #2 1234 chars]".
var markerRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\[paste #(\d+)( (\+\d+ lines|\d+ chars))?\]`) }}

func isMarker(s string) bool {
	if len(s) < 10 || s[0] != '[' {
		return false
	}
	loc := markerRe.Get().FindStringIndex(s)
	return loc != nil && loc[0] == 0 && loc[1] == len(s)
}

// markers are the spans of the markers whose paste exists, in order.
func (e *Editor) markers(s string) [][2]int {
	if len(e.pastes) == 0 || !strings.Contains(s, "[paste #") {
		return nil
	}
	var out [][2]int
	for _, m := range markerRe.Get().FindAllStringSubmatchIndex(s, -1) {
		id, _ := strconv.Atoi(s[m[2]:m[3]])
		if _, ok := e.pastes[id]; ok {
			out = append(out, [2]int{m[0], m[1]})
		}
	}
	return out
}

// graphemes splits s into grapheme clusters, a valid paste marker counting as one.
func (e *Editor) graphemes(s string) []seg {
	marks := e.markers(s)
	out := make([]seg, 0, len(s))
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		from, _ := g.Positions()
		for len(marks) > 0 && marks[0][1] <= from {
			marks = marks[1:]
		}
		if len(marks) > 0 && from >= marks[0][0] {
			if from == marks[0][0] {
				out = append(out, seg{text: s[marks[0][0]:marks[0][1]], at: from})
			}
			continue
		}
		out = append(out, seg{text: g.Str(), at: from})
	}
	return out
}

// words splits s at word boundaries (Unicode UAX #29, as Intl.Segmenter's word granularity),
// a valid paste marker counting as one segment.
func (e *Editor) words(s string) []seg {
	marks := e.markers(s)
	var out []seg
	rest, at := s, 0
	state := -1
	for len(rest) > 0 {
		if len(marks) > 0 && at == marks[0][0] {
			out = append(out, seg{text: s[marks[0][0]:marks[0][1]], at: at})
			at = marks[0][1]
			rest = s[at:]
			marks = marks[1:]
			state = -1
			continue
		}
		var w string
		w, rest, state = uniseg.FirstWordInString(rest, state)
		if len(marks) > 0 && at < marks[0][0] && at+len(w) > marks[0][0] {
			// A word running into a marker stops at it.
			w = s[at:marks[0][0]]
			rest = s[marks[0][0]:]
			state = -1
		}
		out = append(out, seg{text: w, at: at, wordLike: wordLike(w)})
		at += len(w)
	}
	return out
}

func wordLike(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' {
			return true
		}
	}
	return false
}

func isSpace(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// punct is pi's ASCII punctuation set, which splits word motion inside a word-like segment
// (so "foo.bar" moves in two steps).
const punct = "(){}[]<>.,;:'\"!?+-=*/\\|&%^$#@~`"

// width is the terminal width of s.
func width(s string) int { return ansi.StringWidth(s) }

// isCJK reports a Han, Hiragana, Katakana, Hangul or Bopomofo character: a line may break
// between any two of them.
func isCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Bopomofo) {
			return true
		}
	}
	return false
}

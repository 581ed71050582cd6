// Package termui is what the chat and the configuration explorer (`pigo tui`) share on the
// screen: the styles of pi's colour roles from a theme, the terminal's capabilities (colour,
// OSC 8 hyperlinks), line fitting that never leaves a cell of an older frame behind, and the
// select list every menu and picker uses.
package termui

import (
	"strings"
	"sync"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pigo-agent/pigo/internal/markdown"
	"github.com/pigo-agent/pigo/internal/theme"
)

// Styles paints text in a theme's roles for one terminal. Without colour (NO_COLOR, a dumb
// terminal, tests) it uses bold, faint and reverse video only.
type Styles struct {
	profile termenv.Profile
	th      *theme.Theme
	color   bool
	links   bool

	mu    sync.Mutex
	cache map[string]string // role+attrs → SGR prefix
}

// New returns the styles of th for r's colour profile; color false draws without colours;
// links enables OSC 8 hyperlinks.
func New(r *lipgloss.Renderer, th *theme.Theme, color, links bool) *Styles {
	if th == nil {
		th = theme.System()
	}
	p := termenv.Ascii
	if color && r != nil {
		p = r.ColorProfile()
	}
	return &Styles{profile: p, th: th, color: color && p != termenv.Ascii, links: links, cache: map[string]string{}}
}

// Plain is styles that draw no escapes at all (for tests and pipes).
func Plain() *Styles { return New(nil, nil, false, false) }

// Theme is the theme the styles draw.
func (s *Styles) Theme() *theme.Theme { return s.th }

// Color reports whether colours are drawn.
func (s *Styles) Color() bool { return s.color }

// Attr is a text attribute.
type Attr uint8

// The attributes.
const (
	Bold Attr = 1 << iota
	Faint
	Italic
	Underline
	Strike
	Reverse
)

// Style paints text with a foreground role (""), a background role ("") and attributes.
// Each call closes what it opens, so lines can be drawn independently.
func (s *Styles) Style(fg, bg string, a Attr, text string) string {
	if text == "" {
		return ""
	}
	p := s.prefix(fg, bg, a)
	if p == "" {
		return text
	}
	return p + text + "\x1b[0m"
}

// Fg paints text in a role's colour.
func (s *Styles) Fg(role, text string) string { return s.Style(role, "", 0, text) }

// Bold is bold text.
func (s *Styles) Bold(text string) string { return s.Style("", "", Bold, text) }

// Faint is faint text.
func (s *Styles) Faint(text string) string { return s.Style("", "", Faint, text) }

// Reverse is reverse-video text (the fake cursor, the selection without colours).
func (s *Styles) Reverse(text string) string { return s.Style("", "", Reverse, text) }

func (s *Styles) prefix(fg, bg string, a Attr) string {
	key := fg + "\x00" + bg + "\x00" + string(rune('0'+a))
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.cache[key]; ok {
		return p
	}
	var codes []string
	if s.color {
		if fg != "" {
			c := s.th.Get(fg)
			if c.Faint {
				a |= Faint
			} else if !c.IsDefault() {
				codes = append(codes, s.profile.Color(c.String()).Sequence(false))
			}
		}
		if bg != "" {
			if c := s.th.Get(bg); !c.IsDefault() && !c.Faint {
				codes = append(codes, s.profile.Color(c.String()).Sequence(true))
			}
		}
	} else if fg != "" {
		// Without colours the roles that carry meaning keep it through an attribute.
		switch fg {
		case "error", "accent", "mdHeading", "toolTitle":
			a |= Bold
		case "muted", "dim", "thinkingText", "toolOutput", "mdQuote", "mdLinkUrl", "mdCodeBlockBorder", "borderMuted", "toolDiffContext", "syntaxComment":
			a |= Faint
		}
	}
	for _, x := range []struct {
		a    Attr
		code string
	}{{Bold, "1"}, {Faint, "2"}, {Italic, "3"}, {Underline, "4"}, {Reverse, "7"}, {Strike, "9"}} {
		if a&x.a != 0 {
			codes = append(codes, x.code)
		}
	}
	p := ""
	if len(codes) > 0 {
		p = "\x1b[" + strings.Join(codes, ";") + "m"
	}
	s.cache[key] = p
	return p
}

// Hyperlinks reports whether links are drawn as OSC 8 hyperlinks (markdown.Theme).
func (s *Styles) Hyperlinks() bool { return s.links }

// Link wraps text in an OSC 8 hyperlink to url when hyperlinks are on.
func (s *Styles) Link(text, url string) string {
	if !s.links || url == "" || strings.ContainsAny(url, "\x1b\x07") {
		return text
	}
	return "\x1b]8;;" + url + "\x1b\\" + text + "\x1b]8;;\x1b\\"
}

// Paint draws a Markdown span in pi's Markdown roles (markdown.Theme).
func (s *Styles) Paint(sp markdown.Span) string {
	st := sp.Style
	var a Attr
	if st&markdown.Bold != 0 {
		a |= Bold
	}
	if st&markdown.Italic != 0 {
		a |= Italic
	}
	if st&markdown.Underline != 0 {
		a |= Underline
	}
	if st&markdown.Strike != 0 {
		a |= Strike
	}
	role := ""
	switch {
	case sp.Syn != markdown.SynNone:
		role = [...]string{"", "syntaxComment", "syntaxKeyword", "syntaxFunction", "syntaxVariable", "syntaxString",
			"syntaxNumber", "syntaxType", "syntaxOperator", "syntaxPunctuation"}[sp.Syn]
	case st&markdown.Code != 0:
		role = "mdCode"
	case st&markdown.Link != 0:
		role = "mdLink"
	case st&markdown.LinkURL != 0:
		role = "mdLinkUrl"
	case st&markdown.Heading != 0:
		role = "mdHeading"
	case st&markdown.QuoteBorder != 0:
		role = "mdQuoteBorder"
	case st&markdown.Quote != 0:
		role = "mdQuote"
	case st&markdown.CodeBorder != 0:
		role = "mdCodeBlockBorder"
	case st&markdown.CodeBlock != 0:
		role = "mdCodeBlock"
	case st&markdown.Rule != 0:
		role = "mdHr"
	case st&markdown.Bullet != 0:
		role = "mdListBullet"
	}
	out := s.Style(role, "", a, sp.Text)
	if sp.URL != "" {
		out = s.Link(out, sp.URL)
	}
	return out
}

var _ markdown.Theme = (*Styles)(nil)

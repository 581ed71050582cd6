// Package markdown renders an assistant's Markdown for the terminal as pi does: CommonMark
// parsed by goldmark (with GitHub's tables, strikethrough, task items and bare-URL links,
// written here), laid out to a width into lines: headings (level 1 underlined, levels 3+ keep
// their "### "), paragraphs whose line breaks stay, "- " and "1. " lists nested by four
// columns, block quotes behind "│ ", rules, fenced code between its ``` fences with syntax
// highlighting, and tables drawn with box characters whose cells wrap. Links are OSC 8
// hyperlinks when the terminal shows them, else "text (url)".
//
// It knows nothing of colours: every run of text carries a Style, and the caller's Theme
// paints it. Rendering is pure and cheap (a 4 KB message renders in well under a
// millisecond), so a streaming message is re-rendered on every update.
package markdown

import (
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Style is what a run of text is (combined bits), for the Theme to paint.
type Style uint32

// The styles.
const (
	Bold Style = 1 << iota
	Italic
	Underline
	Strike
	Code        // inline code
	Link        // link text
	LinkURL     // a link's URL shown in parentheses
	Heading     // heading text
	Quote       // block quote text
	QuoteBorder // the "│ " before quoted lines
	CodeBlock   // code block text without a syntax class
	CodeBorder  // the ``` fences
	Rule        // a thematic break
	Bullet      // list markers and task boxes
	TableBorder // table lines
)

// Syntax is a code token's class (pi theme's syntax* colours).
type Syntax uint8

// The syntax classes.
const (
	SynNone Syntax = iota
	SynComment
	SynKeyword
	SynFunction
	SynVariable
	SynString
	SynNumber
	SynType
	SynOperator
	SynPunctuation
)

// Span is a run of text with one style.
type Span struct {
	Text  string
	Style Style
	Syn   Syntax
	// URL is the link target of link text.
	URL string
}

// Theme paints spans.
type Theme interface {
	// Paint returns the span's text with its styling (and hyperlink, if any).
	Paint(s Span) string
	// Hyperlinks reports whether links are OSC 8 hyperlinks; without them a link whose text
	// differs from its URL is followed by " (url)".
	Hyperlinks() bool
}

// Options change the layout.
type Options struct {
	// CodeIndent prefixes code block lines (pi's markdown.codeBlockIndent; default two spaces).
	CodeIndent string
}

var (
	once sync.Once
	p    parser.Parser
)

// newParser builds goldmark's CommonMark parser with the GitHub extensions (once, on first
// use, so a pigo process that renders no Markdown pays nothing).
func newParser() parser.Parser {
	once.Do(func() {
		p = parser.NewParser(
			parser.WithBlockParsers(parser.DefaultBlockParsers()...),
			parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
				util.Prioritized(taskParser{}, 0),
				util.Prioritized(strikeParser{}, 500),
				util.Prioritized(linkifyParser{}, 999))...),
			parser.WithParagraphTransformers(append(parser.DefaultParagraphTransformers(),
				util.Prioritized(tableTransformer{}, 200))...),
		)
	})
	return p
}

// Parse parses Markdown into goldmark's tree.
func Parse(src []byte) ast.Node {
	return newParser().Parse(text.NewReader(src))
}

// Render lays src out at width w; lines carry the theme's styling and are at most w wide
// (before styling; a line is never padded).
func Render(src string, w int, th Theme, o Options) []string {
	if strings.TrimSpace(src) == "" {
		return nil
	}
	if o.CodeIndent == "" {
		o.CodeIndent = "  "
	}
	src = strings.ReplaceAll(src, "\t", "   ")
	b := []byte(src)
	r := &renderer{src: b, th: th, o: o}
	doc := Parse(b)
	w = max(w, 1)
	var out []string
	for _, l := range r.blocks(doc, w, true) {
		if lineWidth(l) > w {
			// What a block cannot fit (a code fence or a deep list's indent and marker on a
			// terminal a few columns wide) is wrapped again: no line is wider than w.
			for _, part := range wrap(l, w) {
				out = append(out, r.paint(part))
			}
			continue
		}
		out = append(out, r.paint(l))
	}
	return out
}

// line is a laid-out line of spans.
type line []Span

type renderer struct {
	src []byte
	th  Theme
	o   Options
}

func (r *renderer) paint(l line) string {
	var b strings.Builder
	for _, s := range l {
		if s.Style == 0 && s.Syn == SynNone && s.URL == "" {
			b.WriteString(s.Text)
			continue
		}
		b.WriteString(r.th.Paint(s))
	}
	return b.String()
}

// blocks renders the children of a container; top says whether blank lines separate them
// (inside list items pi adds none).
func (r *renderer) blocks(parent ast.Node, w int, top bool) []line {
	var out []line
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		out = append(out, r.block(n, w)...)
		next := n.NextSibling()
		if !top || next == nil {
			continue
		}
		_, isList := n.(*ast.List)
		_, nextList := next.(*ast.List)
		_, isPara := n.(*ast.Paragraph)
		blank := next.HasBlankPreviousLines() || (!isList && !(isPara && nextList))
		if blank {
			out = append(out, nil)
		}
	}
	return out
}

func (r *renderer) block(n ast.Node, w int) []line {
	switch n := n.(type) {
	case *ast.Heading:
		st := Heading | Bold
		if n.Level == 1 {
			st |= Underline
		}
		var spans []Span
		if n.Level >= 3 {
			spans = append(spans, Span{Text: strings.Repeat("#", n.Level) + " ", Style: st})
		}
		spans = append(spans, r.inlines(n, st)...)
		return wrap(spans, w)
	case *ast.Paragraph, *ast.TextBlock:
		return wrap(r.inlines(n, 0), w)
	case *ast.ThematicBreak:
		return []line{{{Text: strings.Repeat("─", min(w, 80)), Style: Rule}}}
	case *ast.FencedCodeBlock:
		lang := string(n.Language(r.src))
		return r.code(n, lang, w)
	case *ast.CodeBlock:
		return r.code(n, "", w)
	case *ast.Blockquote:
		if w < 3 {
			return r.blocks(n, w, true)
		}
		inner := r.blocks(n, w-2, true)
		for len(inner) > 0 && len(inner[len(inner)-1]) == 0 {
			inner = inner[:len(inner)-1]
		}
		out := make([]line, 0, len(inner))
		for _, l := range inner {
			q := line{{Text: "│ ", Style: QuoteBorder}}
			for _, s := range l {
				s.Style |= Quote | Italic
				q = append(q, s)
			}
			out = append(out, q)
		}
		return out
	case *ast.List:
		return r.list(n, 0, w)
	case *Table:
		return r.table(n, w)
	case *ast.HTMLBlock:
		var b strings.Builder
		ls := n.Lines()
		for i := 0; i < ls.Len(); i++ {
			seg := ls.At(i)
			b.Write(seg.Value(r.src))
		}
		if n.HasClosure() {
			b.Write(n.ClosureLine.Value(r.src))
		}
		t := strings.TrimSpace(stripComments(b.String()))
		if t == "" {
			return nil
		}
		return wrap([]Span{{Text: t}}, w)
	}
	return nil
}

func (r *renderer) code(n ast.Node, lang string, w int) []line {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(r.src))
	}
	code := strings.TrimSuffix(b.String(), "\n")
	out := []line{{{Text: "```" + lang, Style: CodeBorder}}}
	ind := r.o.CodeIndent
	for _, cl := range Highlight(code, lang) {
		spans := append([]Span{{Text: ind}}, cl...)
		out = append(out, wrap(spans, w)...)
	}
	return append(out, line{{Text: "```", Style: CodeBorder}})
}

func (r *renderer) list(n *ast.List, depth, w int) []line {
	var out []line
	indent := strings.Repeat("    ", depth)
	num := n.Start
	if num == 0 && n.IsOrdered() {
		num = 1
	}
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "- "
		if n.IsOrdered() {
			marker = itoa(num) + ". "
			num++
		}
		if first := item.FirstChild(); first != nil {
			if tb, ok := first.FirstChild().(*TaskCheckBox); ok {
				if tb.Checked {
					marker += "[x] "
				} else {
					marker += "[ ] "
				}
			}
		}
		mw := width(marker)
		iw := max(1, w-len(indent)-mw)
		any := false
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			if sub, ok := c.(*ast.List); ok {
				out = append(out, r.list(sub, depth+1, w)...)
				any = true
				continue
			}
			for _, l := range r.block(c, iw) {
				var pre line
				if !any {
					pre = line{{Text: indent}, {Text: marker, Style: Bullet}}
				} else {
					pre = line{{Text: indent + strings.Repeat(" ", mw)}}
				}
				out = append(out, append(pre, l...))
				any = true
			}
		}
		if !any {
			out = append(out, line{{Text: indent}, {Text: marker, Style: Bullet}})
		}
		if !n.IsTight && item.NextSibling() != nil {
			out = append(out, nil)
		}
	}
	return out
}

// inlines flattens a block's inline children into spans, base styling all of them.
func (r *renderer) inlines(n ast.Node, base Style) []Span {
	var out []Span
	r.inline(n, base, "", &out)
	return out
}

func (r *renderer) inline(parent ast.Node, st Style, url string, out *[]Span) {
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Text:
			t := string(n.Segment.Value(r.src))
			*out = append(*out, Span{Text: t, Style: st, URL: url})
			if n.SoftLineBreak() || n.HardLineBreak() {
				*out = append(*out, Span{Text: "\n"})
			}
		case *ast.String:
			*out = append(*out, Span{Text: string(n.Value), Style: st, URL: url})
		case *ast.CodeSpan:
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(r.src))
				} else if s, ok := c.(*ast.String); ok {
					b.Write(s.Value)
				}
			}
			*out = append(*out, Span{Text: b.String(), Style: st | Code, URL: url})
		case *ast.Emphasis:
			s := st | Italic
			if n.Level >= 2 {
				s = st | Bold
			}
			r.inline(n, s, url, out)
		case *Strikethrough:
			r.inline(n, st|Strike, url, out)
		case *TaskCheckBox:
			// drawn by the list with its marker
		case *ast.Link:
			r.link(string(n.Destination), n, st, out)
		case *ast.AutoLink:
			u := string(n.URL(r.src))
			label := string(n.Label(r.src))
			if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(u), "mailto:") {
				u = "mailto:" + u
			} else if strings.HasPrefix(label, "www.") && u == label {
				u = "http://" + label
			}
			tmp := []Span{{Text: label, Style: st | Link | Underline, URL: u}}
			*out = append(*out, tmp...)
			if !r.th.Hyperlinks() && label != u && "mailto:"+label != u && "http://"+label != u {
				*out = append(*out, Span{Text: " (" + u + ")", Style: LinkURL})
			}
		case *ast.Image:
			r.inline(n, st, url, out)
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < n.Segments.Len(); i++ {
				seg := n.Segments.At(i)
				b.Write(seg.Value(r.src))
			}
			if !strings.HasPrefix(b.String(), "<!--") {
				*out = append(*out, Span{Text: b.String(), Style: st})
			}
		default:
			r.inline(n, st, url, out)
		}
	}
}

func (r *renderer) link(dest string, n ast.Node, st Style, out *[]Span) {
	var inner []Span
	r.inline(n, st|Link|Underline, dest, &inner)
	*out = append(*out, inner...)
	if r.th.Hyperlinks() {
		return
	}
	var label strings.Builder
	for _, s := range inner {
		label.WriteString(s.Text)
	}
	cmp := strings.TrimPrefix(dest, "mailto:")
	if label.String() != dest && label.String() != cmp {
		*out = append(*out, Span{Text: " (" + dest + ")", Style: LinkURL})
	}
}

func stripComments(s string) string {
	for {
		i := strings.Index(s, "<!--")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], "-->")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + s[i+j+3:]
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

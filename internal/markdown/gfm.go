package markdown

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// GitHub's extensions to CommonMark (tables, strikethrough, task list items, bare-URL
// autolinks), written here on goldmark's parser interfaces rather than imported from
// goldmark/extension, whose package init compiles regular expressions every pigo process
// would pay for (about 1 ms measured).

// Alignment is a table column's alignment.
type Alignment int

// The alignments.
const (
	AlignNone Alignment = iota
	AlignLeft
	AlignCenter
	AlignRight
)

var (
	kindTable     = ast.NewNodeKind("Table")
	kindTableRow  = ast.NewNodeKind("TableRow")
	kindTableCell = ast.NewNodeKind("TableCell")
	kindStrike    = ast.NewNodeKind("Strikethrough")
	kindTask      = ast.NewNodeKind("TaskCheckBox")
)

// Table is a GFM table: its first row is the header.
type Table struct {
	ast.BaseBlock
	Align []Alignment
}

// Kind implements ast.Node.
func (n *Table) Kind() ast.NodeKind { return kindTable }

// Dump implements ast.Node.
func (n *Table) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// TableRow is one row of a table.
type TableRow struct {
	ast.BaseBlock
	Header bool
}

// Kind implements ast.Node.
func (n *TableRow) Kind() ast.NodeKind { return kindTableRow }

// Dump implements ast.Node.
func (n *TableRow) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// TableCell is one cell; its inline content is parsed by goldmark from its Lines.
type TableCell struct {
	ast.BaseBlock
}

// Kind implements ast.Node.
func (n *TableCell) Kind() ast.NodeKind { return kindTableCell }

// Dump implements ast.Node.
func (n *TableCell) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// Strikethrough is ~~text~~.
type Strikethrough struct{ ast.BaseInline }

// Kind implements ast.Node.
func (n *Strikethrough) Kind() ast.NodeKind { return kindStrike }

// Dump implements ast.Node.
func (n *Strikethrough) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// TaskCheckBox is a task list item's [ ] or [x].
type TaskCheckBox struct {
	ast.BaseInline
	Checked bool
}

// Kind implements ast.Node.
func (n *TaskCheckBox) Kind() ast.NodeKind { return kindTask }

// Dump implements ast.Node.
func (n *TaskCheckBox) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// tableTransformer turns a paragraph whose second line is a delimiter row into a table.
type tableTransformer struct{}

func (tableTransformer) Transform(p *ast.Paragraph, reader text.Reader, pc parser.Context) {
	lines := p.Lines()
	if lines.Len() < 2 {
		return
	}
	src := reader.Source()
	header := lines.At(0)
	delim := lines.At(1)
	align := parseDelimRow(bytes.TrimRight(delim.Value(src), "\r\n"))
	if align == nil {
		return
	}
	head := splitRow(src, header)
	if len(head) != len(align) {
		return
	}
	t := &Table{Align: align}
	t.AppendChild(t, row(src, head, len(align), true))
	for i := 2; i < lines.Len(); i++ {
		seg := lines.At(i)
		cells := splitRow(src, seg)
		if len(cells) == 0 {
			break
		}
		t.AppendChild(t, row(src, cells, len(align), false))
	}
	parent := p.Parent()
	parent.InsertBefore(parent, p, t)
	parent.RemoveChild(parent, p)
}

func row(src []byte, cells []text.Segment, n int, header bool) *TableRow {
	r := &TableRow{Header: header}
	for i := 0; i < n; i++ {
		c := &TableCell{}
		if i < len(cells) {
			ls := text.NewSegments()
			ls.Append(cells[i])
			c.SetLines(ls)
		}
		r.AppendChild(r, c)
	}
	return r
}

// parseDelimRow reads "| :--- | :-: | --: |"; nil when the line is not one.
func parseDelimRow(line []byte) []Alignment {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	if line[0] == '|' {
		line = line[1:]
	}
	if len(line) > 0 && line[len(line)-1] == '|' && (len(line) < 2 || line[len(line)-2] != '\\') {
		line = line[:len(line)-1]
	}
	var out []Alignment
	for _, part := range bytes.Split(line, []byte("|")) {
		c := bytes.TrimSpace(part)
		if len(c) == 0 {
			return nil
		}
		left, right := c[0] == ':', c[len(c)-1] == ':'
		mid := bytes.Trim(c, ":")
		if len(mid) == 0 || len(bytes.Trim(mid, "-")) != 0 {
			return nil
		}
		switch {
		case left && right:
			out = append(out, AlignCenter)
		case left:
			out = append(out, AlignLeft)
		case right:
			out = append(out, AlignRight)
		default:
			out = append(out, AlignNone)
		}
	}
	return out
}

// splitRow cuts a row at unescaped pipes outside code spans, trimming each cell.
func splitRow(src []byte, seg text.Segment) []text.Segment {
	b := seg.Value(src)
	start, stop := 0, len(b)
	for stop > 0 && (b[stop-1] == '\n' || b[stop-1] == '\r' || b[stop-1] == ' ' || b[stop-1] == '\t') {
		stop--
	}
	for start < stop && (b[start] == ' ' || b[start] == '\t') {
		start++
	}
	if start < stop && b[start] == '|' {
		start++
	}
	if stop > start && b[stop-1] == '|' && (stop-2 < start || b[stop-2] != '\\') {
		stop--
	}
	if start >= stop {
		return nil
	}
	var cells []text.Segment
	from := start
	inCode := 0
	for i := start; i < stop; i++ {
		switch {
		case b[i] == '\\' && i+1 < stop:
			i++
		case b[i] == '`':
			n := 1
			for i+n < stop && b[i+n] == '`' {
				n++
			}
			if inCode == 0 {
				inCode = n
			} else if inCode == n {
				inCode = 0
			}
			i += n - 1
		case b[i] == '|' && inCode == 0:
			cells = append(cells, trimSeg(b, seg.Start, from, i))
			from = i + 1
		}
	}
	return append(cells, trimSeg(b, seg.Start, from, stop))
}

func trimSeg(b []byte, base, from, to int) text.Segment {
	for from < to && (b[from] == ' ' || b[from] == '\t') {
		from++
	}
	for to > from && (b[to-1] == ' ' || b[to-1] == '\t') {
		to--
	}
	return text.NewSegment(base+from, base+to)
}

// strikeParser parses ~~text~~ (and ~text~) with goldmark's delimiter machinery.
type strikeParser struct{}

type strikeDelims struct{}

func (strikeDelims) IsDelimiter(b byte) bool { return b == '~' }
func (strikeDelims) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}
func (strikeDelims) OnMatch(consumes int) ast.Node { return &Strikethrough{} }

func (strikeParser) Trigger() []byte { return []byte{'~'} }

func (strikeParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	line, seg := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, strikeDelims{})
	if d == nil || d.OriginalLength > 2 || before == '~' {
		return nil
	}
	d.Segment = seg.WithStop(seg.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

// taskParser reads "[ ] " or "[x] " at the start of a list item's first paragraph.
type taskParser struct{}

func (taskParser) Trigger() []byte { return []byte{'['} }

func (taskParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	if parent.Parent() == nil || parent.Parent().Kind() != ast.KindListItem || parent.Parent().FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 4 || line[0] != '[' || line[2] != ']' || (line[3] != ' ' && line[3] != '\t') {
		return nil
	}
	switch line[1] {
	case ' ':
		block.Advance(4)
		return &TaskCheckBox{}
	case 'x', 'X':
		block.Advance(4)
		return &TaskCheckBox{Checked: true}
	}
	return nil
}

// linkifyParser turns bare http(s):// and www. URLs into autolinks, as GitHub does.
type linkifyParser struct{}

func (linkifyParser) Trigger() []byte { return []byte{' ', '*', '_', '~', '(', 'h', 'w'} }

func (linkifyParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	if pc.IsInLinkLabel() {
		return nil
	}
	line, seg := block.PeekLine()
	consumes := 0
	if len(line) > 0 && (line[0] == ' ' || line[0] == '*' || line[0] == '_' || line[0] == '~' || line[0] == '(') {
		consumes = 1
		line = line[1:]
	} else if prev := block.PrecendingCharacter(); prev != '\n' && prev != utf8.RuneError && !unicode.IsSpace(prev) && prev != '(' && prev != '*' && prev != '_' && prev != '~' {
		return nil
	}
	n := urlLength(line)
	if n == 0 {
		return nil
	}
	if consumes > 0 {
		// Emit the leading character as text, then the link.
		t := ast.NewTextSegment(seg.WithStop(seg.Start + 1))
		block.Advance(1)
		seg = seg.WithStart(seg.Start + 1)
		parent.AppendChild(parent, t)
	}
	link := ast.NewAutoLink(ast.AutoLinkURL, ast.NewTextSegment(text.NewSegment(seg.Start, seg.Start+n)))
	block.Advance(n)
	return link
}

// urlLength is the length of the bare URL at the start of b (0: none). Trailing punctuation
// and an unbalanced closing parenthesis are left out, as GitHub does.
func urlLength(b []byte) int {
	prefix := 0
	switch {
	case bytes.HasPrefix(b, []byte("https://")):
		prefix = 8
	case bytes.HasPrefix(b, []byte("http://")):
		prefix = 7
	case bytes.HasPrefix(b, []byte("www.")):
	default:
		return 0
	}
	end := prefix
	for end < len(b) {
		c := b[end]
		if c <= ' ' || c == '<' || c == '>' || c == '`' || c == '"' {
			break
		}
		end++
	}
	for end > prefix {
		c := b[end-1]
		if bytes.IndexByte([]byte("?!.,:*_~'\";"), c) >= 0 {
			end--
			continue
		}
		if c == ')' && bytes.Count(b[:end], []byte("(")) < bytes.Count(b[:end], []byte(")")) {
			end--
			continue
		}
		break
	}
	host := b[prefix:end]
	if i := bytes.IndexAny(host, "/?#:"); i >= 0 {
		host = host[:i]
	}
	if len(host) == 0 || (bytes.IndexByte(host, '.') < 0 && string(host) != "localhost") {
		return 0
	}
	return end
}

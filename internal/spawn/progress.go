package spawn

import (
	"fmt"
	"strings"
)

// The seed's progress window: the last lines of the log, each line's content folded to a
// width.
const (
	ProgressLines = 5
	ProgressWidth = 21
)

// progress is what a running sub-agent has done so far, as the tool's updates show it: a
// rolling log of `tool:` lines (consecutive calls on one line, "read x 2, ls") and `text:`
// lines (each finished text block), a status line while the child thinks (the characters of
// its thinking so far), and a usage line (turns, cost, context tokens, model).
type progress struct {
	lines []string
	// segs are the finished segments of the current tool line; tool and count the last one.
	// tool is "" when the last line is not a tool line.
	segs  []string
	tool  string
	count int
	// thinking is the characters of the thinking block being streamed; -1 when none is.
	thinking int
	turns    int
	cost     float64
	context  int
	model    string
}

func newProgress() *progress { return &progress{thinking: -1} }

func (p *progress) push(line string) {
	p.lines = append(p.lines, line)
	if len(p.lines) > ProgressLines {
		p.lines = p.lines[len(p.lines)-ProgressLines:]
	}
}

// toolStart adds a tool call: to the tool line that ends the log, or as a new one.
func (p *progress) toolStart(name string) {
	seg := func(name string, n int) string {
		if n > 1 {
			return fmt.Sprintf("%s x %d", name, n)
		}
		return name
	}
	first := p.tool == ""
	switch {
	case first:
		p.segs, p.tool, p.count = nil, name, 1
	case p.tool == name:
		p.count++
	default:
		p.segs = append(p.segs, seg(p.tool, p.count))
		p.tool, p.count = name, 1
	}
	line := "tool: " + fold(strings.Join(append(append([]string{}, p.segs...), seg(p.tool, p.count)), ", "))
	if first || len(p.lines) == 0 {
		p.push(line)
	} else {
		p.lines[len(p.lines)-1] = line
	}
}

// textEnd adds a finished text block; the next tool call starts a new tool line.
func (p *progress) textEnd(text string) {
	p.push("text: " + fold(strings.Join(strings.Fields(text), " ")))
	p.tool = ""
}

func (p *progress) thinkingDelta(delta string) {
	if p.thinking < 0 {
		p.thinking = 0
	}
	p.thinking += len([]rune(delta))
}

func (p *progress) thinkingEnd() { p.thinking = -1 }

// assistantEnd counts a finished assistant message.
func (p *progress) assistantEnd(m *message) {
	p.turns++
	p.thinking = -1
	if m.Usage != nil {
		p.cost += m.Usage.Cost.Total
		p.context = m.Usage.TotalTokens
	}
	if p.model == "" {
		p.model = m.Model
	}
}

// render is the update's text.
func (p *progress) render() string {
	lines := append([]string{}, p.lines...)
	if p.thinking >= 0 {
		lines = append(lines, fmt.Sprintf("thinking: %d chars", p.thinking))
	}
	var usage []string
	if p.turns > 0 {
		s := ""
		if p.turns > 1 {
			s = "s"
		}
		usage = append(usage, fmt.Sprintf("%d turn%s", p.turns, s))
	}
	if p.cost != 0 {
		usage = append(usage, fmt.Sprintf("$%.4f", p.cost))
	}
	if p.context > 0 {
		usage = append(usage, "ctx:"+tokens(p.context))
	}
	if p.model != "" {
		usage = append(usage, p.model)
	}
	if len(usage) > 0 {
		lines = append(lines, strings.Join(usage, " "))
	}
	if len(lines) == 0 {
		return "(running...)"
	}
	return strings.Join(lines, "\n")
}

// fold keeps a line's content within ProgressWidth characters: a longer one keeps its first
// and last characters around " … ".
func fold(s string) string {
	r := []rune(s)
	if len(r) <= ProgressWidth {
		return s
	}
	keep := (ProgressWidth - 3) / 2
	return string(r[:keep]) + " … " + string(r[len(r)-keep:])
}

// tokens writes a token count as 999, 1.2k, 12k, 1.2M.
func tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
}

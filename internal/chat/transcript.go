package chat

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/markdown"
	"github.com/pigo-agent/pigo/internal/termui"
)

// The transcript's layout follows pi's: every entry is preceded by one blank line; a user
// message is a panel with a blank line above and below its text; an answer is Markdown; a
// tool card is a panel with its call, a blank line, the output preview and the duration.
// Lines are padded by outputPad (one column) on both sides.

// previewLines is how many lines of a command's output a collapsed card shows (its tail).
const previewLines = 5

// outputLines is how many lines of other tools' output a collapsed card shows (its head).
const outputLines = 10

func (m *Model) pad() int {
	if p := m.o.UI.OutputPad; p != nil {
		return min(max(*p, 0), 1)
	}
	return 1
}

// lines is the item's rendering at width w, cached until the item changes.
func (m *Model) lines(it *item, w int) []string {
	if !it.dirty && it.cacheW == w && it.cache != nil {
		return it.cache
	}
	it.cache, it.cacheW, it.dirty = m.render(it, w), w, false
	return it.cache
}

// touchAll re-renders every item (a setting that changes every item's look changed).
func (m *Model) touchAll() {
	for _, it := range m.items {
		it.touch()
	}
}

// block pads content lines on both sides and fits them to w, painting a panel background.
func (m *Model) block(content []string, w int, bg string) []string {
	p := m.pad()
	out := make([]string, 0, len(content))
	side := strings.Repeat(" ", p)
	for _, l := range content {
		line := termui.Fit(side+l, w)
		if bg != "" && m.st.Color() {
			line = m.st.Style("", bg, 0, line)
		}
		out = append(out, line)
	}
	return out
}

func (m *Model) render(it *item, w int) []string {
	cw := max(1, w-2*m.pad())
	st := m.st
	var out []string
	switch it.kind {
	case kindHeader:
		return m.header(w)
	case kindUser:
		var body []string
		for _, l := range markdown.Render(it.text, cw, st, markdown.Options{CodeIndent: m.o.UI.CodeIndent}) {
			body = append(body, st.Fg("userMessageText", l))
		}
		if len(body) == 0 {
			body = []string{""}
		}
		out = append(out, "")
		out = append(out, m.block(append(append([]string{""}, body...), ""), w, "userMessageBg")...)
	case kindInfo:
		out = append(out, "")
		for _, l := range termui.Wrap(it.text, cw) {
			out = append(out, m.block([]string{st.Fg("dim", l)}, w, "")...)
		}
	case kindWarning:
		out = append(out, "")
		for _, l := range termui.Wrap(it.text, cw) {
			out = append(out, m.block([]string{st.Fg("warning", l)}, w, "")...)
		}
	case kindError:
		out = append(out, "")
		for _, l := range termui.Wrap(it.text, cw) {
			out = append(out, m.block([]string{st.Fg("error", l)}, w, "")...)
		}
	case kindAssistant:
		if it.thinking != "" {
			out = append(out, "")
			if m.showThinking {
				for _, l := range markdown.Render(it.thinking, cw, st, markdown.Options{}) {
					out = append(out, m.block([]string{st.Style("thinkingText", "", termui.Italic, termuiStrip(l))}, w, "")...)
				}
			} else {
				out = append(out, m.block([]string{st.Style("thinkingText", "", termui.Italic, "Thinking...")}, w, "")...)
			}
		}
		if strings.TrimSpace(it.text) != "" {
			out = append(out, "")
			out = append(out, m.block(markdown.Render(it.text, cw, st, markdown.Options{CodeIndent: m.o.UI.CodeIndent}), w, "")...)
		}
	case kindTool:
		// A card is a panel with a blank line above and below its content.
		out = append(out, "")
		out = append(out, m.block(append(append([]string{""}, m.card(it, cw)...), ""), w, cardBg(it))...)
	case kindBash:
		out = append(out, "")
		out = append(out, m.block(append(append([]string{""}, m.bashCard(it, cw)...), ""), w, cardBg(it))...)
	}
	return out
}

// termuiStrip drops a rendered line's escapes (thinking is drawn in one style).
func termuiStrip(s string) string { return ansiStrip(s) }

func cardBg(it *item) string {
	switch {
	case !it.done:
		return "toolPendingBg"
	case it.isError || (it.bash != nil && it.bash.ExitCode != 0):
		return "toolErrorBg"
	}
	return "toolSuccessBg"
}

// card is a tool call's panel: its title line, then its output or diff, then the duration.
func (m *Model) card(it *item, w int) []string {
	st := m.st
	args := map[string]any{}
	_ = json.Unmarshal(it.args, &args)
	var out []string
	body := it.result
	if !it.done {
		body = it.progress
	}
	switch strings.ToLower(it.tool) {
	case "bash":
		cmd, _ := args["command"].(string)
		out = append(out, termui.Wrap(st.Style("toolTitle", "", termui.Bold, "$ ")+cmd, w)...)
		out = append(out, m.tail(body, w, !it.done)...)
		if it.done && it.took > 0 {
			out = append(out, "", st.Fg("dim", "Took "+seconds(it.took)))
		}
		return out
	}
	title := st.Style("toolTitle", "", termui.Bold, it.tool)
	if s := argSummary(args); s != "" {
		title += " " + st.Fg("accent", s)
	}
	out = append(out, termui.Wrap(title, w)...)
	if strings.ToLower(it.tool) == "read" && it.done && !it.isError && !m.expanded {
		return out // pi's read card shows the file only expanded (an error always)
	}
	switch {
	case it.diff != "" && it.done && !it.isError:
		out = append(out, "")
		out = append(out, m.diffLines(it.diff, w)...)
	case body != "":
		out = append(out, "")
		ls := strings.Split(strings.TrimRight(body, "\n"), "\n")
		more := 0
		if !m.expanded && len(ls) > outputLines {
			more = len(ls) - outputLines
			ls = ls[:outputLines]
		}
		role := "toolOutput"
		if it.isError {
			role = "error"
		}
		for _, l := range ls {
			for _, x := range termui.Wrap(strings.ReplaceAll(l, "\t", "   "), w) {
				out = append(out, st.Fg(role, x))
			}
		}
		if more > 0 {
			out = append(out, m.expandHint(fmt.Sprintf("... (%d more lines,", more)))
		}
	}
	if !it.done && body == "" {
		out = append(out, "", st.Fg("dim", "running…"))
	}
	return out
}

// tail is a command's output as pi's bash card shows it collapsed: the last lines, after a
// line saying how many came before.
func (m *Model) tail(body string, w int, live bool) []string {
	st := m.st
	body = strings.TrimRight(body, "\n")
	if body == "" {
		return nil
	}
	var vis []string
	for _, l := range strings.Split(body, "\n") {
		vis = append(vis, termui.Wrap(strings.ReplaceAll(l, "\t", "   "), w)...)
	}
	out := []string{""}
	if !m.expanded && len(vis) > previewLines {
		hidden := len(vis) - previewLines
		vis = vis[hidden:]
		out = append(out, m.expandHint(fmt.Sprintf("... (%d earlier lines,", hidden)))
	}
	for _, l := range vis {
		out = append(out, st.Fg("toolOutput", l))
	}
	return out
}

func (m *Model) expandHint(lead string) string {
	k := m.km.Text("app.tools.expand")
	if k == "" {
		return m.st.Fg("muted", strings.TrimSuffix(lead, ",")+")")
	}
	return m.st.Fg("muted", lead) + " " + m.st.Fg("dim", k) + m.st.Fg("muted", " to expand)")
}

// bashCard is a `!cmd` the person ran: the command, its output's tail, its exit code.
func (m *Model) bashCard(it *item, w int) []string {
	st := m.st
	b := it.bash
	prefix := "$ "
	if b.Excluded {
		prefix = "$$ "
	}
	out := termui.Wrap(st.Style("bashMode", "", termui.Bold, prefix)+b.Command, w)
	out = append(out, m.tail(b.Output, w, false)...)
	var foot []string
	if b.ExitCode != 0 {
		foot = append(foot, st.Fg("error", fmt.Sprintf("Exit code %d", b.ExitCode)))
	}
	if b.Excluded {
		foot = append(foot, st.Fg("dim", "(not sent to the model)"))
	}
	if it.took > 0 {
		foot = append(foot, st.Fg("dim", "Took "+seconds(it.took)))
	}
	if len(foot) > 0 {
		out = append(out, "", strings.Join(foot, " "))
	}
	return out
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.1fs", d.Seconds())
}

func (m *Model) diffLines(diff string, w int) []string {
	var out []string
	ls := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	more := 0
	if !m.expanded && len(ls) > 20 {
		more = len(ls) - 20
		ls = ls[:20]
	}
	for _, l := range ls {
		role := "toolDiffContext"
		switch {
		case strings.HasPrefix(l, "+"):
			role = "toolDiffAdded"
		case strings.HasPrefix(l, "-"):
			role = "toolDiffRemoved"
		}
		for _, x := range termui.Wrap(strings.ReplaceAll(l, "\t", "   "), w) {
			out = append(out, m.st.Fg(role, x))
		}
	}
	if more > 0 {
		out = append(out, m.expandHint(fmt.Sprintf("... (%d more lines,", more)))
	}
	return out
}

// argSummary is a tool card's argument summary: the path, command, pattern or URL when the
// call has one, else the compact JSON.
func argSummary(m map[string]any) string {
	if qs, ok := m["questions"].([]any); ok && len(qs) > 0 {
		if q, ok := qs[0].(map[string]any); ok {
			if s, ok := q["question"].(string); ok {
				if len(qs) > 1 {
					return fmt.Sprintf("%s (+%d more)", s, len(qs)-1)
				}
				return s
			}
		}
	}
	if ts, ok := m["todos"].([]any); ok {
		return fmt.Sprintf("%d item(s)", len(ts))
	}
	for _, k := range []string{"command", "file_path", "filePath", "path", "pattern", "url", "query"} {
		if s, ok := m[k].(string); ok && s != "" {
			if k == "pattern" {
				if p, ok := m["path"].(string); ok && p != "" {
					return s + " in " + p
				}
			}
			if len(m) > 1 && (k == "file_path" || k == "path" || k == "filePath") {
				if off, ok := m["offset"].(float64); ok {
					s += fmt.Sprintf(":%d", int(off))
				}
			}
			return firstLine(s)
		}
	}
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b, _ := json.Marshal(m)
	return string(b)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// transcript is every transcript line at width w (fullscreen draws a window of it).
func (m *Model) transcript(w int) []string {
	var out []string
	for _, it := range m.items {
		out = append(out, m.lines(it, w)...)
	}
	return out
}

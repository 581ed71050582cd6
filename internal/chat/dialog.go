package chat

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/editor"
	"github.com/pigo-agent/pigo/internal/keymap"
	"github.com/pigo-agent/pigo/internal/termui"
)

// The write-guard dialog's options (reference §1.5), then pigo's session scope, last so the
// reference's options keep their positions.
const (
	optApproveOnce     = "Approve once"
	optBlock           = "Block"
	optBlockReason     = "Block with reason"
	optApproveSession  = "Approve for this session"
	writeReasonPrompt  = "Why was this write denied?"
	optAllowOnce       = "Allow once"
	optRunInSandbox    = "Run this in sandbox"
	optDeny            = "Deny"
	optDenyReason      = "Deny with reason"
	optEditRules       = "Edit approval rules"
	optAllowSession    = "Allow for this session"
	commandReasonTitle = "Why was this command denied?"
)

// dialog is the open dialog: a select list, optionally followed by a text input or a
// checklist. Keys go to it before anything else.
type dialog struct {
	kind  string // "write", "command", "question"
	title string
	opts  []string
	descs []string
	cur   int

	// input is the free-text step (reason, own answer); inputOn shows it.
	inputOn     bool
	inputPrompt string
	input       *editor.Editor

	// multi-select questions and the approval-rules checklist.
	multi   bool
	checked map[int]bool
	rules   bool // the checklist shows the suggestions
	sugg    []string
	ticked  map[int]bool

	// rewind dialogs: the points, or the chosen point and its plan.
	points []Point
	point  Point
	plan   []Restore
	// cmd is what an answered dialog asks the program to run next.
	cmd tea.Cmd
	// start runs a command on the model (set by the model for the rewind dialogs).
	start func(d *dialog, choice int) tea.Cmd

	// pick selectors: the filterable list, and a hint line under it; keep leaves the dialog
	// open after a choice (/settings), whose command goes out through out.
	list *termui.List
	hint string
	keep bool
	out  tea.Cmd

	// back handles Escape in a pick selector first: true keeps the dialog open (the /mcp
	// manager's screens go back); mcp is that manager (mcp.go).
	back func(d *dialog) bool
	mcp  *mcpDialog

	// in is an input request (a command's question while it runs).
	in *inputMsg

	// ask is the request a write, command or question dialog answers.
	ask *askMsg
}

func newWriteDialog(m askMsg) *dialog {
	return &dialog{kind: "write", title: m.req.Title, ask: &m,
		opts: []string{optApproveOnce, optBlock, optBlockReason, optApproveSession}}
}

// commandTitle is the escalation dialog's text (the seed's title was not available to the
// reference; this one names the same facts as the write dialog).
func commandTitle(r approve.Request) string {
	return "Model requests to run a command outside the sandbox:\n\n  Tool:     " + r.Tool + "\n  Command:  " + r.Command + "\n\nAllow?"
}

func newCommandDialog(m askMsg) *dialog {
	d := &dialog{kind: "command", title: commandTitle(m.req), ask: &m,
		opts: []string{optAllowOnce, optRunInSandbox, optDeny, optDenyReason}, ticked: map[int]bool{}}
	d.sugg = m.req.Approval.Suggestions
	if len(d.sugg) > 0 {
		d.opts = append(d.opts, optEditRules)
	}
	d.opts = append(d.opts, optAllowSession)
	return d
}

func newQuestionDialog(m askMsg) *dialog {
	q := m.req.Question
	if q == nil {
		q = &approve.Question{Title: m.req.Title}
	}
	d := &dialog{kind: "question", title: q.Title, ask: &m, multi: q.Multiple, checked: map[int]bool{}}
	for _, o := range q.Options {
		d.opts = append(d.opts, o.Label)
		d.descs = append(d.descs, o.Description)
	}
	d.opts = append(d.opts, q.Other)
	d.descs = append(d.descs, "")
	if q.Multiple {
		d.opts = append(d.opts, q.Done)
		d.descs = append(d.descs, "")
	}
	return d
}

// key handles one key; done reports that the dialog answered and closes.
func (d *dialog) key(k keymap.Key, km *keymap.Map) (done bool) {
	if d.kind == "input" {
		return d.inputKey(k, km)
	}
	is := func(a keymap.Action) bool { return km.Is(k.Name, a) }
	if d.inputOn {
		switch {
		case is(keymap.SelectCancel) && k.Name == "escape":
			// Cancelling the reason input asks again (reference §1.5).
			d.inputOn = false
			d.input.Clear()
		case is(keymap.Submit):
			return d.submitInput()
		default:
			d.input.Handle(k, km)
		}
		return false
	}
	if d.kind == "pick" {
		switch d.list.Handle(k, km) {
		case termui.Chosen:
			if d.keep {
				d.out = d.start(d, 0)
				return false
			}
			d.cmd = d.start(d, 0)
			return true
		case termui.Cancelled:
			return d.back == nil || !d.back(d)
		}
		return false
	}
	n := len(d.opts)
	if n == 0 {
		n = 1
	}
	if d.rules {
		n = len(d.sugg)
	}
	switch {
	case is(keymap.SelectUp) || k.Name == "shift+tab":
		d.cur = (d.cur + n - 1) % n
	case is(keymap.SelectDown) || k.Name == "tab":
		d.cur = (d.cur + 1) % n
	case is(keymap.SelectCancel):
		if d.rules {
			d.rules, d.cur = false, indexOf(d.opts, optEditRules)
			return false
		}
		d.dismiss()
		return true
	case k.Name == "space":
		if d.rules {
			d.ticked[d.cur] = !d.ticked[d.cur]
		} else if d.multi && d.cur < len(d.opts)-2 {
			d.checked[d.cur] = !d.checked[d.cur]
		}
	case is(keymap.SelectConfirm):
		return d.choose()
	case len(k.Name) == 1 && k.Name[0] >= '1' && k.Name[0] <= '9' && int(k.Name[0]-'1') < n:
		d.cur = int(k.Name[0] - '1')
		return d.choose()
	}
	return false
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return 0
}

func (d *dialog) persist() []string {
	var out []string
	for i, s := range d.sugg {
		if d.ticked[i] {
			out = append(out, s)
		}
	}
	return out
}

func (d *dialog) choose() bool {
	if d.rules {
		d.ticked[d.cur] = !d.ticked[d.cur]
		return false
	}
	opt := d.opts[d.cur]
	switch d.kind {
	case "rewind-pick", "rewind-confirm", "pick":
		d.cmd = d.start(d, d.cur)
	case "write":
		switch opt {
		case optApproveOnce:
			d.answer(approve.Decision{Choice: approve.Allow})
		case optApproveSession:
			d.answer(approve.Decision{Choice: approve.AllowSession})
		case optBlock:
			d.answer(approve.Decision{Choice: approve.Deny})
		case optBlockReason:
			d.inputOn, d.inputPrompt, d.input = true, writeReasonPrompt, editor.New()
			return false
		}
	case "command":
		switch opt {
		case optAllowOnce:
			d.answer(approve.Decision{Choice: approve.Allow, Persist: d.persist()})
		case optAllowSession:
			d.answer(approve.Decision{Choice: approve.AllowSession, Persist: d.persist()})
		case optRunInSandbox:
			// Never persists (extensions-behaviour §3.6).
			d.answer(approve.Decision{Choice: approve.RunInSandbox})
		case optDeny:
			d.answer(approve.Decision{Choice: approve.Deny, Persist: d.persist()})
		case optDenyReason:
			d.inputOn, d.inputPrompt, d.input = true, commandReasonTitle, editor.New()
			return false
		case optEditRules:
			d.rules, d.cur = true, 0
			return false
		}
	case "question":
		q := d.ask.req.Question
		switch {
		case opt == q.Other && d.cur == len(q.Options):
			d.inputOn, d.inputPrompt, d.input = true, q.InputPrompt, editor.New()
			return false
		case d.multi && d.cur == len(d.opts)-1: // Done
			var got []string
			for i := range q.Options {
				if d.checked[i] {
					got = append(got, q.Options[i].Label)
				}
			}
			d.answers(got)
		case d.multi:
			d.checked[d.cur] = !d.checked[d.cur]
			return false
		default:
			d.answers([]string{opt})
		}
	}
	return true
}

func (d *dialog) submitInput() bool {
	text := d.input.Expanded()
	switch d.kind {
	case "write":
		d.answer(approve.Decision{Choice: approve.DenyReason, Reason: text})
	case "command":
		d.answer(approve.Decision{Choice: approve.DenyReason, Reason: strings.TrimSpace(text), Persist: d.persist()})
	case "question":
		if strings.TrimSpace(text) == "" {
			d.inputOn = false
			return false
		}
		got := []string{}
		if d.multi {
			q := d.ask.req.Question
			for i := range q.Options {
				if d.checked[i] {
					got = append(got, q.Options[i].Label)
				}
			}
		}
		d.answers(append(got, text))
	}
	return true
}

// dismiss answers a closed dialog: the write and escalation dialogs abort the turn (the
// guard does it), a question is unanswered.
func (d *dialog) dismiss() {
	switch d.kind {
	case "write", "command", "question":
		d.answer(approve.Decision{Choice: approve.Dismissed})
	}
}

// answer sends the person's decision to the asking call.
func (d *dialog) answer(dec approve.Decision) { d.ask.reply <- dec }

// answers sends a question's answers (none: unanswered).
func (d *dialog) answers(got []string) {
	d.answer(approve.Decision{Choice: approve.Answered, Answers: got})
}

// pickRows is how many items a selector shows at once.
const pickRows = 10

// Rewind dialog options.
const (
	optRewindAll  = "Rewind conversation and files"
	optRewindConv = "Rewind conversation only"
	optCancel     = "Cancel"
)

// lines renders the dialog at width w.
func (d *dialog) lines(m *Model, w int) []string {
	if d.kind == "input" {
		return d.inputLines(m, w)
	}
	st := m.st
	var out []string
	if d.mcp != nil {
		out = d.mcp.header(st, w)
	} else {
		for _, l := range strings.Split(d.title, "\n") {
			out = append(out, termui.Wrap(l, w)...)
		}
	}
	out = append(out, "")
	if d.kind == "pick" {
		if f := d.list.Filter(); f != "" {
			out = append(out, st.Fg("dim", "Filter: ")+f)
		}
		out = append(out, d.list.Render(w, st)...)
		hint := d.hint
		if hint == "" {
			hint = "↑↓ navigate · type to filter · enter select · esc cancel"
		}
		return append(out, "", st.Fg("dim", hint))
	}
	if d.rules {
		out = append(out, st.Style("accent", "", termui.Bold, "Allow forever (space ticks, esc returns):"))
		for i, s := range d.sugg {
			box := "[ ] "
			if d.ticked[i] {
				box = "[x] "
			}
			out = append(out, d.optLine(st, i, box+s))
		}
		return out
	}
	for i, o := range d.opts {
		label := o
		if d.multi && i < len(d.opts)-2 {
			if d.checked[i] {
				label = "☑ " + o
			} else {
				label = "☐ " + o
			}
		}
		if d.kind == "command" && o == optEditRules {
			if n := len(d.persist()); n > 0 {
				label += " (" + itoa(n) + " ticked)"
			}
		}
		line := d.optLine(st, i, label)
		if i < len(d.descs) && d.descs[i] != "" {
			line += st.Fg("dim", " — "+d.descs[i])
		}
		out = append(out, line)
	}
	if d.inputOn {
		out = append(out, "", d.inputPrompt)
		out = append(out, d.input.Render(w, editor.Styles{Border: func(s string) string { return st.Fg("border", s) },
			Cursor: func(s string) string { return st.Reverse(s) }}, "")...)
	}
	return out
}

func (d *dialog) optLine(st *termui.Styles, i int, label string) string {
	if i == d.cur && !d.inputOn {
		if st.Color() {
			return st.Fg("accent", "→ "+label)
		}
		return st.Reverse("→ " + label)
	}
	return "  " + label
}

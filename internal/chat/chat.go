// Package chat is `pigo` on a terminal (spec D22): one Bubble Tea program around a session
// ([Session], which *app.Session implements: the chat talks to the session through that one
// interface). It streams the model's answer (Markdown rendered once a message ends), shows thinking
// collapsed, draws one card per tool call with its progress and result, asks the person the
// write-guard, escalation and question dialogs, keeps a todo widget, and a footer with the
// model, thinking level, context use and the usage and cost of the last turn and in total.
//
// The agent runs in its own goroutine; its events, the session's notices and the tools'
// dialogs reach the program as messages through a Bridge (the session's front end and its one
// approve.Approver), so Update never does I/O and never waits: a tool that asks blocks only
// itself; the "always allow" rules a person ticks are saved by the session's approvals. Esc aborts the run; typing while the agent works steers it (Enter) or queues a
// follow-up (Alt+Enter), as pi does.
//
// Slash commands are the session's (its one dispatcher, shared with `pigo -p`): the interactive
// ones (/new, /name, /model, /compact, /fork, /resume, /tree, /reload, /session) run off the
// UI goroutine; typed without an argument, those with a selector (/model, /fork, /resume,
// /tree) first open it, filtered as one types, whose choice becomes the argument. /quit,
// /config, /rewind and /hotkeys are the chat's own.
package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/llm"
)

// Options configure a chat.
type Options struct {
	// Session is the session the chat drives; Bridge is its front end and approver (the
	// session was opened with it).
	Session Session
	Bridge  *Bridge
	// Prompt, when set, is sent first.
	Prompt string
	// Start, when set, is a slash command run at start instead (`pigo -r` is "/resume").
	Start string
	// Color enables colours and Markdown styling.
	Color bool
	// Config opens the configuration explorer (/config); nil: not available.
	Config func() tea.Cmd
	// Rewind keeps the files' before-images (the session records them); nil: /rewind is not
	// available.
	Rewind *Rewind
	// Width and Height are the terminal's size at start (0: 80×24 until the program reports
	// it), so the first frames already fit.
	Width, Height int
}

// pickOpenMsg opens a computed selector; pickMsg runs the command with the choice.
type pickOpenMsg struct {
	name string
	p    app.Picker
	err  error
}

type pickMsg struct{ name, arg string }

// hostDoneMsg ends a command the session ran.
type hostDoneMsg struct {
	r   app.Result
	err error
}

// Run runs the chat on a terminal until the person quits.
func Run(o Options, in io.Reader, out io.Writer) error {
	r := lipgloss.NewRenderer(out)
	if !o.Color {
		r.SetColorProfile(termenv.Ascii)
	}
	m := New(o, r)
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithInput(in), tea.WithOutput(out))
	_, err := p.Run()
	o.Session.Abort()
	return err
}

// kinds of transcript items.
const (
	kindUser = iota
	kindAssistant
	kindTool
	kindInfo
	kindError
)

// item is one transcript entry with its rendering cached per width (only the streaming
// message and running tool cards are re-rendered, so a long transcript stays cheap).
type item struct {
	kind     int
	text     string
	thinking string
	final    bool

	// tool cards
	callID, tool, args string
	progress           string
	result             string
	diff               string
	isError, done      bool

	cache  []string
	cacheW int
	dirty  bool
}

func (it *item) touch() { it.dirty = true }

// Model is the chat's Bubble Tea model.
type Model struct {
	o  Options
	st styles
	r  *lipgloss.Renderer
	md *markdown

	width, height int

	items  []*item
	calls  map[string]*item
	stream *item

	input   []rune
	running bool
	dialog  *dialog
	pending []tea.Msg // dialogs waiting behind the open one

	steering, followUp []string
	todo               []string

	turn, total llm.Usage
	contextUsed int
	// state is the session's model and thinking level, as the footer shows them.
	state app.State

	// hosting is true while a host command (not the agent) runs.
	hosting      bool
	showThinking bool
	scroll       int
	frame        int
	quitting     bool
	status       string
	complete     []app.Completion
	compIdx      int
}

// New returns the chat model; r renders the styles (tests pass an Ascii one).
func New(o Options, r *lipgloss.Renderer) *Model {
	if o.Bridge == nil {
		o.Bridge = NewBridge()
	}
	m := &Model{o: o, r: r, st: newStyles(r, o.Color), calls: map[string]*item{}, width: 80, height: 24}
	if o.Width > 0 && o.Height > 0 {
		m.width, m.height = max(o.Width, 20), max(o.Height, 6)
	}
	m.md = newMarkdown(m.st)
	m.state = o.Session.State()
	m.history(o.Session.Messages())
	return m
}

// history shows the messages of a continued session.
func (m *Model) history(msgs []llm.Message) {
	for i := range msgs {
		msg := &msgs[i]
		switch msg.Role {
		case llm.RoleUser:
			m.add(&item{kind: kindUser, text: messageText(msg), final: true})
		case llm.RoleAssistant:
			it := &item{kind: kindAssistant, final: true}
			fill(it, msg)
			m.add(it)
			for _, c := range msg.Content {
				if c.Type == llm.TypeToolCall {
					card := &item{kind: kindTool, callID: c.ID, tool: c.Name, args: argSummary(c.Arguments)}
					m.calls[c.ID] = card
					m.add(card)
				}
			}
		case llm.RoleToolResult:
			if card := m.calls[msg.ToolCallID]; card != nil {
				card.done, card.isError, card.result = true, msg.IsError != nil && *msg.IsError, messageText(msg)
				card.diff = detailsDiff(msg.Details)
				m.updateTodo(card.tool, msg.Details)
			}
		}
	}
}

func (m *Model) add(it *item) {
	it.dirty = true
	m.items = append(m.items, it)
}

// tickMsg advances the spinner: a frame every 100 ms while the agent works.
type tickMsg struct{}

// doneMsg ends a run (sent through the bridge, after the run's last event).
type doneMsg struct {
	last *llm.Message
	err  error
	out  string
}

// eventMsg is one agent event.
type eventMsg struct{ e agent.Event }

func tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

// Init starts listening to the bridge and sends the first prompt.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.o.Bridge.listen(), m.first())
}

// first is what runs at start: the start command, else the first prompt.
func (m *Model) first() tea.Cmd {
	switch {
	case m.o.Start != "":
		return m.submit(m.o.Start, false)
	case m.o.Prompt != "":
		return m.submit(m.o.Prompt, false)
	}
	return nil
}

// submit starts a run, or while one runs queues text as steering or a follow-up.
func (m *Model) submit(text string, followUp bool) tea.Cmd {
	sess := m.o.Session
	if strings.HasPrefix(text, "!") && !m.running {
		arg, exclude := strings.TrimPrefix(text, "!"), false
		if strings.HasPrefix(arg, "!") {
			arg, exclude = arg[1:], true
		}
		if arg = strings.TrimSpace(arg); arg != "" {
			m.add(&item{kind: kindUser, text: text, final: true})
			return m.host(func(ctx context.Context) (app.Result, error) { return sess.UserBash(ctx, arg, exclude) })
		}
	}
	if strings.HasPrefix(text, "/") {
		if cmd, ok := m.command(text); ok {
			return cmd
		}
	}
	if m.hosting {
		m.info("Wait for the command to finish (Esc cancels it)")
		return nil
	}
	if m.running {
		if followUp {
			sess.FollowUp(text)
		} else {
			sess.Steer(text)
		}
		return nil
	}
	if m.o.Rewind != nil {
		m.o.Rewind.Begin(sess.Leaf(), text)
	}
	m.running = true
	m.turn = llm.Usage{}
	b := m.o.Bridge
	go func() {
		var out strings.Builder
		r, err := sess.Prompt(context.Background(), text, &out)
		b.ch <- doneMsg{last: r.Message, err: err, out: out.String()}
	}()
	return tick()
}

// command runs a slash command: the chat's own ones here, the session's interactive ones
// (with their selector when typed without an argument) off the UI goroutine. Others go to
// Prompt, which runs or expands them.
func (m *Model) command(text string) (tea.Cmd, bool) {
	name, arg, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case "quit", "exit":
		m.quitting = true
		m.o.Session.Abort()
		return tea.Quit, true
	case "config":
		if m.o.Config == nil {
			m.info("the configuration explorer is not available here")
			return nil, true
		}
		return m.o.Config(), true
	case "rewind":
		m.openRewind()
		return nil, true
	case "hotkeys":
		m.info(hotkeys)
		return nil, true
	}
	c, ok := m.o.Session.Lookup(name)
	if !ok || !c.Interactive {
		return nil, false
	}
	if m.running {
		m.info("Wait for the agent to finish (or press Esc) before /" + name)
		return nil, true
	}
	sess := m.o.Session
	if c.Pick != nil && arg == "" {
		return func() tea.Msg {
			p, err := sess.Pick(context.Background(), name)
			return pickOpenMsg{name, p, err}
		}, true
	}
	return m.runCommand(name, arg), true
}

// runCommand runs the session's command name in the background.
func (m *Model) runCommand(name, arg string) tea.Cmd {
	sess := m.o.Session
	return m.host(func(ctx context.Context) (app.Result, error) { return sess.Run(ctx, name, arg) })
}

// hotkeys is the /hotkeys text.
const hotkeys = "Tab complete a /command · Enter send (steer while the agent works) · Alt+Enter queue a follow-up · Esc abort · Ctrl+T show thinking · PgUp/PgDn scroll · Ctrl+C quit"

func (m *Model) info(s string) { m.add(&item{kind: kindInfo, text: s, final: true}) }

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
		return m, nil
	case tickMsg:
		if !m.running {
			return m, nil
		}
		m.frame++
		return m, tick()
	case eventMsg:
		m.event(msg.e)
		return m, m.o.Bridge.listen()
	case doneMsg:
		m.running = false
		if msg.out != "" {
			m.info(strings.TrimRight(msg.out, "\n"))
		}
		if msg.err != nil {
			m.add(&item{kind: kindError, text: msg.err.Error(), final: true})
		}
		if l := msg.last; l != nil && l.StopReason == llm.StopError && l.ErrorMessage != "" {
			m.add(&item{kind: kindError, text: l.ErrorMessage, final: true})
		}
		if l := msg.last; l != nil && l.StopReason == llm.StopAborted {
			m.add(&item{kind: kindInfo, text: "Operation aborted", final: true})
		}
		m.steering, m.followUp = nil, nil
		return m, m.o.Bridge.listen()
	case noticeMsg:
		if msg.n.Error {
			m.add(&item{kind: kindError, text: msg.n.Text, final: true})
		} else {
			m.info(msg.n.Text)
		}
		return m, m.o.Bridge.listen()
	case askMsg:
		if m.dialog != nil {
			m.pending = append(m.pending, msg)
		} else {
			m.open(msg)
		}
		return m, m.o.Bridge.listen()
	case cancelDialogMsg:
		// The asking call was aborted: its answer is no longer read.
		m.dialog = nil
		m.next()
		return m, m.o.Bridge.listen()
	case tea.KeyMsg:
		return m, m.key(msg)
	case hostDoneMsg:
		m.running, m.hosting = false, false
		if msg.err != nil {
			m.add(&item{kind: kindError, text: msg.err.Error(), final: true})
		}
		m.state = m.o.Session.State()
		if msg.r.Input != "" {
			m.input = []rune(msg.r.Input)
		}
		if msg.r.Reset {
			m.items, m.calls, m.stream, m.todo = nil, map[string]*item{}, nil, nil
			m.history(m.o.Session.Messages())
		}
		if msg.r.Text != "" {
			m.info(msg.r.Text)
		}
		return m, nil
	case pickOpenMsg:
		m.openPick(msg)
		return m, nil
	case pickMsg:
		if !m.running {
			return m, m.runCommand(msg.name, msg.arg)
		}
		return m, nil
	case rewindPlanMsg:
		m.openRewindConfirm(msg.p, msg.plan)
		return m, nil
	case rewindDoneMsg:
		m.rewound(msg)
		return m, nil
	}
	return m, nil
}

func (m *Model) open(msg tea.Msg) {
	if v, ok := msg.(askMsg); ok {
		switch v.req.Kind {
		case approve.KindWrite:
			m.dialog = newWriteDialog(v)
		case approve.KindCommand:
			m.dialog = newCommandDialog(v)
		default:
			m.dialog = newQuestionDialog(v)
		}
	}
	m.scroll = 0
}

func (m *Model) next() {
	if len(m.pending) > 0 {
		msg := m.pending[0]
		m.pending = m.pending[1:]
		m.open(msg)
	}
}

func (m *Model) key(k tea.KeyMsg) tea.Cmd {
	if k.Type == tea.KeyCtrlC {
		if len(m.input) > 0 {
			m.input = nil
			return nil
		}
		m.quitting = true
		m.o.Session.Abort()
		return tea.Quit
	}
	if d := m.dialog; d != nil {
		if d.key(k) {
			if d.cmd != nil {
				m.dialog = nil
				m.next()
				return d.cmd
			}
			// The ticked "always allow" patterns went with the answer: the session's
			// approvals save them off the UI goroutine and report it as a notice.
			m.dialog = nil
			m.next()
		}
		return nil
	}
	switch k.Type {
	case tea.KeyEsc:
		if m.running {
			m.o.Session.Abort()
			return nil
		}
		m.complete = nil
	case tea.KeyTab:
		if len(m.complete) > 0 {
			c := m.complete[m.compIdx%len(m.complete)]
			m.input = []rune("/" + c.Name + " ")
			m.complete = nil
		}
		return nil
	case tea.KeyEnter:
		text := strings.TrimSpace(string(m.input))
		if text == "" {
			return nil
		}
		m.input = nil
		m.complete = nil
		m.scroll = 0
		return m.submit(text, k.Alt)
	case tea.KeyBackspace:
		if len(m.input) > 0 {
			m.input = m.input[:len(m.input)-1]
		}
	case tea.KeySpace:
		m.input = append(m.input, ' ')
	case tea.KeyRunes:
		m.input = append(m.input, k.Runes...)
	case tea.KeyCtrlT:
		m.showThinking = !m.showThinking
		for _, it := range m.items {
			if it.thinking != "" {
				it.touch()
			}
		}
		return nil
	case tea.KeyPgUp:
		m.scroll += max(1, m.height/2)
		return nil
	case tea.KeyPgDown:
		m.scroll = max(0, m.scroll-max(1, m.height/2))
		return nil
	case tea.KeyUp:
		if len(m.complete) > 0 {
			m.compIdx = (m.compIdx + len(m.complete) - 1) % len(m.complete)
		}
		return nil
	case tea.KeyDown:
		if len(m.complete) > 0 {
			m.compIdx = (m.compIdx + 1) % len(m.complete)
		}
		return nil
	default:
		return nil
	}
	m.updateCompletion()
	return nil
}

// updateCompletion refreshes the slash menu for the typed command word.
func (m *Model) updateCompletion() {
	s := string(m.input)
	m.complete, m.compIdx = nil, 0
	if !strings.HasPrefix(s, "/") || strings.Contains(s, " ") {
		return
	}
	m.complete = m.o.Session.Completions(s[1:])
}

// event applies one agent event to the transcript.
func (m *Model) event(e agent.Event) {
	switch e.Type {
	case agent.EventMessageStart:
		if e.Message == nil {
			return
		}
		switch e.Message.Role {
		case llm.RoleUser:
			m.add(&item{kind: kindUser, text: messageText(e.Message), final: true})
		case llm.RoleAssistant:
			m.stream = &item{kind: kindAssistant}
			fill(m.stream, e.Message)
			m.add(m.stream)
		}
	case agent.EventMessageUpdate:
		if m.stream != nil && e.Message != nil {
			fill(m.stream, e.Message)
			m.stream.touch()
		}
	case agent.EventMessageEnd:
		if e.Message != nil && e.Message.Role == llm.RoleAssistant {
			if m.stream == nil {
				m.stream = &item{kind: kindAssistant}
				m.add(m.stream)
			}
			fill(m.stream, e.Message)
			m.stream.final = true
			m.stream.touch()
			m.stream = nil
			if u := e.Message.Usage; u != nil {
				addUsage(&m.turn, u)
				addUsage(&m.total, u)
				m.contextUsed = u.TotalTokens
				if m.contextUsed == 0 {
					m.contextUsed = u.Input + u.Output + u.CacheRead + u.CacheWrite
				}
			}
		}
	case agent.EventToolExecutionStart:
		card := &item{kind: kindTool, callID: e.ToolCallID, tool: e.ToolName, args: argSummary(e.Args)}
		m.calls[e.ToolCallID] = card
		m.add(card)
	case agent.EventToolExecutionUpdate:
		if card := m.calls[e.ToolCallID]; card != nil && e.Result != nil {
			card.progress = contentText(e.Result.Content)
			card.touch()
		}
	case agent.EventToolExecutionEnd:
		if card := m.calls[e.ToolCallID]; card != nil {
			card.done, card.isError = true, e.IsError
			if e.Result != nil {
				card.result = contentText(e.Result.Content)
				card.diff = detailsDiff(e.Result.Details)
				m.updateTodo(e.ToolName, e.Result.Details)
			}
			card.touch()
		}
	case agent.EventQueueUpdate:
		m.steering, m.followUp = e.Steering, e.FollowUp
	case agent.EventCompactionStart:
		m.info("Compacting context (" + e.Reason + ")…")
	case agent.EventCompactionEnd:
		switch {
		case e.Aborted:
			m.info("Compaction aborted")
		case e.ErrorMessage != "":
			m.add(&item{kind: kindError, text: e.ErrorMessage, final: true})
		case e.Compaction != nil:
			m.info(fmt.Sprintf("Compacted: %s tokens before", tokens(e.Compaction.TokensBefore)))
		}
	case agent.EventAutoRetryStart:
		m.info(fmt.Sprintf("Retrying (%d/%d) in %ds: %s", e.Attempt, e.MaxAttempts, e.DelayMs/1000, e.ErrorMessage))
	}
}

func (m *Model) updateTodo(tool string, details json.RawMessage) {
	if len(details) == 0 {
		return
	}
	if lines := app.TodoLines(tool, details); lines != nil {
		m.todo = lines
	}
}

func addUsage(a *llm.Usage, u *llm.Usage) {
	a.Input += u.Input
	a.Output += u.Output
	a.CacheRead += u.CacheRead
	a.CacheWrite += u.CacheWrite
	a.TotalTokens += u.TotalTokens
	a.Cost.Total += u.Cost.Total
}

// fill copies a message's text and thinking into an item.
func fill(it *item, msg *llm.Message) {
	var text, think strings.Builder
	for _, c := range msg.Content {
		switch c.Type {
		case llm.TypeText:
			text.WriteString(c.Text)
		case llm.TypeThinking:
			think.WriteString(c.Thinking)
		}
	}
	it.text, it.thinking = text.String(), think.String()
}

func messageText(msg *llm.Message) string { return contentText(msg.Content) }

func contentText(cs []llm.Content) string {
	var b strings.Builder
	for _, c := range cs {
		switch c.Type {
		case llm.TypeText:
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(c.Text)
		case llm.TypeImage:
			b.WriteString("[image]")
		}
	}
	return b.String()
}

// argSummary is a tool card's one-line argument summary: the path, command, pattern or URL
// when the call has one, else the compact JSON.
func argSummary(raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return string(raw)
	}
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
			return s
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// detailsDiff is the diff an edit tool put into its details ("" for none).
func detailsDiff(raw json.RawMessage) string {
	var d struct {
		Diff string `json:"diff"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return ""
	}
	return d.Diff
}

func itoa(n int) string { return fmt.Sprint(n) }

// tokens formats a token count as pi's footer does (1234 → 1.2k).
func tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1000000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// rewindPlanMsg carries a computed rewind plan (reading the files is I/O, done in a Cmd).
type rewindPlanMsg struct {
	p    Point
	plan []Restore
}

// rewindDoneMsg reports a finished rewind.
type rewindDoneMsg struct {
	p Point
	// restored is true when the session moved back to the point.
	restored bool
	files    []Restore
	err      error
}

// openRewind offers the prompts of this chat to go back to, newest first.
func (m *Model) openRewind() {
	if m.running {
		m.info("Wait for the agent to finish (or press Esc) before /rewind")
		return
	}
	if m.o.Rewind == nil {
		m.info("/rewind is not available in this session")
		return
	}
	pts := m.o.Rewind.Points()
	if len(pts) == 0 {
		m.info("Nothing to rewind to yet")
		return
	}
	d := &dialog{kind: "rewind-pick", title: "Rewind to before which prompt?", points: pts}
	for _, p := range pts {
		d.opts = append(d.opts, firstLine(p.Text))
	}
	rw := m.o.Rewind
	d.start = func(d *dialog, i int) tea.Cmd {
		p := d.points[i]
		return func() tea.Msg { return rewindPlanMsg{p, rw.Plan(p)} }
	}
	m.dialog = d
}

func (m *Model) openRewindConfirm(p Point, plan []Restore) {
	d := &dialog{kind: "rewind-confirm", title: PlanText(p, plan), point: p, plan: plan,
		opts: []string{optRewindAll, optRewindConv, optCancel}}
	rw, sess := m.o.Rewind, m.o.Session
	d.start = func(d *dialog, i int) tea.Cmd {
		if d.opts[i] == optCancel {
			return func() tea.Msg { return nil }
		}
		files := d.opts[i] == optRewindAll
		p, plan := d.point, d.plan
		return func() tea.Msg {
			var err error
			if files {
				err = rw.Apply(p, plan)
			} else {
				plan = nil
				err = rw.Apply(p, nil)
			}
			rerr := sess.SetLeaf(p.Leaf)
			return rewindDoneMsg{p: p, restored: rerr == nil, files: plan, err: errors.Join(err, rerr)}
		}
	}
	m.dialog = d
}

// rewound shows the conversation as it was before the point, with its prompt back in the
// input to edit and resend.
func (m *Model) rewound(msg rewindDoneMsg) {
	if msg.restored {
		m.items, m.calls, m.stream, m.todo = nil, map[string]*item{}, nil, nil
		m.history(m.o.Session.Messages())
		m.input = []rune(msg.p.Text)
	}
	n := 0
	for _, rs := range msg.files {
		if rs.Refused == "" {
			n++
		}
	}
	m.info(fmt.Sprintf("Rewound to before %q; %d file(s) restored", firstLine(msg.p.Text), n))
	for _, rs := range msg.files {
		if rs.Refused != "" {
			m.add(&item{kind: kindError, text: "Not restored: " + rs.Path + " (" + rs.Refused + ")", final: true})
		}
	}
	if msg.err != nil {
		m.add(&item{kind: kindError, text: "rewind: " + msg.err.Error(), final: true})
	}
}

// host runs a session command in the background (Esc aborts it through the session); the
// chat shows it working meanwhile.
func (m *Model) host(f func(ctx context.Context) (app.Result, error)) tea.Cmd {
	m.running, m.hosting = true, true
	return tea.Batch(tick(), func() tea.Msg {
		r, err := f(context.Background())
		return hostDoneMsg{r, err}
	})
}

// openPick shows a host command's selector; choosing runs the command with the item's Arg.
func (m *Model) openPick(msg pickOpenMsg) {
	switch {
	case msg.err != nil:
		m.add(&item{kind: kindError, text: msg.err.Error(), final: true})
		return
	case len(msg.p.Items) == 0:
		if msg.p.Empty != "" {
			m.info(msg.p.Empty)
		}
		return
	}
	if m.dialog != nil {
		return
	}
	d := &dialog{kind: "pick", title: msg.p.Title, cur: min(max(msg.p.Current, 0), len(msg.p.Items)-1)}
	for i, it := range msg.p.Items {
		d.opts = append(d.opts, it.Label)
		d.all = append(d.all, it.Label)
		d.shown = append(d.shown, i)
	}
	items, name := msg.p.Items, msg.name
	d.start = func(d *dialog, i int) tea.Cmd {
		arg := items[d.shown[i]].Arg
		return func() tea.Msg { return pickMsg{name, arg} }
	}
	m.dialog = d
	m.scroll = 0
}

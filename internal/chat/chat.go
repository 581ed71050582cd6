// Package chat is `pigo` on a terminal (spec D22), the daily driver: one Bubble Tea program
// around an agent, drawn and keyed as pi 1.6 does.
//
// The transcript lives in one of pi's two modes (settings tuiMode): fullscreen (the default)
// draws it in the alternate screen with its own scrolling — PageUp/PageDown, the mouse wheel,
// Ctrl+Home/End, Ctrl+Up/Down between prompts, Ctrl+Shift+F to search — and prints it into the
// terminal when the chat exits; regular mode prints each finished entry into the terminal's
// own scrollback, so the terminal's search and copy hold it, and keeps only the live part
// (the streaming answer, running tools, the editor, the footer) redrawn at the bottom. Either
// way the chat ends with pi's "To resume this session:" line.
//
// The prompt editor is package editor (pi's bindings, graphemes, kills and yank, undo,
// history, paste markers), keys come through package keymap (the person's
// keybindings.json, extended keys decoded), answers are Markdown drawn by package markdown,
// colours come from a pi theme through package termui. Tool cards show a command and the
// tail of its output with its duration; Ctrl+O expands them, Ctrl+T shows thinking.
//
// The agent runs in its own goroutine; its events and the tools' dialogs reach the program as
// messages through a Bridge, so Update never does I/O and never waits: a tool that asks blocks
// only itself. Esc aborts the run; typing while the agent works steers it (Enter) or queues a
// follow-up (Alt+Enter), as pi does.
//
// Slash commands that change the session (/new, /name, /model, /compact, /fork, /resume,
// /tree, /reload, …) are the command line's host commands, run off the UI goroutine; typed
// without an argument, those with a Picker first open a selector, filtered as one types,
// whose choice becomes the argument. The menu lists only commands that run.
package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/editor"
	"github.com/pigo-agent/pigo/internal/keymap"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/termui"
	"github.com/pigo-agent/pigo/internal/theme"
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
	// Theme is the colour theme (nil: pi's system theme for an unknown palette).
	Theme *theme.Theme
	// Hyperlinks draws links as OSC 8 hyperlinks.
	Hyperlinks bool
	// Keys is the key map (nil: pi's defaults).
	Keys *keymap.Map
	// UI holds the terminal and display settings.
	UI UI
	// Version is pigo's version for the header.
	Version string
	// Notices are start-up warnings shown under the header.
	Notices []string
	// Cwd is the working directory the footer shows (HOME abbreviated to ~).
	Cwd, Home string
	// SessionDir is the session folder when it is not the default one (the resume line
	// names it).
	SessionDir string
	// AutoCompact marks the footer's context figure with "(auto)".
	AutoCompact bool
	// Providers is how many providers have models (the footer names the provider when >1).
	Providers int
	// Config opens the configuration explorer (/config) inside the chat; nil: not available.
	Config func(w, h int) Embedded
	// Rewind keeps the files' before-images (the session records them); nil: /rewind is not
	// available.
	Rewind *Rewind
	// Width and Height are the terminal's size at start (0: 80×24 until the program reports
	// it), so the first frames already fit.
	Width, Height int
	// Out is the terminal (for OSC 52 copies); Run sets it.
	Out io.Writer
	// Clipboard copies text to the system clipboard (nil: OSC 52 only).
	Clipboard func(text string) error
}

// UI are pi's terminal and display settings the chat follows.
type UI struct {
	// Mode is "fullscreen" (pi's default) or "regular".
	Mode string
	// ExitOutput is what fullscreen mode prints on exit: "transcript" (default) or "resume-hint".
	ExitOutput string
	// Quiet hides the start-up header ("true"), or keeps only its first lines ("header").
	Quiet string
	// HideThinking starts with thinking blocks collapsed (hideThinkingBlock).
	HideThinking bool
	// CodeIndent prefixes code block lines (markdown.codeBlockIndent).
	CodeIndent string
	// MaxVisible is how many autocomplete entries show (autocompleteMaxVisible, 3-20).
	MaxVisible int
	// ExternalEditor is the command Ctrl+G runs (else $VISUAL, $EDITOR, nano).
	ExternalEditor string
	// DoubleEscape is what a double Escape on an empty editor does: "tree", "fork", "none".
	DoubleEscape string
	// EditorPadding is the editor's horizontal padding (editorPaddingX, 0-3).
	EditorPadding int
	// OutputPad is the transcript's horizontal padding (outputPad, 0 or 1; default 1).
	OutputPad *int
	// Env reads the environment ($VISUAL, $EDITOR); nil: none.
	Env func(string) string
}

// Embedded is a Bubble Tea component drawn inside the chat (the configuration explorer):
// keys and sizes go to it while it is open; Done reports it wants to close.
type Embedded interface {
	Init() tea.Cmd
	Update(tea.Msg) (Embedded, tea.Cmd)
	View() string
	Done() bool
}

// BashRun is a `!cmd` the person ran, as its card shows it.
type BashRun struct {
	Command, Output string
	ExitCode        int
	Excluded        bool
	Duration        time.Duration
}

// pickOpenMsg opens a computed selector; pickMsg runs the command with the choice.
type pickOpenMsg struct {
	name string
	p    app.Picker
	err  error
}

type pickMsg struct{ name, arg string }

// hostDoneMsg ends a command the session ran; bash marks a `!cmd`.
type hostDoneMsg struct {
	r    app.Result
	err  error
	bash *BashRun
	// name is the session command that ran (its question, r.Ask, runs it again).
	name string
}

// Run runs the chat on a terminal until the person quits, then prints what pi prints on exit.
func Run(o Options, in io.Reader, out io.Writer) error {
	r := lipgloss.NewRenderer(out)
	if !o.Color {
		r.SetColorProfile(termenv.Ascii)
	}
	o.Out = out
	m := New(o, r)
	opts := []tea.ProgramOption{tea.WithInput(in), tea.WithOutput(out)}
	if m.fullscreen {
		opts = append(opts, tea.WithAltScreen(), tea.WithMouseCellMotion())
	}
	// Ask for extended key reports (xterm modifyOtherKeys 2): tmux with extended-keys and
	// modern terminals then tell Shift+Enter from Enter; keymap decodes what they send.
	io.WriteString(out, "\x1b[>4;2m")
	defer io.WriteString(out, "\x1b[>4;0m")
	p := tea.NewProgram(m, opts...)
	final, err := p.Run()
	o.Session.Abort()
	if fm, ok := final.(*Model); ok {
		io.WriteString(out, "\x1b[>4;0m")
		io.WriteString(out, fm.exitText())
	}
	return err
}

// kinds of transcript items.
const (
	kindUser = iota
	kindAssistant
	kindTool
	kindInfo
	kindError
	kindWarning
	kindBash
	kindHeader
)

// item is one transcript entry with its rendering cached per width (only the streaming
// message and running tool cards are re-rendered, so a long transcript stays cheap).
type item struct {
	kind     int
	text     string
	thinking string
	final    bool
	// status marks a status line: the next status replaces it while it is the last entry.
	status bool

	// tool cards
	callID, tool string
	args         json.RawMessage
	progress     string
	result       string
	diff         string
	isError      bool
	done         bool
	started      time.Time
	took         time.Duration
	// bash runs (!cmd)
	bash *BashRun

	cache  []string
	cacheW int
	dirty  bool
}

func (it *item) touch() { it.dirty = true }

// Model is the chat's Bubble Tea model.
type Model struct {
	o          Options
	km         *keymap.Map
	st         *termui.Styles
	ed         *editor.Editor
	fullscreen bool

	width, height int

	items  []*item
	calls  map[string]*item
	stream *item
	// printed is how many items regular mode has printed into the scrollback.
	printed int

	running bool
	// hosting is true while a host command (not the agent) runs.
	hosting bool
	// cancelHost stops the running host command the chat itself runs (/share); Esc calls it.
	cancelHost context.CancelFunc
	dialog     *dialog
	pending    []tea.Msg // dialogs waiting behind the open one
	// under is the /mcp manager while a command's question (its sign-in screen) is open over
	// it; it comes back when the question is answered.
	under *dialog
	embed Embedded // the configuration explorer while open

	steering, followUp []string
	todo               []string

	expanded     bool // Ctrl+O: tool output expanded
	showThinking bool

	menu       *menu
	lastCtrlC  time.Time
	lastEscape time.Time

	// fullscreen transcript position: lines scrolled up from the bottom (0 follows output).
	scroll int
	search *search

	frame    int
	quitting bool
	status   string
	// statusUntil clears a transient status (a copy confirmation).
	statusUntil time.Time

	// state is the session's model and thinking level, as the footer shows them.
	state app.State

	// turn is the running turn's usage (the footer's totals come from the session).
	turn llm.Usage
	// live counts usage not yet in a session (in memory, or before the first flush).
	live         llm.Usage
	contextUsed  int
	contextKnown bool

	// the footer's caches: the session's stats, the git branch
	statsCache Stats
	statsFor   *session.Session
	statsN     int
	branch     string
	branchAt   time.Time
}

// New returns the chat model; r renders the styles (tests pass an Ascii one).
func New(o Options, r *lipgloss.Renderer) *Model {
	if o.Bridge == nil {
		o.Bridge = NewBridge()
	}
	if o.Keys == nil {
		o.Keys = keymap.Default()
	}
	if o.UI.Env == nil {
		o.UI.Env = func(string) string { return "" }
	}
	m := &Model{o: o, km: o.Keys, calls: map[string]*item{}, width: 80, height: 24,
		st: termui.New(r, o.Theme, o.Color, o.Hyperlinks), ed: editor.New(),
		fullscreen: o.UI.Mode != "regular", showThinking: !o.UI.HideThinking}
	if o.Width > 0 && o.Height > 0 {
		m.width, m.height = max(o.Width, 20), max(o.Height, 6)
	}
	m.ed.Rows = m.height
	m.add(&item{kind: kindHeader, final: true})
	for _, n := range o.Notices {
		m.add(&item{kind: kindWarning, text: n, final: true})
	}
	m.state = o.Session.State()
	if s := m.sess(); s != nil {
		m.ed.SetHistory(prompts(s))
	}
	m.history(o.Session.Messages())
	return m
}

// sess is the session file (nil when the session has none).
func (m *Model) sess() *session.Session { return m.o.Session.File() }

// prompts are the session's user prompts, oldest first (the editor's history).
func prompts(s *session.Session) []string {
	var out []string
	for _, e := range s.Entries() {
		for _, msg := range session.EntryMessages(e) {
			if msg.Role == llm.RoleUser {
				if t := strings.TrimSpace(messageText(&msg)); t != "" {
					out = append(out, t)
				}
			}
		}
	}
	return out
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
			if it.text != "" || it.thinking != "" {
				m.add(it)
			}
			for _, c := range msg.Content {
				if c.Type == llm.TypeToolCall {
					card := &item{kind: kindTool, callID: c.ID, tool: c.Name, args: c.Arguments}
					m.calls[c.ID] = card
					m.add(card)
				}
			}
			if msg.StopReason == llm.StopError && msg.ErrorMessage != "" {
				m.add(&item{kind: kindError, text: "Error: " + msg.ErrorMessage, final: true})
			}
		case llm.RoleToolResult:
			if card := m.calls[msg.ToolCallID]; card != nil {
				card.done, card.final, card.isError, card.result = true, true, msg.IsError != nil && *msg.IsError, messageText(msg)
				card.diff = detailsDiff(msg.Details)
				m.updateTodo(card.tool, msg.Details)
			}
		}
	}
	for _, it := range m.items {
		if it.kind == kindTool && !it.done {
			// A call whose result never came (an aborted run) is finished as it is.
			it.done, it.final = true, true
		}
	}
}

func (m *Model) add(it *item) {
	it.dirty = true
	m.items = append(m.items, it)
}

// tickMsg advances the spinner: a frame every 100 ms while the agent works.
type tickMsg struct{}

// doneMsg ends a run (sent through the bridge, after the run's last event); reset says a
// command the prompt ran replaced the conversation.
type doneMsg struct {
	last  *llm.Message
	err   error
	out   string
	reset bool
}

// eventMsg is one agent event.
type eventMsg struct{ e agent.Event }

func tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(time.Time) tea.Msg { return tickMsg{} })
}

// Init starts listening to the bridge and sends the first prompt.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.o.Bridge.listen(), m.first(), m.flush())
}

// first is what runs at start: the start command, else the first prompt.
func (m *Model) first() tea.Cmd {
	switch {
	case m.o.Start != "":
		return m.submit(m.o.Start, false)
	case m.o.Prompt != "":
		m.ed.AddHistory(m.o.Prompt)
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
			return m.userBash(arg, exclude)
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
	m.scroll = 0
	m.turn = llm.Usage{}
	b := m.o.Bridge
	go func() {
		var out strings.Builder
		r, err := sess.Prompt(context.Background(), text, &out)
		b.ch <- doneMsg{last: r.Message, err: err, out: out.String(), reset: r.Result.Reset}
	}()
	return tick()
}

// userBash runs `!cmd` (`!!cmd` kept out of the context) through the session and draws its
// card from the bashExecution entry the session recorded.
func (m *Model) userBash(command string, exclude bool) tea.Cmd {
	sess := m.o.Session
	m.running, m.hosting = true, true
	return tea.Batch(tick(), func() tea.Msg {
		start := time.Now()
		r, err := sess.UserBash(context.Background(), command, exclude)
		run := &BashRun{Command: command, Output: r.Text, Excluded: exclude, Duration: time.Since(start)}
		if f := sess.File(); f != nil && err == nil {
			if es := f.Entries(); len(es) > 0 {
				if e := es[len(es)-1]; e.Message != nil && e.Message.Bash != nil {
					be := e.Message.Bash
					run.Output = be.Output
					if be.ExitCode != nil {
						run.ExitCode = *be.ExitCode
					} else {
						run.ExitCode = -1
						run.Output = strings.TrimRight(run.Output, "\n") + "\n(cancelled)"
					}
				}
			}
		}
		return hostDoneMsg{err: err, bash: run}
	})
}

// showStatus shows a status line as pi does: while the last entry is a status line, the new
// one replaces it (Shift+Tab pressed three times leaves one "Thinking level" line), else it
// is added. In regular mode a status already printed into the scrollback stays; the new one
// is added under it.
func (m *Model) showStatus(s string) {
	if n := len(m.items); n > 0 && m.items[n-1].status && (m.fullscreen || m.printed < n) {
		it := m.items[n-1]
		it.text = s
		it.touch()
		return
	}
	m.add(&item{kind: kindInfo, text: s, final: true, status: true})
}

func (m *Model) info(s string)  { m.add(&item{kind: kindInfo, text: s, final: true}) }
func (m *Model) fail(s string)  { m.add(&item{kind: kindError, text: s, final: true}) }
func (m *Model) warn(s string)  { m.add(&item{kind: kindWarning, text: s, final: true}) }
func (m *Model) flash(s string) { m.status, m.statusUntil = s, time.Now().Add(3*time.Second) }

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	if m.quitting {
		return m, cmd
	}
	return m, tea.Batch(cmd, m.flush())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	if m.embed != nil && !m.ownMsg(msg) {
		// The explorer gets the keys, the size and its own messages (loads, file polls).
		if ws, ok := msg.(tea.WindowSizeMsg); ok {
			m.resize(ws)
		}
		e, cmd := m.embed.Update(msg)
		m.embed = e
		if e == nil || e.Done() {
			m.embed = nil
		}
		return cmd
	}
	if k, ok := keymap.FromMsg(msg); ok {
		return m.key(k)
	}
	if cmd, ok := m.mcpMsg(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		return m.resize(msg)
	case tea.MouseMsg:
		return m.mouse(msg)
	case tickMsg:
		if !m.running {
			return nil
		}
		m.frame++
		if m.status != "" && !m.statusUntil.IsZero() && time.Now().After(m.statusUntil) {
			m.status = ""
		}
		return tick()
	case eventMsg:
		m.event(msg.e)
		return m.o.Bridge.listen()
	case doneMsg:
		m.running = false
		m.state = m.o.Session.State()
		if msg.reset {
			m.reset()
			m.history(m.o.Session.Messages())
		}
		if msg.out != "" {
			m.info(strings.TrimRight(msg.out, "\n"))
		}
		if msg.err != nil {
			m.fail(msg.err.Error())
		}
		if l := msg.last; l != nil && l.StopReason == llm.StopError && l.ErrorMessage != "" {
			m.fail("Error: " + l.ErrorMessage)
		}
		if l := msg.last; l != nil && l.StopReason == llm.StopAborted {
			m.fail("Operation aborted")
			// pi puts queued messages back in the editor on abort.
			if q := m.o.Session.Dequeue(); len(q) > 0 && m.ed.Empty() {
				m.ed.SetText(strings.Join(q, "\n"))
			}
		}
		m.finishCards()
		m.steering, m.followUp = nil, nil
		return m.o.Bridge.listen()
	case noticeMsg:
		if msg.n.Error {
			m.fail(msg.n.Text)
		} else {
			m.info(msg.n.Text)
		}
		return m.o.Bridge.listen()
	case askMsg:
		if m.dialog != nil {
			m.pending = append(m.pending, msg)
		} else {
			m.open(msg)
		}
		return m.o.Bridge.listen()
	case inputMsg:
		switch {
		case m.dialog != nil && m.dialog.mcp != nil && m.under == nil:
			// A sign-in started from the manager asks over it (pi's manager sign-in screen).
			m.under, m.dialog = m.dialog, newInputDialog(msg)
		case m.dialog != nil:
			m.pending = append(m.pending, msg)
		default:
			m.dialog = newInputDialog(msg)
		}
		return m.o.Bridge.listen()
	case showMsg:
		m.info(msg.text)
		return m.o.Bridge.listen()
	case cancelDialogMsg:
		// The asking call was aborted: its dialog closes (or leaves the queue); any other
		// dialog stays.
		if m.dialog != nil && m.dialog.asks(msg.reply) {
			m.dialog = nil
			m.next()
		} else {
			m.pending = slices.DeleteFunc(m.pending, func(p tea.Msg) bool { return asks(p, msg.reply) })
		}
		return m.o.Bridge.listen()
	case hostDoneMsg:
		return m.hostDone(msg)
	case pickOpenMsg:
		m.openPick(msg)
		return nil
	case pickMsg:
		if !m.running {
			return m.sessionCommand(msg.name, msg.arg)
		}
		return nil
	case rewindPlanMsg:
		m.openRewindConfirm(msg.p, msg.plan)
		return nil
	case rewindDoneMsg:
		m.rewound(msg)
		return nil
	case editorDoneMsg:
		if msg.err != nil {
			m.fail("External editor: " + msg.err.Error())
		} else if msg.ok {
			m.ed.SetText(strings.TrimRight(msg.text, "\n"))
		}
		return nil
	case copiedMsg:
		if msg.err != nil {
			m.fail(msg.err.Error())
		} else {
			m.showStatus("Copied last agent message to clipboard")
		}
		return nil
	case exportedMsg:
		if msg.err != nil {
			m.fail("Export failed: " + msg.err.Error())
		} else {
			m.showStatus("Session exported to: " + msg.path)
		}
		return nil
	case tea.ResumeMsg:
		return tea.ClearScreen
	}
	return nil
}

// ownMsg reports the chat's own messages (the agent's events, dialogs, commands' results),
// which it handles even while the configuration explorer is open.
func (m *Model) ownMsg(msg tea.Msg) bool {
	switch msg.(type) {
	case tickMsg, eventMsg, doneMsg, noticeMsg, askMsg, inputMsg, showMsg, cancelDialogMsg, hostDoneMsg,
		pickOpenMsg, pickMsg, rewindPlanMsg, rewindDoneMsg, editorDoneMsg, copiedMsg, exportedMsg, mcpTickMsg, mcpViewMsg:
		return true
	}
	return false
}

func (m *Model) resize(msg tea.WindowSizeMsg) tea.Cmd {
	w, h := max(msg.Width, 20), max(msg.Height, 6)
	changed := w != m.width
	m.width, m.height = w, h
	m.ed.Rows = h
	if changed && !m.fullscreen && m.printed > 0 {
		// pi redraws a regular-mode transcript at the new width: the scrollback is cleared
		// and every entry printed again, so nothing is left wrapped at the old width.
		return m.reprint()
	}
	return nil
}

func (m *Model) hostDone(msg hostDoneMsg) tea.Cmd {
	m.running, m.hosting, m.cancelHost = false, false, nil
	r := msg.r
	if msg.err != nil {
		m.fail(msg.err.Error())
	}
	m.state = m.o.Session.State()
	if msg.bash != nil && msg.err == nil {
		m.add(&item{kind: kindBash, bash: msg.bash, done: true, final: true, took: msg.bash.Duration})
	}
	if r.Input != "" {
		m.ed.SetText(r.Input)
	}
	if r.Reset {
		m.reset()
		m.history(m.o.Session.Messages())
		if s := m.sess(); s != nil {
			m.ed.SetHistory(prompts(s))
		}
	}
	if r.Ask != nil && msg.name != "" {
		m.openPick(pickOpenMsg{name: msg.name, p: *r.Ask})
	}
	if r.Text != "" {
		if strings.Contains(r.Text, "\n") {
			m.info(r.Text)
		} else {
			m.showStatus(r.Text)
		}
	}
	if r.Reset && !m.fullscreen {
		return m.reprint()
	}
	return nil
}

// reset empties the transcript for a new or switched session (the header stays).
func (m *Model) reset() {
	head := m.items[0]
	m.items, m.calls, m.stream, m.todo = []*item{head}, map[string]*item{}, nil, nil
	m.live, m.turn = llm.Usage{}, llm.Usage{}
	m.contextUsed, m.contextKnown = 0, false
	m.scroll = 0
}

func (m *Model) open(msg tea.Msg) {
	if v, ok := msg.(inputMsg); ok {
		m.dialog = newInputDialog(v)
		return
	}
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
}

func (m *Model) next() {
	if len(m.pending) > 0 {
		msg := m.pending[0]
		m.pending = m.pending[1:]
		m.open(msg)
		return
	}
	if d := m.under; d != nil {
		m.under, m.dialog = nil, d
		d.mcp.build(d, false)
	}
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
				addUsage(&m.live, u)
				m.contextUsed = u.Input + u.Output + u.CacheRead + u.CacheWrite
				if u.TotalTokens > m.contextUsed {
					m.contextUsed = u.TotalTokens
				}
				m.contextKnown = true
			}
		}
	case agent.EventToolExecutionStart:
		// A finished card with the same id is an earlier turn's: some providers number their
		// calls per reply (call_0 in every turn), and each call has its own card, as in pi.
		card := m.calls[e.ToolCallID]
		if card == nil || card.done {
			card = &item{kind: kindTool, callID: e.ToolCallID, tool: e.ToolName, args: e.Args}
			m.calls[e.ToolCallID] = card
			m.add(card)
		}
		card.started = time.Now()
	case agent.EventToolExecutionUpdate:
		if card := m.calls[e.ToolCallID]; card != nil && e.Result != nil {
			card.progress = contentText(e.Result.Content)
			card.touch()
		}
	case agent.EventToolExecutionEnd:
		if card := m.calls[e.ToolCallID]; card != nil {
			card.done, card.final, card.isError = true, true, e.IsError
			if !card.started.IsZero() {
				card.took = time.Since(card.started)
			}
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
			m.fail(e.ErrorMessage)
		case e.Compaction != nil:
			m.info(fmt.Sprintf("Compacted: %s tokens before", tokens(e.Compaction.TokensBefore)))
			m.contextKnown = false
		}
	case agent.EventAutoRetryStart:
		m.warn(fmt.Sprintf("Retrying (%d/%d) in %ds: %s", e.Attempt, e.MaxAttempts, e.DelayMs/1000, e.ErrorMessage))
	}
}

// finishCards ends the cards of calls an aborted run never finished.
func (m *Model) finishCards() {
	for _, it := range m.items {
		if it.kind == kindTool && !it.done {
			it.done, it.final, it.isError = true, true, true
			if it.result == "" {
				it.result = "(aborted)"
			}
			it.touch()
		}
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

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func keymapDescription(id string) string { return keymap.Description(keymap.Action(id)) }

// tokens formats a token count as pi's footer does (1234 → 1.2k).
func tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1000000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	case n < 10000000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%dM", (n+500000)/1000000)
}

// host runs a session command in the background (Esc aborts it through the session); the
// chat shows it working meanwhile.
func (m *Model) host(name string, f func(ctx context.Context) (app.Result, error)) tea.Cmd {
	m.running, m.hosting = true, true
	return tea.Batch(tick(), func() tea.Msg {
		r, err := f(context.Background())
		return hostDoneMsg{r: r, err: err, name: name}
	})
}

// sessionCommand runs the session's command name in the background.
func (m *Model) sessionCommand(name, arg string) tea.Cmd {
	sess := m.o.Session
	return m.host(name, func(ctx context.Context) (app.Result, error) { return sess.Run(ctx, name, arg) })
}

// Package agent is pi's agent loop as a library: turns, tool execution (parallel unless a
// called tool is sequential), pi's event types and order, steering and follow-up queues,
// abort through context cancellation, pi's retry policy, and threshold and overflow
// compaction. It has no flags, no screen and no files: the model is an llm.Provider, the tools
// are Tool values, and the session is a Store.
//
// The behaviour follows pi 0.84.3 (pi-agent-core agent-loop.js and agent.js, pi-coding-agent
// agent-session.js and compaction/): the same events in the same order with pi's JSON field
// names (see Event.MarshalJSON), the same model-visible texts.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Result is what a tool returns: the one result type from the implementation to the loop
// and its events (toolrun's).
type Result = toolrun.Result

// ErrorResult is pi's createErrorToolResult: the message as text, empty details.
func ErrorResult(msg string) Result { return toolrun.ErrorResult(msg) }

// Tools is the tool runner the loop executes calls through; *toolrun.Runner implements it.
// A call costs one name lookup (Callable), then its argument pipeline and its execution on
// the tool that lookup returned.
type Tools interface {
	// LLMTools is the model-visible tool list, in order.
	LLMTools() []llm.Tool
	// Callable is the tool a call names, nil when none can be called.
	Callable(name string) *toolrun.Tool
	// PrepareTool runs pi's argument preparation and validation; an error's text is the
	// model-visible result.
	PrepareTool(t *toolrun.Tool, call toolrun.Call) (json.RawMessage, error)
	// ExecuteTool runs the call (ctx is cancelled on abort; progress sends partial results).
	// It never panics and reports every failure as an error result.
	ExecuteTool(ctx context.Context, t *toolrun.Tool, call toolrun.Call, args json.RawMessage, progress func(toolrun.Result)) toolrun.Result
}

// CallInfo describes one tool call to the hooks.
type CallInfo struct {
	Assistant *llm.Message
	Call      llm.Content
	Args      json.RawMessage
}

// BeforeResult is what a BeforeToolCall hook decides; nil lets the call run.
type BeforeResult struct {
	Block     bool
	Reason    string
	Terminate bool
}

// AfterResult replaces parts of a tool result; nil fields keep the original.
type AfterResult struct {
	Content   []llm.Content
	Details   json.RawMessage
	IsError   *bool
	Terminate *bool
}

// Hooks are pi's beforeToolCall and afterToolCall. An error from either becomes the call's
// error result.
type Hooks struct {
	BeforeToolCall func(ctx context.Context, c CallInfo) (*BeforeResult, error)
	AfterToolCall  func(ctx context.Context, c CallInfo, r Result, isError bool) (*AfterResult, error)
	// BeforeModelCall runs before every model request; it may change what the tools offer
	// (Tools.LLMTools is read after it) or the system prompt (SetSystemPrompt) for that
	// request.
	BeforeModelCall func(ctx context.Context)
}

// Queue modes (settings steeringMode and followUpMode).
const (
	OneAtATime = "one-at-a-time"
	All        = "all"
)

// RetrySettings is settings `retry`.
type RetrySettings struct {
	Enabled     bool
	MaxRetries  int
	BaseDelayMs int
}

// CompactionSettings is settings `compaction`.
type CompactionSettings struct {
	Enabled          bool
	ReserveTokens    int
	KeepRecentTokens int
}

// Settings are the run-time settings the loop reads.
type Settings struct {
	Retry        RetrySettings
	Compaction   CompactionSettings
	SteeringMode string
	FollowUpMode string
	// Sequential forces one-at-a-time tool execution for every batch.
	Sequential bool
	// MaxParallelTools caps the tool calls of one batch that run at once (0:
	// DefaultMaxParallelTools). The others wait their turn in call order; results keep the
	// call order. pi has no cap: one reply with 300 bash calls started 300 commands at once.
	MaxParallelTools int
}

// DefaultMaxParallelTools is the default cap on concurrent tool executions of one batch.
const DefaultMaxParallelTools = 8

// DefaultSettings are pi's defaults.
func DefaultSettings() Settings {
	return Settings{
		Retry:        RetrySettings{Enabled: true, MaxRetries: 3, BaseDelayMs: 2000},
		Compaction:   CompactionSettings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000},
		SteeringMode: OneAtATime, FollowUpMode: OneAtATime,
	}
}

// Config is everything one Agent needs.
type Config struct {
	Provider     llm.Provider
	Model        *llm.Model
	Options      llm.Options
	SystemPrompt string
	// Tools runs the model's tool calls; nil for none.
	Tools    Tools
	Hooks    Hooks
	Settings Settings
	// Store records the session; nil keeps it in memory only.
	Store Store
	// Emit receives every event, serialised (never two at once), in order.
	Emit func(Event)
	// SyncEmit says Emit reads each event before it returns and copies what it keeps (pigo -p
	// prints it or drops it): streamed message_update events then carry the provider's live
	// message instead of a copy per event, so a reply with 10,000 tool calls streams in
	// linear time. Leave it off when Emit hands events to another goroutine (the chat).
	SyncEmit bool
	// Now is the clock (nil: time.Now); tests fix it.
	Now func() time.Time
	// Sleep waits for a retry delay or until ctx is done (nil: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Agent runs prompts against one model with one tool set, keeping the transcript.
type Agent struct {
	cfg Config

	emitMu sync.Mutex

	mu       sync.Mutex
	messages []llm.Message
	steering queue
	followUp queue
	// steerTexts and followTexts mirror the queues as texts for queue_update (pi's session
	// keeps both).
	steerTexts, followTexts []string

	lastAssistant *llm.Message
	// produced is the last assistant message of the current Prompt (it stays even when
	// retry or overflow handling drops it from the transcript).
	produced          *llm.Message
	retryAttempt      int
	overflowAttempted bool
	// storeErr is the first error the store returned; the run goes on (the transcript is in
	// memory) and the caller reports it.
	storeErr error
}

// StoreErr returns the first error recording into the store, nil when every entry was
// recorded.
func (a *Agent) StoreErr() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.storeErr
}

func (a *Agent) noteStoreErr(err error) {
	if err == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.storeErr == nil {
		a.storeErr = err
	}
}

type queue struct {
	mode string
	msgs []llm.Message
}

func (q *queue) drain() []llm.Message {
	if len(q.msgs) == 0 {
		return nil
	}
	if q.mode == All {
		out := q.msgs
		q.msgs = nil
		return out
	}
	out := q.msgs[:1:1]
	q.msgs = q.msgs[1:]
	return out
}

// New returns an agent whose transcript starts as the store's context.
func New(cfg Config) *Agent {
	if cfg.Store == nil {
		cfg.Store = &MemStore{}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleep
	}
	if cfg.Emit == nil {
		cfg.Emit = func(Event) {}
	}
	if cfg.Settings.SteeringMode == "" {
		cfg.Settings.SteeringMode = OneAtATime
	}
	if cfg.Settings.FollowUpMode == "" {
		cfg.Settings.FollowUpMode = OneAtATime
	}
	if cfg.Options.Memo == nil {
		// Each turn's request extends the last one's message array (llm.BodyMemo).
		cfg.Options.Memo = new(llm.BodyMemo)
	}
	a := &Agent{cfg: cfg}
	a.steering.mode = cfg.Settings.SteeringMode
	a.followUp.mode = cfg.Settings.FollowUpMode
	a.messages = cfg.Store.Context()
	return a
}

// SetSystemPrompt replaces the system prompt from the next model call on.
func (a *Agent) SetSystemPrompt(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cfg.SystemPrompt = s
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Messages returns the current transcript (the context the next turn sends): a clipped
// view, not a copy (a copy of a long session's transcript was 19 MB for print mode to find
// the last reply). The transcript is only appended to or replaced whole, so the view never
// changes; an append to it copies. Callers must not change its messages in place.
func (a *Agent) Messages() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.messages[:len(a.messages):len(a.messages)]
}

func (a *Agent) now() int64 { return a.cfg.Now().UnixMilli() }

// UserMessage returns a user message with one text block, stamped now.
func (a *Agent) UserMessage(text string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(text)}, Timestamp: a.now()}
}

func (a *Agent) emit(e Event) {
	a.emitMu.Lock()
	defer a.emitMu.Unlock()
	a.cfg.Emit(e)
}

func (a *Agent) emitQueueUpdate() {
	a.mu.Lock()
	e := Event{Type: EventQueueUpdate, Steering: append([]string{}, a.steerTexts...), FollowUp: append([]string{}, a.followTexts...)}
	a.mu.Unlock()
	a.emit(e)
}

// Steer queues a message to be delivered after the current batch of tool calls, before the
// next model call. Safe to call from any goroutine while a prompt runs.
func (a *Agent) Steer(text string) {
	a.mu.Lock()
	a.steerTexts = append(a.steerTexts, text)
	a.steering.msgs = append(a.steering.msgs, a.UserMessage(text))
	a.mu.Unlock()
	a.emitQueueUpdate()
}

// FollowUp queues a message to be delivered once the agent would otherwise stop.
func (a *Agent) FollowUp(text string) {
	a.mu.Lock()
	a.followTexts = append(a.followTexts, text)
	a.followUp.msgs = append(a.followUp.msgs, a.UserMessage(text))
	a.mu.Unlock()
	a.emitQueueUpdate()
}

func (a *Agent) drainSteering() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.steering.drain()
}

func (a *Agent) drainFollowUp() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.followUp.drain()
}

func (a *Agent) hasQueued() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.steering.msgs) > 0 || len(a.followUp.msgs) > 0
}

// ErrCannotContinue is pi's refusal to continue from an assistant message with nothing queued.
var ErrCannotContinue = errors.New("Cannot continue from message role: assistant")

// Prompt runs one user prompt to the end: the loop, then pi's post-run handling (retry,
// compaction, queued messages) until the agent settles. It returns the last assistant
// message the run produced, even one that failed and was dropped from the transcript (nil
// when none was produced). A cancelled ctx aborts the run (stopReason aborted).
func (a *Agent) Prompt(ctx context.Context, text string) (*llm.Message, error) {
	// A pre-prompt compaction check catches a context that grew past the threshold in an
	// earlier (possibly aborted) run of this session.
	if last := a.findLastAssistant(); last != nil {
		a.checkCompaction(ctx, last, false)
	}
	return a.run(ctx, []llm.Message{a.UserMessage(text)})
}

// Continue resumes from the current transcript without a new prompt (the last message must
// be a user or tool result, or something must be queued).
func (a *Agent) Continue(ctx context.Context) (*llm.Message, error) {
	return a.run(ctx, nil)
}

func (a *Agent) run(ctx context.Context, prompts []llm.Message) (*llm.Message, error) {
	a.produced = nil
	var err error
	if prompts != nil {
		a.loop(ctx, prompts, false)
	} else if err = a.cont(ctx); err != nil {
		return a.findLastAssistant(), err
	}
	for a.postRun(ctx) {
		if err = a.cont(ctx); err != nil {
			break
		}
	}
	if a.produced != nil {
		return a.produced, err
	}
	return a.findLastAssistant(), err
}

// cont is pi's Agent.continue.
func (a *Agent) cont(ctx context.Context) error {
	a.mu.Lock()
	n := len(a.messages)
	var last *llm.Message
	if n > 0 {
		last = &a.messages[n-1]
	}
	a.mu.Unlock()
	if last == nil {
		return errors.New("No messages to continue from")
	}
	if last.Role == llm.RoleAssistant {
		if s := a.drainSteering(); len(s) > 0 {
			a.loop(ctx, s, true)
			return nil
		}
		if f := a.drainFollowUp(); len(f) > 0 {
			a.loop(ctx, f, false)
			return nil
		}
		return ErrCannotContinue
	}
	a.loop(ctx, nil, false)
	return nil
}

func (a *Agent) findLastAssistant() *llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i := len(a.messages) - 1; i >= 0; i-- {
		if a.messages[i].Role == llm.RoleAssistant {
			m := a.messages[i]
			return &m
		}
	}
	return nil
}

// postRun is pi's _handlePostAgentRun: true means continue the agent.
func (a *Agent) postRun(ctx context.Context) bool {
	msg := a.lastAssistant
	a.lastAssistant = nil
	if msg == nil {
		return false
	}
	if a.isRetryable(msg) && a.prepareRetry(ctx, msg) {
		return true
	}
	if msg.StopReason == llm.StopError && a.retryAttempt > 0 {
		a.emit(Event{Type: EventAutoRetryEnd, Success: false, Attempt: a.retryAttempt, FinalError: msg.ErrorMessage})
		a.retryAttempt = 0
	}
	if a.checkCompaction(ctx, msg, true) {
		return true
	}
	return a.hasQueued()
}

func (a *Agent) isRetryable(m *llm.Message) bool {
	if IsContextOverflow(m, a.cfg.Model.ContextWindow) {
		return false
	}
	return IsRetryableError(m)
}

// prepareRetry is pi's _prepareRetry.
func (a *Agent) prepareRetry(ctx context.Context, m *llm.Message) bool {
	s := a.cfg.Settings.Retry
	if !s.Enabled {
		return false
	}
	a.retryAttempt++
	if a.retryAttempt > s.MaxRetries {
		a.retryAttempt--
		return false
	}
	delay := int64(s.BaseDelayMs) << (a.retryAttempt - 1)
	msg := m.ErrorMessage
	if msg == "" {
		msg = "Unknown error"
	}
	a.emit(Event{Type: EventAutoRetryStart, Attempt: a.retryAttempt, MaxAttempts: s.MaxRetries, DelayMs: delay, ErrorMessage: msg})
	a.dropTrailingAssistant(false)
	if ctx.Err() != nil || a.cfg.Sleep(ctx, time.Duration(delay)*time.Millisecond) != nil {
		attempt := a.retryAttempt
		a.retryAttempt = 0
		a.emit(Event{Type: EventAutoRetryEnd, Success: false, Attempt: attempt, FinalError: "Retry cancelled"})
		return false
	}
	return true
}

// dropTrailingAssistant removes the last message from the transcript when it is an assistant
// message (onlyFailed: only an error or length stop). It stays in the session file.
func (a *Agent) dropTrailingAssistant(onlyFailed bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := len(a.messages)
	if n == 0 || a.messages[n-1].Role != llm.RoleAssistant {
		return
	}
	if onlyFailed && a.messages[n-1].StopReason != llm.StopError && a.messages[n-1].StopReason != llm.StopLength {
		return
	}
	a.messages = a.messages[: n-1 : n-1] // the next append must not overwrite a view's last message
}

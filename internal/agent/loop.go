package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// loop is pi's runAgentLoop / runAgentLoopContinue (prompts nil) with the Agent's event
// processing: it runs turns until the model stops calling tools and no message is queued.
func (a *Agent) loop(ctx context.Context, prompts []llm.Message, skipInitialSteering bool) {
	var added []llm.Message
	a.dispatch(Event{Type: EventAgentStart})
	a.dispatch(Event{Type: EventTurnStart})
	for i := range prompts {
		a.dispatch(Event{Type: EventMessageStart, Message: &prompts[i]})
		a.dispatch(Event{Type: EventMessageEnd, Message: &prompts[i]})
		added = append(added, prompts[i])
	}
	var pending []llm.Message
	if !skipInitialSteering {
		pending = a.drainSteering()
	}
	firstTurn := true
	for {
		more := true
		for more || len(pending) > 0 {
			if !firstTurn {
				if len(pending) == 0 {
					pending = a.drainSteering()
				}
				a.dispatch(Event{Type: EventTurnStart})
			}
			firstTurn = false
			for i := range pending {
				a.dispatch(Event{Type: EventMessageStart, Message: &pending[i]})
				a.dispatch(Event{Type: EventMessageEnd, Message: &pending[i]})
				added = append(added, pending[i])
			}
			pending = nil

			msg := a.streamAssistant(ctx)
			added = append(added, *msg)
			if msg.StopReason == llm.StopError || msg.StopReason == llm.StopAborted {
				a.dispatch(Event{Type: EventTurnEnd, Message: msg})
				a.dispatch(Event{Type: EventAgentEnd, Messages: added})
				return
			}
			calls := msg.ToolCalls()
			var results []llm.Message
			more = false
			if len(calls) > 0 {
				var terminate bool
				if msg.StopReason == llm.StopLength {
					results = a.failTruncated(calls)
				} else {
					results, terminate = a.executeCalls(ctx, msg, calls)
				}
				more = !terminate
				added = append(added, results...)
			}
			a.dispatch(Event{Type: EventTurnEnd, Message: msg, ToolResults: results})
			pending = a.drainSteering()
		}
		if f := a.drainFollowUp(); len(f) > 0 {
			pending = f
			continue
		}
		break
	}
	a.dispatch(Event{Type: EventAgentEnd, Messages: added})
}

// dispatch is pi's Agent.processEvents plus AgentSession._handleAgentEvent: state updates,
// queue bookkeeping, persistence, then the event to the listener.
func (a *Agent) dispatch(e Event) {
	if e.Type == EventMessageStart && e.Message.Role == llm.RoleUser {
		a.overflowAttempted = false
		if text := contentText(e.Message.Content); text != "" && a.removeQueued(text) {
			a.emitQueueUpdate()
		}
	}
	if e.Type == EventMessageEnd && e.Message.Role != llm.RoleAssistant {
		a.mu.Lock()
		a.messages = append(a.messages, *e.Message)
		a.mu.Unlock()
	}
	if e.Type == EventAgentEnd {
		e.WillRetry = a.willRetry(e.Messages)
	}
	a.emit(e)
	if e.Type == EventMessageEnd {
		m := e.Message
		switch m.Role {
		case llm.RoleUser, llm.RoleAssistant, llm.RoleToolResult:
			a.noteStoreErr(a.cfg.Store.AppendMessage(*m))
		}
		if m.Role == llm.RoleAssistant {
			cp := *m
			a.lastAssistant = &cp
			a.produced = &cp
			if m.StopReason != llm.StopError && m.StopReason != llm.StopLength {
				a.overflowAttempted = false
			}
			if m.StopReason != llm.StopError && a.retryAttempt > 0 {
				a.emit(Event{Type: EventAutoRetryEnd, Success: true, Attempt: a.retryAttempt})
				a.retryAttempt = 0
			}
		}
	}
}

func (a *Agent) removeQueued(text string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, t := range a.steerTexts {
		if t == text {
			a.steerTexts = append(a.steerTexts[:i:i], a.steerTexts[i+1:]...)
			return true
		}
	}
	for i, t := range a.followTexts {
		if t == text {
			a.followTexts = append(a.followTexts[:i:i], a.followTexts[i+1:]...)
			return true
		}
	}
	return false
}

// willRetry is pi's _willRetryAfterAgentEnd.
func (a *Agent) willRetry(added []llm.Message) bool {
	s := a.cfg.Settings.Retry
	if !s.Enabled || a.retryAttempt >= s.MaxRetries {
		return false
	}
	for i := len(added) - 1; i >= 0; i-- {
		if added[i].Role == llm.RoleAssistant {
			return a.isRetryable(&added[i])
		}
	}
	return false
}

func contentText(cs []llm.Content) string {
	var s string
	for _, c := range cs {
		if c.Type == llm.TypeText {
			s += c.Text
		}
	}
	return s
}

// streamAssistant streams one reply and records it in the transcript.
func (a *Agent) streamAssistant(ctx context.Context) *llm.Message {
	if h := a.cfg.Hooks.BeforeModelCall; h != nil {
		h(ctx)
	}
	a.mu.Lock()
	// A view, not a copy: the transcript is only appended to (past its length or into a new
	// array) or replaced whole, and dropTrailingAssistant clips what it cuts, so what the
	// provider reads is never written while it reads.
	msgs := a.messages[:len(a.messages):len(a.messages)]
	system := a.cfg.SystemPrompt
	a.mu.Unlock()
	var tools []llm.Tool
	if a.cfg.Tools != nil {
		tools = a.cfg.Tools.LLMTools()
	}
	c := &llm.Context{SystemPrompt: system, Messages: msgs, Tools: tools}
	started := false
	opts := a.cfg.Options
	opts.LivePartials = a.cfg.SyncEmit
	final := a.cfg.Provider.Stream(ctx, a.cfg.Model, c, &opts, func(ev llm.Event) {
		switch ev.Type {
		case llm.EventStart:
			if !started && ev.Partial != nil {
				started = true
				p := *ev.Partial
				a.dispatch(Event{Type: EventMessageStart, Message: &p})
			}
		case llm.EventDone, llm.EventError:
		default:
			if started {
				ev := ev
				a.dispatch(Event{Type: EventMessageUpdate, AssistantEvent: &ev, Message: ev.Partial})
			}
		}
	})
	if final == nil {
		final = &llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{}, StopReason: llm.StopError,
			ErrorMessage: "provider returned no message", Timestamp: a.now()}
	}
	if final.StopReason == llm.StopError && ctx.Err() != nil {
		final.StopReason = llm.StopAborted
	}
	a.mu.Lock()
	a.messages = append(a.messages, *final)
	a.mu.Unlock()
	if !started {
		a.dispatch(Event{Type: EventMessageStart, Message: final})
	}
	a.dispatch(Event{Type: EventMessageEnd, Message: final})
	return final
}

// finalized is one finished tool call.
type finalized struct {
	call    llm.Content
	result  Result
	isError bool
}

func (a *Agent) failTruncated(calls []llm.Content) []llm.Message {
	var out []llm.Message
	for _, c := range calls {
		a.dispatch(Event{Type: EventToolExecutionStart, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
		f := finalized{call: c, isError: true, result: ErrorResult("Tool call \"" + c.Name +
			"\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.")}
		a.endCall(f)
		m := a.resultMessage(f)
		a.emitResult(&m)
		out = append(out, m)
	}
	return out
}

// executeCalls runs one batch: sequential when the settings say so or any called tool is
// sequential, else parallel. Each call's tool is looked up once, here.
func (a *Agent) executeCalls(ctx context.Context, msg *llm.Message, calls []llm.Content) ([]llm.Message, bool) {
	seq := a.cfg.Settings.Sequential
	tools := make([]*toolrun.Tool, len(calls))
	for i, c := range calls {
		if a.cfg.Tools != nil {
			tools[i] = a.cfg.Tools.Callable(c.Name)
		}
		if tools[i] != nil && tools[i].Sequential() {
			seq = true
		}
	}
	if seq {
		return a.executeSequential(ctx, msg, calls, tools)
	}
	return a.executeParallel(ctx, msg, calls, tools)
}

type prepared struct {
	immediate *finalized
	tool      *toolrun.Tool
	call      llm.Content
	args      json.RawMessage
}

func (a *Agent) executeSequential(ctx context.Context, msg *llm.Message, calls []llm.Content, tools []*toolrun.Tool) ([]llm.Message, bool) {
	var out []llm.Message
	var all []finalized
	for i, c := range calls {
		a.dispatch(Event{Type: EventToolExecutionStart, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
		p := a.prepare(ctx, msg, c, tools[i])
		var f finalized
		if p.immediate != nil {
			f = *p.immediate
		} else {
			f = a.finalize(ctx, msg, p, a.executePrepared(ctx, p))
		}
		a.endCall(f)
		m := a.resultMessage(f)
		a.emitResult(&m)
		all = append(all, f)
		out = append(out, m)
		if ctx.Err() != nil {
			break
		}
	}
	return out, shouldTerminate(all)
}

func (a *Agent) executeParallel(ctx context.Context, msg *llm.Message, calls []llm.Content, tools []*toolrun.Tool) ([]llm.Message, bool) {
	slots := make([]finalized, 0, len(calls))
	var wg sync.WaitGroup
	type job struct {
		idx int
		p   prepared
	}
	var jobs []job
	for i, c := range calls {
		a.dispatch(Event{Type: EventToolExecutionStart, ToolCallID: c.ID, ToolName: c.Name, Args: c.Arguments})
		p := a.prepare(ctx, msg, c, tools[i])
		if p.immediate != nil {
			a.endCall(*p.immediate)
			slots = append(slots, *p.immediate)
		} else {
			slots = append(slots, finalized{})
			jobs = append(jobs, job{len(slots) - 1, p})
		}
		if ctx.Err() != nil {
			break
		}
	}
	// At most MaxParallelTools run at once; the rest start in call order as slots free up.
	// The last call runs on this goroutine, which would only wait meanwhile: a reply's single
	// call (the usual case) starts no goroutine and wakes no second thread.
	limit := a.cfg.Settings.MaxParallelTools
	if limit <= 0 {
		limit = DefaultMaxParallelTools
	}
	sem := make(chan struct{}, limit)
	run := func(j job) {
		defer func() { <-sem }()
		f := a.finalize(ctx, msg, j.p, a.executePrepared(ctx, j.p))
		a.endCall(f)
		slots[j.idx] = f
	}
	for k, j := range jobs {
		sem <- struct{}{}
		if k == len(jobs)-1 {
			run(j)
			break
		}
		wg.Add(1)
		go func(j job) {
			defer wg.Done()
			run(j)
		}(j)
	}
	wg.Wait()
	out := make([]llm.Message, 0, len(slots))
	for _, f := range slots {
		m := a.resultMessage(f)
		a.emitResult(&m)
		out = append(out, m)
	}
	return out, shouldTerminate(slots)
}

func shouldTerminate(fs []finalized) bool {
	if len(fs) == 0 {
		return false
	}
	for _, f := range fs {
		if !f.result.Terminate {
			return false
		}
	}
	return true
}

// prepare is pi's prepareToolCall: argument preparation and validation of the call's tool
// (t, nil when the lookup found none), then the beforeToolCall hook.
func (a *Agent) prepare(ctx context.Context, msg *llm.Message, c llm.Content, t *toolrun.Tool) prepared {
	imm := func(text string, terminate bool) prepared {
		r := ErrorResult(text)
		r.Terminate = terminate
		return prepared{immediate: &finalized{call: c, result: r, isError: true}}
	}
	if t == nil {
		return imm(fmt.Sprintf("Tool %s not found", c.Name), false)
	}
	args := c.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	args, err := a.cfg.Tools.PrepareTool(t, toolrun.Call{ID: c.ID, Name: c.Name, Arguments: args})
	if err != nil {
		return imm(err.Error(), false)
	}
	if h := a.cfg.Hooks.BeforeToolCall; h != nil {
		br, err := h(ctx, CallInfo{Assistant: msg, Call: c, Args: args})
		if err != nil {
			return imm(err.Error(), false)
		}
		if ctx.Err() != nil {
			return imm("Operation aborted", false)
		}
		if br != nil && br.Block {
			reason := br.Reason
			if reason == "" {
				reason = "Tool execution was blocked"
			}
			return imm(reason, br.Terminate)
		}
	}
	if ctx.Err() != nil {
		return imm("Operation aborted", false)
	}
	return prepared{tool: t, call: c, args: args}
}

type executed struct {
	result  Result
	isError bool
}

func (a *Agent) executePrepared(ctx context.Context, p prepared) (ex executed) {
	var mu sync.Mutex
	accepting := true
	update := func(r Result) {
		mu.Lock()
		defer mu.Unlock()
		if !accepting {
			return
		}
		r2 := r
		a.emit(Event{Type: EventToolExecutionUpdate, ToolCallID: p.call.ID, ToolName: p.call.Name, Args: p.call.Arguments, Result: &r2})
	}
	defer func() {
		mu.Lock()
		accepting = false
		mu.Unlock()
		if r := recover(); r != nil {
			ex = executed{result: ErrorResult(fmt.Sprint(r)), isError: true}
		}
	}()
	call := toolrun.Call{ID: p.call.ID, Name: p.call.Name, Arguments: p.args}
	r := a.cfg.Tools.ExecuteTool(ctx, p.tool, call, p.args, update)
	if r.Content == nil {
		r.Content = []llm.Content{}
	}
	return executed{result: r, isError: r.IsError}
}

// finalize is pi's finalizeExecutedToolCall (the afterToolCall hook).
func (a *Agent) finalize(ctx context.Context, msg *llm.Message, p prepared, ex executed) finalized {
	f := finalized{call: p.call, result: ex.result, isError: ex.isError}
	h := a.cfg.Hooks.AfterToolCall
	if h == nil {
		return f
	}
	ar, err := h(ctx, CallInfo{Assistant: msg, Call: p.call, Args: p.args}, ex.result, ex.isError)
	if err != nil {
		f.result, f.isError = ErrorResult(err.Error()), true
		return f
	}
	if ar != nil {
		if ar.Content != nil {
			f.result.Content = ar.Content
		}
		if ar.Details != nil {
			f.result.Details = ar.Details
		}
		if ar.Terminate != nil {
			f.result.Terminate = *ar.Terminate
		}
		if ar.IsError != nil {
			f.isError = *ar.IsError
		}
	}
	return f
}

func (a *Agent) endCall(f finalized) {
	r := f.result
	a.dispatch(Event{Type: EventToolExecutionEnd, ToolCallID: f.call.ID, ToolName: f.call.Name, Result: &r, IsError: f.isError})
}

func (a *Agent) resultMessage(f finalized) llm.Message {
	isErr := f.isError
	content := f.result.Content
	if content == nil {
		content = []llm.Content{}
	}
	return llm.Message{Role: llm.RoleToolResult, ToolCallID: f.call.ID, ToolName: f.call.Name, Content: content,
		Details: f.result.Details, IsError: &isErr, Timestamp: a.now()}
}

func (a *Agent) emitResult(m *llm.Message) {
	a.dispatch(Event{Type: EventMessageStart, Message: m})
	a.dispatch(Event{Type: EventMessageEnd, Message: m})
}

package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/bwrap"
	"github.com/pigo-agent/pigo/internal/llm"
	_ "github.com/pigo-agent/pigo/internal/llm/providers" // the wire clients register themselves
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// Session is one running session: the agent, the tool runner and its tool session, the
// session file, LSP, talk and the approvals. Its methods are safe to call from a front end's
// goroutine while a prompt runs on another; a second prompt or command while one runs is
// refused with ErrBusy.
type Session struct {
	o   Options
	fe  Frontend
	cfg Config
	// interactive is true when a person can answer (the chat): interactive commands run and
	// dialogs are asked.
	interactive bool

	mu       sync.Mutex
	setup    *Setup
	settings settings
	file     *session.Session
	model    *llm.Model
	provider llm.Provider
	thinking string
	ag       *agent.Agent
	storeErr error
	busy     bool
	cancel   context.CancelFunc

	tools    *toolrun.Session
	runner   *toolrun.Runner
	impls    *toolrun.Impls // the implementations the runner binds (a new session rebinds them)
	rules    *approve.Rules
	lsp      *toolkit.LSP
	mcp      *mcpState
	bwrap    *bwrap.Commands
	talk     *talkState
	naming   naming
	commands []Command
	// warmed is closed when warmTools' goroutine is done (tests wait on it).
	warmed chan struct{}
	// sandboxOnce starts warmSandbox's goroutine; sandboxWarmed is closed when it is done.
	sandboxOnce   sync.Once
	sandboxWarmed chan struct{}
}

// Open starts a session: the session file the flags name (warnings are notices), the session
// model and its wire client, the thinking level, the tools bound to the registry through one
// tool session (sandbox, approval rules, read state replayed from the branch, LSP), talk when
// a talk tool is active, and the agent. Errors are *Error (usage or failure), the Config's
// own, or I/O.
func Open(o Options) (*Session, error) {
	if o.Setup == nil {
		return nil, errors.New("app.Open: no setup")
	}
	fe := o.Frontend
	if fe == nil {
		fe = discard{}
	}
	s := &Session{o: o, fe: fe, cfg: o.Config, interactive: o.Approver != nil, setup: o.Setup}
	s.settings = parseSettings(o.Setup.Settings)
	s.commands = withCommands(builtinCommands(), o.Commands)
	var err error
	if s.file, err = s.openFile(o.Session); err != nil {
		return nil, err
	}
	if o.Rewind != nil {
		o.Rewind.Switch(rewindDir(s.file.Path()))
	}
	if err := s.start(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// restoreModel is pi's rule for a continued session (-c, --session, --fork): when the
// command line names no model, the session's own model continues, the configuration resolved
// for it. A model that no longer resolves is a notice and the configured one is used.
func (s *Session) restoreModel(st *Setup, saved string) *Setup {
	if st.Model != nil && strings.EqualFold(saved, st.Model.Provider+"/"+st.Model.ID) {
		return st
	}
	_, err := s.cfg.Model(saved, s.o.APIKey)
	var next *Setup
	if err == nil {
		next, err = s.cfg.Load(saved)
	}
	if err != nil || next.Model == nil {
		if err == nil {
			err = ErrNoModel
		}
		s.notify("Could not restore model %s: %v", saved, err)
		return st
	}
	s.setup = next
	s.settings = parseSettings(next.Settings)
	return next
}

// start resolves the model and thinking level, binds the tools and builds the agent.
func (s *Session) start() error {
	st := s.setup
	// What start needs from the branch's entries — the messages the tools' read state is
	// replayed from, whether it has a thinking-level entry — is gathered on another goroutine
	// while the context is built (the context's walk finds the path Branch cached): a walk of
	// the entries is ~75,000 cache misses at 64 MB. No entry is added or written meanwhile.
	// A new session's branch is empty: nothing to walk, no goroutine to wake.
	branch := make(chan branchFacts, 1)
	if path := s.file.Branch(""); len(path) == 0 {
		branch <- branchFacts{}
	} else {
		go func() { branch <- gatherBranch(path) }()
	}
	var facts *branchFacts
	gathered := func() *branchFacts {
		if facts == nil {
			f := <-branch
			facts = &f
		}
		return facts
	}
	defer gathered() // on an error's way out too: nothing still reads the entries
	ctx := s.file.Context()
	existing := len(ctx.Messages) > 0
	if !s.o.ToolsOnly {
		if existing && s.o.RestoreModel && ctx.Model != nil && s.cfg != nil {
			st = s.restoreModel(st, ctx.Model.Provider+"/"+ctx.Model.ModelID)
		}
		if st.Model == nil {
			return ErrNoModel
		}
		m, err := s.cfg.Model(st.Model.Provider+"/"+st.Model.ID, s.o.APIKey)
		if err != nil {
			return err
		}
		p, err := llm.ProviderFor(m.API)
		if err != nil {
			return usagef("%v", err)
		}
		s.model, s.provider = m, p
		// Thinking: the flag, the sub-agent's, the session's, the settings', then pi's
		// default; clamped to what the model supports.
		hasEntry := gathered().thinkingLevel
		sessionLevel := ""
		if existing && hasEntry {
			sessionLevel = ctx.ThinkingLevel
		}
		for _, t := range []string{s.o.Thinking, st.AgentThinking, sessionLevel, s.settings.DefaultThinkingLevel, "medium"} {
			if s.thinking == "" {
				s.thinking = t
			}
		}
		s.thinking = ClampThinking(s.model, s.thinking)
		if !existing {
			if _, err := s.file.AppendModelChange(s.model.Provider, s.model.ID); err != nil {
				return err
			}
		}
		if !hasEntry {
			if _, err := s.file.AppendThinkingLevelChange(s.thinking); err != nil {
				return err
			}
		}
	}
	s.bindTools()
	if !s.o.ToolsOnly {
		s.warmTools()
	}
	s.startSeed(true)
	waitTalk := func() error { return nil }
	if !s.o.ToolsOnly || s.o.Talk {
		waitTalk = s.startTalk(existing)
	}
	// The replay runs while talk's helper process starts (a continued session's talk starts
	// at once: ~7 ms of waiting for the helper).
	s.tools.Replay(gathered().replay)
	if err := waitTalk(); err != nil {
		return err
	}
	for _, w := range st.PromptWarnings {
		s.fe.Notice(Notice{Text: "warning: " + w})
	}
	if s.interactive && st.StartNotices != nil {
		for _, n := range st.StartNotices() {
			s.fe.Notice(Notice{Text: n.Level + ": " + n.Text, Error: n.Level == "error"})
		}
	}
	if !s.o.ToolsOnly {
		s.rebuild()
	}
	return nil
}

// rebuild makes the agent for the current session file, model, thinking level, tools and
// system prompt: the one place an agent is built. The agent reads the conversation from the
// session file, so every change of file, leaf, model or prompt goes through here. Call with
// s.mu held or before the session is shared.
func (s *Session) rebuild() {
	if s.ag != nil {
		if err := s.ag.StoreErr(); err != nil && s.storeErr == nil {
			s.storeErr = err
		}
	}
	id := s.file.ID()
	system := s.setup.SystemPrompt
	if s.mcp != nil {
		// The tools tool_search loaded are this branch's; the section stays as last built.
		s.mcp.branchChanged(s.file)
		system = s.mcp.systemPrompt(system)
	}
	var ag *agent.Agent
	ag = agent.New(agent.Config{Provider: s.provider, Model: s.model,
		Options: llm.Options{ThinkingLevel: s.thinking, SessionID: id, ProxyURL: s.setup.Proxy, Headers: requestHeaders(id),
			ReportedCost: reportedCost(s.model)},
		SystemPrompt: system, Tools: s.agentTools(), Hooks: s.agentHooks(&ag, s.setup.SystemPrompt), Settings: s.settings.agent(),
		Store: agent.SessionStore(s.file), Emit: s.fe.Event, SyncEmit: s.o.SyncEvents})
	s.ag = ag
}

// requestHeaders is the seed's request-headers extension: Thread-Id carries the session id
// on every provider request, over any value the model's headers set.
func requestHeaders(sessionID string) map[string]string {
	if sessionID == "" {
		return nil
	}
	return map[string]string{"Thread-Id": sessionID}
}

// reportedCost is the seed's openai-cost provider: its requests take the provider's own
// usage.cost as the cost total (the openai-completions client reads the three shapes).
func reportedCost(m *llm.Model) bool {
	return m != nil && m.ReportedCost && m.API == "openai-completions"
}

// begin marks the session busy for one prompt or command and returns its context, which
// Abort cancels.
func (s *Session) begin(ctx context.Context) (context.Context, func(), error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy {
		return nil, nil, ErrBusy
	}
	ctx, cancel := context.WithCancel(ctx)
	s.busy, s.cancel = true, cancel
	return ctx, func() {
		cancel()
		s.mu.Lock()
		s.busy, s.cancel = false, nil
		s.mu.Unlock()
	}, nil
}

// agent returns the current agent.
func (s *Session) agent() *agent.Agent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ag
}

// Steer queues text for the running prompt (delivered after the current tool calls).
func (s *Session) Steer(text string) {
	if ag := s.agent(); ag != nil {
		ag.Steer(text)
	}
}

// FollowUp queues text to send when the running prompt would stop.
func (s *Session) FollowUp(text string) {
	if ag := s.agent(); ag != nil {
		ag.FollowUp(text)
	}
}

// Abort cancels the running prompt or command (a dismissed write or escalation dialog does
// the same).
func (s *Session) Abort() {
	s.mu.Lock()
	c := s.cancel
	s.mu.Unlock()
	if c != nil {
		c()
	}
}

// Messages is the conversation the agent continues (the session branch's context).
func (s *Session) Messages() []llm.Message {
	if ag := s.agent(); ag != nil {
		return ag.Messages()
	}
	return nil
}

// State is the model and thinking level a front end shows.
func (s *Session) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := State{Thinking: s.thinking}
	if s.model != nil {
		st.Model, st.ContextWindow, st.Reasoning = s.model.Provider+"/"+s.model.ID, s.model.ContextWindow, s.model.Reasoning
	}
	return st
}

// Header is the session file's header.
func (s *Session) Header() session.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file.Header()
}

// SystemPrompt is the system prompt the agent runs with.
func (s *Session) SystemPrompt() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.setup.SystemPrompt
}

// Path is the session file ("" in memory).
func (s *Session) Path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file.Path()
}

// Leaf is the id of the entry the next message follows ("" at the root).
func (s *Session) Leaf() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.file.Leaf()
}

// SetLeaf moves the session back to after entry leaf ("" for the start) and continues from
// there (/rewind).
func (s *Session) SetLeaf(leaf string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if leaf == "" {
		s.file.ResetLeaf()
	} else if err := s.file.SetLeaf(leaf); err != nil {
		return err
	}
	s.rebuild()
	return nil
}

// StoreErr is the first session entry that could not be written, nil when every one was:
// nothing a session does may be lost silently.
func (s *Session) StoreErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.storeErr != nil {
		return s.storeErr
	}
	if s.ag != nil {
		return s.ag.StoreErr()
	}
	return nil
}

// Close waits for background work (the session name), closes the session file (its error
// is returned: the file's last entries may be lost), then talk, the MCP servers and the
// language servers.
func (s *Session) Close() error {
	s.naming.wait()
	s.mu.Lock()
	f := s.file
	s.mu.Unlock()
	var err error
	if f != nil {
		err = f.Close()
	}
	s.stopTalk()
	if s.mcp != nil {
		s.mcp.close()
	}
	if s.tools != nil {
		s.tools.Close() // the helpers a tool started for the session (aft)
	}
	// No warm-up starts after this; the pids cgroup one made ahead for a command that never
	// came is removed (the command's own run removes it otherwise).
	s.sandboxOnce.Do(func() {})
	if s.sandboxWarmed != nil {
		<-s.sandboxWarmed
		toolkit.DropSandboxAhead()
	}
	if s.lsp != nil {
		s.lsp.Close()
	}
	return err
}

// notify reports a notice.
func (s *Session) notify(format string, a ...any) {
	s.fe.Notice(Notice{Text: fmt.Sprintf(format, a...)})
}

// printer writes a command's output lines; nil writes nowhere.
func printer(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

package toolrun

import (
	"context"
	"sync"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// Session is the state every tool of one session shares.
type Session struct {
	// Cwd is the session workspace (absolute).
	Cwd string
	// AgentDir is the agent dir (bash spill files go to AgentDir/tmp).
	AgentDir string
	// Headless is true when no person can answer a dialog (-p, `pigo tool run`, no terminal).
	Headless bool
	// FileIO is the active file toolset ("claude-code" or "opencode"); New fills it from the
	// registry when empty. lsp-rename records its reads in this toolset's state.
	FileIO string
	// Model is the session's model (read notes when it takes no images); nil for none.
	Model *llm.Model

	// Sandbox is the effective sandbox policy; Environ is the host facts its plans use.
	// SandboxErr, when set, is why the policy could not be read: every command is refused
	// with it (fail closed).
	Sandbox    sandbox.Policy
	SandboxErr error
	Environ    sandbox.Environ
	// Rules are the running approvalRules (nil: the policy's, compiled per call); a person's
	// "always allow" adds to them while calls read them (approve.Rules locks).
	Rules *approve.Rules
	// DenyRequests is /bwrap-deny-request: escalations and outside writes are refused
	// without a dialog.
	DenyRequests bool

	// Approver answers the dialogs (package approve: writes outside the workspace,
	// escalations, questions); nil (or Headless) refuses with the reference texts.
	Approver approve.Approver
	// LSP reports diagnostics after reads and edits; nil for none.
	LSP LSP

	// Shell is settings.shellPath and shellCommandPrefix.
	Shell Shell
	// Env is the PI_* environment pi's bash exposes.
	Env SessionEnv

	// Abort cancels the running agent turn (a dismissed write dialog does); nil for none.
	Abort func()
	// PanicLog receives a recovered panic of a tool (its result is already an error).
	PanicLog func(tool string, value any, stack []byte)

	mu      sync.Mutex
	state   map[any]any
	reads   map[string]*Reads
	queue   mutationQueue
	closers []func()
	closed  bool
	hooksState
}

// SandboxPolicy is the session's sandbox policy and why it cannot be used (nil when it can):
// read it through here, since /bwrap-* commands change it while tools run.
func (s *Session) SandboxPolicy() sandbox.Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Sandbox
}

// SandboxError is why the session's policy could not be read (every command is refused).
func (s *Session) SandboxError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.SandboxErr
}

// SetSandboxPolicy replaces the session's policy (the /bwrap-* commands, for this session
// only); err, when set, refuses every command until a policy can be read again.
func (s *Session) SetSandboxPolicy(p sandbox.Policy, err error) {
	s.mu.Lock()
	s.Sandbox, s.SandboxErr = p, err
	s.mu.Unlock()
}

// DenyingRequests reports whether /bwrap-deny-request is on.
func (s *Session) DenyingRequests() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.DenyRequests
}

// SetDenyRequests turns /bwrap-deny-request on or off for this session.
func (s *Session) SetDenyRequests(on bool) {
	s.mu.Lock()
	s.DenyRequests = on
	s.mu.Unlock()
}

// OnClose registers fn to run when the session ends: a resident helper a tool started for
// the session (the aft process) stops with it. After Close, fn runs at once.
func (s *Session) OnClose(fn func()) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		fn()
		return
	}
	s.closers = append(s.closers, fn)
	s.mu.Unlock()
}

// Close runs the OnClose functions, the last registered first; later calls do nothing.
func (s *Session) Close() {
	s.mu.Lock()
	fns := s.closers
	s.closers, s.closed = nil, true
	s.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

// Shell is pi's shell settings.
type Shell struct {
	// Path is settings.shellPath ("" = bash from PATH, else /bin/bash).
	Path string
	// CommandPrefix is settings.shellCommandPrefix, prepended to every command with a newline.
	CommandPrefix string
}

// SessionEnv is what pi's bash puts into PI_* variables (exposeSessionEnvironment).
type SessionEnv struct {
	// Hide is exposeSessionEnvironment:false.
	Hide           bool
	SessionID      string
	SessionFile    string
	Provider       string
	Model          string
	ReasoningLevel string
}

// LSP is the language-server hook the file tools call after a successful read, edit or
// write. It returns the diagnostics block to append to the tool's text, "" when clean or
// when no server handles the file.
type LSP interface {
	Diagnostics(ctx context.Context, path string, content []byte) string
}

// Reads returns the read-before-write state of one toolset ("claude-code", "opencode").
func (s *Session) Reads(toolset string) *Reads {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reads == nil {
		s.reads = map[string]*Reads{}
	}
	r := s.reads[toolset]
	if r == nil {
		r = &Reads{m: map[string]Snapshot{}}
		s.reads[toolset] = r
	}
	return r
}

// State returns the session-scoped value of key, made by mk on first use: packages keep
// their own per-session state here (codemode's store), next to the read state.
func (s *Session) State(key any, mk func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == nil {
		s.state = map[any]any{}
	}
	v, ok := s.state[key]
	if !ok {
		v = mk()
		s.state[key] = v
	}
	return v
}

var (
	replayMu    sync.Mutex
	replayHooks []func(s *Session, msgs []*llm.Message)
)

// OnReplay registers fn to run at the end of every [Session.Replay], so state a package
// keeps in [Session.State] follows the branch as the read state does. Call it from init. fn
// must read only the messages [ReplayInput] takes (tool results with details): a caller may
// give Replay just those.
func OnReplay(fn func(s *Session, msgs []*llm.Message)) {
	replayMu.Lock()
	defer replayMu.Unlock()
	replayHooks = append(replayHooks, fn)
}

// CanAsk reports whether a person can be asked in this session (the question tools refuse
// before reading their questions when not).
func (s *Session) CanAsk() bool { return !s.Headless && s.Approver != nil }

type approverKey struct{}

// WithApprover returns a context whose calls use a instead of the session's Approver: a
// codemode script's nested calls answer every dialog with a refusal (approve.Nested), since
// nobody can be asked from inside a script.
func WithApprover(ctx context.Context, a approve.Approver) context.Context {
	return context.WithValue(ctx, approverKey{}, a)
}

// ApproverFor is the Approver a call running under ctx asks: a headless session's refuses
// every request with its NoUI text; else the one [WithApprover] set, else the session's.
func (s *Session) ApproverFor(ctx context.Context) approve.Approver {
	if s.Headless || s.Approver == nil {
		return approve.Headless()
	}
	if a, ok := ctx.Value(approverKey{}).(approve.Approver); ok && a != nil {
		return a
	}
	return s.Approver
}

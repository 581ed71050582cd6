package app

import (
	"encoding/json"
	"io"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/spawn"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/aft"
	"github.com/pigo-agent/pigo/internal/tools/vision"
)

// Options open a Session: what the command line's flags say, the configuration as values, and
// the front end.
type Options struct {
	// Config reads the configuration files again when the session needs them (/reload, a
	// model switch); Setup is the first reading. The command line provides both.
	Config Config
	Setup  *Setup

	// Session says which session file the run continues or starts (pi's session flags).
	Session SessionSpec
	// Thinking is the thinking level the command line asks for (--thinking, else the --model
	// suffix); "" leaves it to the sub-agent, the session, the settings, then pi's default.
	Thinking string
	// RestoreModel continues a resumed session (-c, --session, --fork) with its own model when
	// the command line names none (pi's rule); false keeps Setup's model.
	RestoreModel bool
	// APIKey is --api-key, for the session model.
	APIKey string

	// ToolsOnly opens the tools without an agent (`pigo tool run`): no model is needed, no
	// session entries are written at start and talk is not started.
	ToolsOnly bool
	// Talk starts talk even without an agent (`pigo tool run talk-*`: the run is an agent of
	// the mailbox while its tool runs).
	Talk bool

	// Frontend hears the agent's events and the session's notices (nil: nobody). SyncEvents
	// says its Event reads each event before it returns and copies what it keeps (the -p
	// printer): streamed updates then share the provider's live message (agent.SyncEmit).
	Frontend   Frontend
	SyncEvents bool
	// Approver asks the person (the chat's dialogs); nil: nobody can be asked, and every
	// request is refused with its reference text (pi's headless texts).
	Approver approve.Approver
	// Dialog asks the person while a command runs (the chat's input dialogs): /login and
	// /logout are offered only with one. OpenURL opens a sign-in URL in a browser (nil: the URL
	// is only shown).
	Dialog  Dialog
	OpenURL func(url string)
	// Rewind, when set, keeps the before-image of every file a write tool changes (the chat's
	// /rewind).
	Rewind Rewinder
	// Stderr receives an extension command's standard error (nil: with its output).
	Stderr io.Writer
	// Getenv reads the environment (PI_TALK_DB, PI_TALK_INBOUND; nil: none).
	Getenv func(string) string
	// Commands are commands the front end's command line adds to the session's (the chat's
	// /scoped-models, /trust, saving a setting); one with a built-in's name replaces it.
	Commands []Command
	// Impls are the tool implementations (nil: all of package tools).
	Impls *toolrun.Impls
}

// Config is the session's way back to the configuration files. The command line implements
// it over package config — the only package that links CUE — so a session reads no
// configuration file itself and links no CUE.
type Config interface {
	// Load reads the configuration again and resolves it for model ("provider/id"). Notices
	// go into Setup.Notes, never onto the terminal.
	Load(model string) (*Setup, error)
	// Model resolves "provider/id" as --model does (models.json, the catalogue, the API key;
	// apiKey wins when set). An unknown model is an error.
	Model(ref, apiKey string) (*llm.Model, error)
	// Models lists the models /model offers, "provider/id": models.json's, then the
	// catalogue's.
	Models() []string
	// Sandbox reads sandbox.json again (/bwrap-reload); LSP reads lsp.json again
	// (/lsp-reload).
	Sandbox() (sandbox.Policy, error)
	LSP() (*lsp.Config, error)
	// MissingCredential says why the model's provider has no usable credential and what
	// would give it one (nil when it has one); apiKey is --api-key.
	MissingCredential(m *llm.Model, apiKey string) error
	// SaveAllow appends allow rules for patterns to the project's sandbox.json approvalRules,
	// keeping its comments, and returns the file written.
	SaveAllow(patterns []string) (file string, err error)
}

// Setup is the configuration a session runs with, as values: the resolved registry and
// commands, the model's facts, the sandbox policy, the settings, the system prompt and what
// the tools need.
type Setup struct {
	// Cwd is the workspace (absolute); AgentDir the agent dir.
	Cwd, AgentDir string
	// Registry and Commands are the engine's resolution for the session model.
	Registry *engine.Result
	Commands *engine.CommandResult
	// Model is the session model's facts (nil: the configuration names none).
	Model *engine.Model
	// AgentThinking is --agent's thinking level ("" for none or no sub-agent).
	AgentThinking string
	// Policy is the sandbox policy (a sub-agent's own fixed one under --agent: FixedSandbox,
	// and no /bwrap* commands); PolicyErr, when set, is why it could not be read: every
	// command is refused with it.
	Policy       sandbox.Policy
	PolicyErr    error
	FixedSandbox bool
	// Environ are the host facts the sandbox plans use.
	Environ sandbox.Environ
	// Settings is the effective settings.json.
	Settings json.RawMessage
	// SystemPrompt is the system prompt; PromptWarnings what building it reported.
	SystemPrompt   string
	PromptWarnings []string
	// Proxy is the HTTP proxy the providers use ("" for none).
	Proxy string
	// LSP is lsp.json's servers (nil: no language server).
	LSP *lsp.Config
	// Vision is describe_image's model, resolved from settings.visionConfig.
	Vision vision.Vision
	// Agents are the sub-agents spawn-agent may start.
	Agents spawn.Roster
	// AFT is the aft binary and its configuration (a zero Bin: aft is not available).
	AFT aft.AFTSetup
	// Notes are the notices a Config.Load met (files not applied, untrusted project).
	Notes []string
	// StartNotices gives the toolsets' session-start messages (gh missing, aft not found, …:
	// aft.StartNotices), shown where a person is, as the seed's extensions notify at
	// session_start; print mode shows none, as pi's has no UI to notify, and does not ask
	// (looking for gh walks PATH). Nil: none.
	StartNotices func() []aft.Notice
	// MCP is mcp.json's servers (nil: none, --no-mcp, or an untrusted project's only).
	MCP *MCPSetup
}

// SessionSpec says which session file a run uses (pi's session flags).
type SessionSpec struct {
	// Location is where this cwd's sessions live.
	Location session.Location
	// InMemory is --no-session.
	InMemory bool
	// Fork is --fork PATH|ID: a copy of that session continues as a new one.
	Fork string
	// Open is --session PATH|ID.
	Open string
	// Continue is -c: the newest session of this cwd, else a new one.
	Continue bool
	// File opens exactly this file, creating it when absent (`pigo tool run --session`).
	File string
	// MissingCwd asks a person what to do with an Open session whose stored working
	// directory no longer exists (pi 1.6's chat): MissingCwdContinue, MissingCwdFork, or ""
	// to cancel (Open then fails with ErrCancelled). Nil: the session is refused with pi's
	// print-mode text.
	MissingCwd func(stored, cwd string) string
}

// The answers to SessionSpec.MissingCwd.
const (
	MissingCwdContinue = "continue"
	MissingCwdFork     = "fork"
)

// Frontend is what a session reports to: the chat, or the -p printer.
type Frontend interface {
	// Event receives every agent event, serialised, in order.
	Event(e agent.Event)
	// Notice receives what the session says outside the conversation: warnings, a saved
	// approval rule, a failure of background work.
	Notice(n Notice)
}

// Notice is one line the session reports.
type Notice struct {
	Text string
	// Error marks a failure (a rule that could not be saved).
	Error bool
}

// Rewinder keeps the files' before-images for /rewind (package rewind's Store): every write
// of the session reaches it through the one write path's hooks; Switch names the directory of
// the current session's images ("" in memory) when the session file changes.
type Rewinder interface {
	toolrun.WriteHook
	Switch(dir string)
}

// Reply is what one Prompt did: the model's last message, or a command that ran instead.
type Reply struct {
	// Message is the last assistant message (nil when a command handled the input).
	Message *llm.Message
	// Handled is true when a command ran instead of a model turn; Result is its outcome.
	Handled bool
	Result  Result
}

// State is what a front end shows of the session: the model and thinking level.
type State struct {
	// Model is "provider/id"; ContextWindow its window.
	Model         string
	ContextWindow int
	Thinking      string
	// Reasoning says the model thinks (a thinking level applies).
	Reasoning bool
}

// discard is a front end that hears nothing.
type discard struct{}

func (discard) Event(agent.Event) {}
func (discard) Notice(Notice)     {}

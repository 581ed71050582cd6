package app

import (
	"context"
	"time"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/codemode"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/lsp"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools"
	"github.com/pigo-agent/pigo/internal/tools/aft"
	"github.com/pigo-agent/pigo/internal/tools/spawn"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
	"github.com/pigo-agent/pigo/internal/tools/vision"
)

// bindTools builds the tool session every tool of this session shares (pi's shell settings,
// the PI_* environment, the file toolset, the sandbox and its approval rules, the approvals,
// LSP, the write hooks /rewind records through, and the values describe_image, spawn-agent
// and aft need), and the runner the loop calls: the one execution path (toolrun) for the
// registry's tools. Its read state is replayed from the branch by replayReads.
func (s *Session) bindTools() {
	st := s.setup
	if st.AgentDir != "" {
		// The credential stores stay out of the model's reach: no file tool reads them (bash's
		// sandbox hides them too).
		safefile.DenyReads(sandbox.CredentialPaths(st.AgentDir)...)
	}
	s.rules = approve.NewRules(st.Policy.ApprovalRules)
	ts := &toolrun.Session{Cwd: st.Cwd, AgentDir: st.AgentDir, Headless: !s.interactive, FileIO: st.Registry.FileIO,
		Sandbox: st.Policy, SandboxErr: st.PolicyErr, Environ: st.Environ, Rules: s.rules, Abort: s.Abort,
		Shell: toolrun.Shell{Path: s.settings.shellPath, CommandPrefix: s.settings.shellCommandPrefix}}
	ts.Env.Hide = s.settings.hideSessionEnv
	ts.Approver = approve.New(approve.Options{UI: s.o.Approver, Rules: s.rules, Save: s.saveAllow, Report: s.reportSaved})
	switch {
	case s.model != nil:
		ts.Model = s.model
		ts.Env.Provider, ts.Env.Model = s.model.Provider, s.model.ID
	case st.Model != nil: // `pigo tool run`: the facts the tools read, no credentials
		ts.Model = &llm.Model{Provider: st.Model.Provider, ID: st.Model.ID, Input: st.Model.Input, Reasoning: st.Model.Reasoning}
		ts.Env.Provider, ts.Env.Model = st.Model.Provider, st.Model.ID
	}
	// Like pi with --no-session, a session without a file still has an id.
	ts.Env.SessionID = s.file.ID()
	if p := s.file.Path(); p != "" {
		ts.Env.SessionFile = p
	}
	if lc := st.LSP; lc != nil && len(lc.ServerIDs()) > 0 {
		// The servers lsp.json enables start on the first file they handle, so a session
		// that touches no such file starts none; a tool call never fails for its LSP.
		s.lsp = toolkit.NewLSP(lc, st.Cwd, lsp.OSEnv())
		ts.LSP = s.lsp
	}
	vision.SetVision(ts, st.Vision)
	spawn.SetAgents(ts, st.Agents)
	if st.AFT.Bin != "" {
		aft.SetAFT(ts, st.AFT)
	}
	impls := s.o.Impls
	if impls == nil {
		impls = tools.All()
	}
	if s.o.Rewind != nil {
		// /rewind's store sees every write through the one write path's hooks.
		ts.AddWriteHook(s.o.Rewind)
	}
	s.tools = ts
	// MCP servers start in the background; their tools bind in front of the shared ones.
	impls = s.startMCP(impls)
	if s.mcp != nil {
		codemode.SetDiscovery(ts, s.mcp.discovery())
	}
	// The loop drives the runner directly (agent.Tools): nothing of the session or the
	// command line is on a call's route (with MCP servers: the runner of the latest registry).
	s.impls = impls
	s.runner = toolrun.New(st.Registry, impls, ts)
	if s.mcp != nil {
		s.mcp.setRunner(s.runner)
	}
}

// branchFacts is what start reads from a branch's entries (gatherBranch).
type branchFacts struct {
	// replay is the messages the tools' read state is replayed from (toolrun.ReplayInput:
	// the tool results with details). Pointers, not copies. A 64 MB session's branch is
	// ~60,000 messages, which the replay and each of its hooks walked, a cache miss a
	// message (~15 ms of CPU); ~10,000 of them are replayed.
	replay []*llm.Message
	// thinkingLevel: the branch has a thinking_level_change entry.
	thinkingLevel bool
}

// gatherBranch walks a branch's entries once for what start needs of them.
func gatherBranch(branch []*session.Entry) branchFacts {
	var f branchFacts
	for _, e := range branch {
		switch {
		case e.Type == session.TypeThinkingLevelChange:
			f.thinkingLevel = true
		case e.Type == session.TypeMessage && e.Message != nil && e.Message.LLM != nil && toolrun.ReplayInput(e.Message.LLM):
			f.replay = append(f.replay, e.Message.LLM)
		}
	}
	return f
}

// saveAllow is the approvals' persistence hook: the ticked patterns go to the project's
// sandbox.json through the configuration's comment-keeping editor.
func (s *Session) saveAllow(patterns []string) (string, error) {
	if s.cfg == nil {
		return "", errNoConfig
	}
	return s.cfg.SaveAllow(patterns)
}

// reportSaved tells the front end what the persistence hook did.
func (s *Session) reportSaved(saved []string, err error) {
	if err != nil {
		s.fe.Notice(Notice{Text: "approval rules: " + err.Error(), Error: true})
		return
	}
	s.fe.Notice(Notice{Text: "Saved allow rules: " + joinComma(saved)})
}

// RunTool runs one call of the registry's tool name through the one execution path, as a
// session's loop would (`pigo tool run`); with a session file the call and its result are
// appended to it as an assistant message and its toolResult.
func (s *Session) RunTool(ctx context.Context, call toolrun.Call) (toolrun.Result, error) {
	ctx, done, err := s.begin(ctx)
	if err != nil {
		return toolrun.Result{}, err
	}
	defer done()
	r := s.toolRunner(ctx).Run(ctx, call, nil)
	if s.file.Path() == "" {
		return r, nil
	}
	return r, s.recordCall(call, r)
}

// recordCall appends a call as a session records it: the assistant message with the tool
// call, then its toolResult.
func (s *Session) recordCall(call toolrun.Call, r toolrun.Result) error {
	now := time.Now().UnixMilli()
	args := call.Arguments
	if v, err := toolrun.ParseValue(args); err == nil {
		args, _ = v.MarshalJSON()
	}
	am := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.TypeToolCall, ID: call.ID, Name: call.Name, Arguments: args}},
		API: "pigo", Provider: "pigo", Model: "tool-run", Usage: &llm.Usage{}, StopReason: llm.StopToolUse, Timestamp: now}
	if m := s.setup.Model; m != nil {
		am.Provider, am.Model = m.Provider, m.ID
	}
	if _, err := s.file.AppendMessage(am); err != nil {
		return err
	}
	isErr := r.IsError
	content := r.Content
	if content == nil {
		content = []llm.Content{}
	}
	tm := llm.Message{Role: llm.RoleToolResult, ToolCallID: call.ID, ToolName: call.Name, Content: content,
		Details: r.Details, IsError: &isErr, Timestamp: time.Now().UnixMilli()}
	_, err := s.file.AppendMessage(tm)
	return err
}

// warmTools builds, on another goroutine, what the first request needs from the tools and a
// process makes once: each offered tool's model schema (toolrun, once per tool) and pi's
// estimate of the tools' JSON length (llm's memo). The request finds both made instead of
// building them first: ~0.5 ms of a short -p session's start (perf: startTalk's LLMTools
// and the first ClampMaxTokens), done while the rest of the start runs on the other core.
// Both are pure functions of the tools, behind a sync.Once and a mutex, so a request that
// comes first builds them itself and the goroutine finds them.
func (s *Session) warmTools() {
	tools := s.agentTools()
	done := make(chan struct{})
	s.warmed = done
	go func() {
		defer close(done)
		llm.WarmToolsLen(tools.LLMTools())
	}()
}

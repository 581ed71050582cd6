package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/sys/unix"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/chat"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/session"
	"github.com/pigo-agent/pigo/internal/tools"
)

// runChat is `pigo [FLAGS] [PROMPT...]` on a terminal: the interactive chat (D22). The run is
// prepared as for -p; the tools' session gets the chat as its Approver, so writes outside
// the workspace, escalations and questions are asked instead of refused.
func (c *CLI) runChat(a *args) int {
	// resMu guards the registry /reload replaces while the UI reads its completions.
	var resMu sync.Mutex
	prompts := append(append([]string{}, a.pos...), a.rest...)
	if a.has("-r") && len(prompts) > 0 {
		fmt.Fprintln(c.Stderr, "pigo: --resume opens the session picker; give the prompt in the resumed session")
		return ExitUsage
	}
	r, err := c.prepareRun(a)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintln(c.Stderr, "pigo: "+ee.msg)
			}
			return ee.code
		}
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return ExitInternal
	}
	defer r.close()
	b := chat.NewBridge()
	r.toolSess.Headless = false
	r.toolSess.Approver = b
	if r.bwrap != nil {
		r.bwrap.Interactive = true
	}
	r.toolSess.Abort = b.Abort
	rw := chat.NewRewind(rewindDir(r.sess.Path()))
	r.tools = recordWrites(r.tools, rw, r.cfg.ProjectDir)
	r.wrapTools = func(t []agent.Tool) []agent.Tool { return recordWrites(t, rw, r.cfg.ProjectDir) }
	newAgent := func() *agent.Agent {
		ag := agent.New(agent.Config{Provider: r.provider, Model: r.model,
			Options:      llm.Options{ThinkingLevel: r.thinking, SessionID: r.sess.ID(), ProxyURL: r.proxy},
			SystemPrompt: r.system, Tools: r.tools, Settings: r.settings, Store: agent.SessionStore(r.sess), Emit: b.Emit,
			Hooks: agent.Hooks{BeforeModelCall: r.mcpHook()}})
		r.attachMCP(ag)
		return ag
	}
	ag := newAgent()
	expand := func(ctx context.Context, text string, out io.Writer) (string, bool, error) {
		return c.expander(r, out)(ctx, text)
	}
	o := chat.Options{Agent: ag, Bridge: b, Expand: expand, Model: r.model.Provider + "/" + r.model.ID, Thinking: r.thinking,
		ContextWindow: r.model.ContextWindow, Prompt: strings.Join(prompts, " "), Color: c.color(a),
		Persist: func(p []string) error { return c.persistAllow(r, p) }, Todo: todoWidget,
		Commands: func(q string) []chat.Completion {
			resMu.Lock()
			defer resMu.Unlock()
			return completions(r, q)
		},
		Session: func() string { return sessionInfo(r, ag) },
		// Leaf reads r.sess at each call: /new, /fork and /resume replace the session.
		Rewind: rw, Leaf: func() string { return r.sess.Leaf() },
		Restore: func(p chat.Point) (*agent.Agent, error) {
			if p.Leaf == "" {
				r.sess.ResetLeaf()
			} else if err := r.sess.SetLeaf(p.Leaf); err != nil {
				return nil, err
			}
			ag = newAgent()
			return ag, nil
		},
		Config: func() tea.Cmd { return c.configExplorer() }}
	o.Host = map[string]func(ctx context.Context, arg string) (chat.HostResult, error){
		"mcp": func(ctx context.Context, arg string) (chat.HostResult, error) {
			if r.mcp == nil {
				return chat.HostResult{Text: "No MCP servers in this session (mcp.json declares none, or --no-mcp)."}, nil
			}
			text, err := r.mcp.command(ctx, arg)
			return chat.HostResult{Text: text}, err
		},
		"new": func(context.Context, string) (chat.HostResult, error) {
			if err := r.sess.Close(); err != nil {
				return chat.HostResult{}, err
			}
			r.sess = session.New(r.cfg.ProjectDir, r.sess.Dir(), session.Options{})
			if _, err := r.sess.AppendModelChange(r.model.Provider, r.model.ID); err != nil {
				return chat.HostResult{}, err
			}
			if _, err := r.sess.AppendThinkingLevelChange(r.thinking); err != nil {
				return chat.HostResult{}, err
			}
			rw.Switch(rewindDir(r.sess.Path()))
			r.resetSeedState()
			ag = newAgent()
			return chat.HostResult{Text: "New session started", Agent: ag}, nil
		},
		"name": func(_ context.Context, name string) (chat.HostResult, error) {
			if name == "" {
				if n := r.sess.Name(); n != "" {
					return chat.HostResult{Text: "Session name: " + n}, nil
				}
				return chat.HostResult{Text: "Usage: /name <name>"}, nil
			}
			if _, err := r.sess.AppendSessionInfo(name); err != nil {
				return chat.HostResult{}, err
			}
			return chat.HostResult{Text: "Session name set: " + name}, nil
		},
		"model": func(_ context.Context, ref string) (chat.HostResult, error) {
			return switchModel(c, r, ref, newAgent, &ag)
		},
		"compact": func(ctx context.Context, instructions string) (chat.HostResult, error) {
			// pi passes /compact's argument to the summary prompt; the agent's compaction
			// takes none yet, so the person is told rather than silently ignored.
			note := ""
			if instructions != "" {
				note = "Compaction instructions are not supported yet; compacted without them"
			}
			if err := manualCompact(ctx, ag, agent.SessionStore(r.sess), r.settings, b.Emit); err != nil {
				return chat.HostResult{}, nil // compaction_end carried the error
			}
			ag = newAgent()
			return chat.HostResult{Text: note, Agent: ag, Keep: true}, nil
		},
		"fork": func(_ context.Context, id string) (chat.HostResult, error) {
			text, err := forkSession(r, id)
			if err != nil {
				return chat.HostResult{}, err
			}
			rw.Switch(rewindDir(r.sess.Path()))
			ag = newAgent()
			r.resetSeedState()
			return chat.HostResult{Text: "Forked to new session", Agent: ag, Input: text}, nil
		},
		"resume": func(_ context.Context, path string) (chat.HostResult, error) {
			if err := resumeSession(r, c.sessionLocation(r.cfg, a), path); err != nil {
				return chat.HostResult{}, err
			}
			text := "Resumed session"
			if note := restoreModel(c, r); note != "" {
				text = note + "\n" + text
			}
			rw.Switch(rewindDir(r.sess.Path()))
			ag = newAgent()
			r.resetSeedState()
			return chat.HostResult{Text: text, Agent: ag, Model: r.model.Provider + "/" + r.model.ID,
				ContextWindow: r.model.ContextWindow, Thinking: r.thinking}, nil
		},
		"tree": func(_ context.Context, id string) (chat.HostResult, error) {
			if id == r.sess.Leaf() {
				return chat.HostResult{Text: "Already at this point"}, nil
			}
			text, err := navigateTree(r.sess, id)
			if err != nil {
				return chat.HostResult{}, err
			}
			ag = newAgent()
			return chat.HostResult{Text: "Navigated to selected point", Agent: ag, Input: text}, nil
		},
		"reload": func(context.Context, string) (chat.HostResult, error) {
			resMu.Lock()
			text, err := c.reloadRun(r, a)
			resMu.Unlock()
			if err != nil {
				return chat.HostResult{}, err
			}
			ag = newAgent()
			return chat.HostResult{Text: text, Agent: ag, Keep: true}, nil
		},
		"!": func(ctx context.Context, cmd string) (chat.HostResult, error) {
			return userBash(ctx, r, cmd, false, newAgent, &ag)
		},
		"!!": func(ctx context.Context, cmd string) (chat.HostResult, error) {
			return userBash(ctx, r, cmd, true, newAgent, &ag)
		},
	}
	if a.has("-r") {
		o.Start = "/resume"
	}
	o.Pick = map[string]func() (chat.Picker, error){
		"model": func() (chat.Picker, error) { return modelPicker(r) },
		"fork":  func() (chat.Picker, error) { return forkPicker(r.sess), nil },
		"tree":  func() (chat.Picker, error) { return treePicker(r.sess), nil },
		"resume": func() (chat.Picker, error) {
			return resumePicker(c.sessionLocation(r.cfg, a))
		},
	}
	// The chat draws on the terminal itself (Main wraps stdout to catch write errors, which
	// would hide the terminal from bubbletea: no size, no resize events).
	out := c.Stdout
	if ew, ok := out.(*errWriter); ok {
		out = ew.w
	}
	if f, ok := out.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil {
			o.Width, o.Height = int(ws.Col), int(ws.Row)
		}
	}
	in := c.Stdin
	if in == nil {
		in = os.Stdin
	}
	if err := chat.Run(o, in, out); err != nil {
		fmt.Fprintf(c.Stderr, "pigo: %v\n", err)
		return ExitInternal
	}
	if err := r.sess.Close(); err != nil {
		fmt.Fprintf(c.Stderr, "pigo: session: %v\n", err)
		return ExitInternal
	}
	return ExitOK
}

// persistAllow appends ticked "allow forever" patterns to the project's sandbox.json
// approvalRules through the comment-keeping editor, and to the running session's rules.
func (c *CLI) persistAllow(r *run, patterns []string) error {
	var ops []config.EditOp
	for _, p := range patterns {
		v, _ := json.Marshal(map[string]string{"action": "allow", "pattern": p})
		ops = append(ops, config.EditOp{Op: config.OpAdd, Path: "approvalRules", Value: v})
	}
	ch, err := r.cfg.Edit(config.Sandbox, config.Project, ops...)
	if err != nil {
		return err
	}
	if err := ch.Write(); err != nil {
		return err
	}
	rules := append([]sandbox.Rule{}, r.toolSess.SandboxPolicy().ApprovalRules...)
	for _, p := range patterns {
		rules = append(rules, sandbox.Rule{Action: "allow", Pattern: p, Origin: sandbox.Origin{File: ch.File}})
	}
	r.toolSess.Rules = sandbox.CompileRules(rules)
	return nil
}

// todoWidget draws TodoWrite's and todowrite's lists.
func todoWidget(tool string, details json.RawMessage) []string {
	switch tool {
	case "TodoWrite":
		return tools.CCTodoWidget(details)
	case "todowrite":
		return tools.OCTodoWidget(details)
	}
	return nil
}

// completions is the slash menu for a typed prefix: pi's order, fuzzy-filtered as a session
// filters it.
func completions(r *run, q string) []chat.Completion {
	if r.res.Commands == nil {
		return nil
	}
	var out []chat.Completion
	for _, it := range engine.FuzzyFilter(r.res.Commands.Autocomplete, q, func(it engine.AutocompleteItem) string { return it.Name }) {
		out = append(out, chat.Completion{Name: it.Name, Tag: it.Tag, Description: it.Description})
	}
	return out
}

func sessionInfo(r *run, ag *agent.Agent) string {
	p := r.sess.Path()
	if p == "" {
		p = "(in memory)"
	}
	return fmt.Sprintf("Session %s\nFile: %s\nMessages: %d", r.sess.ID(), p, len(ag.Messages()))
}

// configExplorer runs `pigo tui` (the configuration explorer) on the terminal and returns
// to the chat when it quits.
func (c *CLI) configExplorer() tea.Cmd {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return tea.ExecProcess(exec.Command(exe, "tui"), func(error) tea.Msg { return nil })
}

// rewindDir is the sidecar directory of a session file's before-images ("" in memory).
func rewindDir(sessionPath string) string {
	if sessionPath == "" {
		return ""
	}
	return strings.TrimSuffix(sessionPath, ".jsonl") + ".rewind"
}

// writeTools are the file tools whose target /rewind restores, with their path argument.
var writeTools = map[string]string{"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
	"write": "filePath", "edit": "filePath"}

// recordWrites wraps the file-writing tools so each call stores the file's before-image
// for /rewind first, and the agent's result after.
func recordWrites(ts []agent.Tool, rw *chat.Rewind, cwd string) []agent.Tool {
	out := append([]agent.Tool(nil), ts...)
	for i := range out {
		t := &out[i]
		key, ok := writeTools[t.Name]
		if !ok || t.Execute == nil {
			continue
		}
		run := t.Execute
		t.Execute = func(ctx context.Context, id string, args json.RawMessage, update func(agent.Result)) (agent.Result, error) {
			var m map[string]any
			_ = json.Unmarshal(args, &m)
			p, _ := m[key].(string)
			if p == "" {
				p, _ = m["path"].(string) // pi's edit and write
			}
			if p == "" {
				return run(ctx, id, args, update)
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(cwd, p)
			}
			if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
			if err := rw.Before(p); err != nil {
				return agent.ErrorResult("rewind: cannot keep the before-image of " + p + ": " + err.Error()), nil
			}
			res, err := run(ctx, id, args, update)
			rw.After(p)
			return res, err
		}
	}
	return out
}

// userBash is `!cmd` (and `!!cmd`, kept out of the model's context): the person's command runs
// as the session's bash would (in its sandbox), its output is shown and recorded as pi's
// bashExecution message; the agent is rebuilt from the session so `!cmd` output is in its
// context.
func userBash(ctx context.Context, r *run, cmd string, exclude bool, newAgent func() *agent.Agent, ag **agent.Agent) (chat.HostResult, error) {
	plan, err := tools.BashPlan(r.toolSess)
	if err != nil {
		return chat.HostResult{}, err
	}
	out, err := tools.RunBash(ctx, tools.BashRun{Command: cmd, Dir: r.toolSess.Cwd, Plan: plan})
	if err != nil {
		return chat.HostResult{}, err
	}
	be := session.BashExecution{Command: cmd, Output: out.Output, ExitCode: out.ExitCode, Cancelled: out.Aborted,
		Truncated: out.Truncation.Truncated, FullOutputPath: out.FullOutputPath, Timestamp: time.Now().UnixMilli(), ExcludeFromContext: exclude}
	if _, err := r.sess.AppendBashExecution(be); err != nil {
		return chat.HostResult{}, err
	}
	*ag = newAgent()
	text := strings.TrimRight(out.Output, "\n")
	if out.ExitCode != nil && *out.ExitCode != 0 {
		text += fmt.Sprintf("\n(exit %d)", *out.ExitCode)
	} else if out.ExitCode == nil {
		text += "\n(cancelled)"
	}
	return chat.HostResult{Text: text, Agent: *ag, Keep: true}, nil
}

// modelRefs are the models the chat offers: models.json's custom models (in file order), then
// the catalogue's, each "provider/id" once.
func modelRefs(cfg *config.Config) []string {
	var out []string
	seen := map[string]bool{}
	add := func(ref string) {
		if k := strings.ToLower(ref); !seen[k] {
			seen[k] = true
			out = append(out, ref)
		}
	}
	if eff, err := cfg.Effective(config.Models); err == nil && eff.Root != nil {
		if ps := eff.Root.Get("providers"); ps != nil {
			for _, pm := range ps.Members {
				if ms := pm.Value.Get("models"); ms != nil {
					for _, mv := range ms.Elems {
						if id := mv.Get("id"); id != nil && id.Node != nil && id.Node.Str != "" {
							add(pm.Key + "/" + id.Node.Str)
						}
					}
				}
			}
		}
	}
	for _, m := range config.CatalogueModels() {
		add(m.Provider + "/" + m.ID)
	}
	return out
}

// modelPicker is /model's selector; the current model is marked.
func modelPicker(r *run) (chat.Picker, error) {
	cur := r.model.Provider + "/" + r.model.ID
	p := chat.Picker{Title: "Select model", Empty: "No models available"}
	for _, ref := range modelRefs(r.cfg) {
		label := ref
		if strings.EqualFold(ref, cur) {
			label += " ✓"
		}
		p.Items = append(p.Items, chat.PickItem{Label: label, Arg: ref})
	}
	return p, nil
}

// resolveModel resolves "provider/id" as --model does, with its wire client.
func resolveModel(c *CLI, r *run, ref string) (*llm.Model, llm.Provider, error) {
	mi, err := r.cfg.SessionModel(ref)
	if err != nil {
		return nil, nil, err
	}
	if mi == nil || mi.Source == "defaults" {
		return nil, nil, fmt.Errorf("Model not found: %s", ref)
	}
	m, err := c.llmModel(r.cfg, mi, mi.Provider+"/"+mi.ID, "")
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return nil, nil, errors.New(ee.msg)
		}
		return nil, nil, err
	}
	p, err := providerFor(m.API)
	if err != nil {
		return nil, nil, err
	}
	return m, p, nil
}

// useModel makes m the run's model (and the tools' session's).
func useModel(r *run, m *llm.Model, p llm.Provider) {
	r.model, r.provider = m, p
	r.toolSess.Model = m
	r.toolSess.Env.Provider, r.toolSess.Env.Model = m.Provider, m.ID
}

// switchModel is /model PROVIDER/ID: the model is resolved as --model resolves it, the
// session records a model_change (and the thinking level when clamping changed it), and the
// agent continues the same conversation with the new model.
func switchModel(c *CLI, r *run, ref string, newAgent func() *agent.Agent, ag **agent.Agent) (chat.HostResult, error) {
	m, p, err := resolveModel(c, r, ref)
	if err != nil {
		return chat.HostResult{}, err
	}
	if _, err := r.sess.AppendModelChange(m.Provider, m.ID); err != nil {
		return chat.HostResult{}, err
	}
	useModel(r, m, p)
	if t := clampThinking(m, r.thinking); t != r.thinking {
		r.thinking = t
		if _, err := r.sess.AppendThinkingLevelChange(t); err != nil {
			return chat.HostResult{}, err
		}
	}
	*ag = newAgent()
	return chat.HostResult{Text: "Model: " + m.Provider + "/" + m.ID, Agent: *ag, Keep: true,
		Model: m.Provider + "/" + m.ID, ContextWindow: m.ContextWindow, Thinking: r.thinking}, nil
}

// restoreModel continues a resumed session with its model and thinking level, as pi does;
// a model that no longer resolves keeps the current one and says why.
func restoreModel(c *CLI, r *run) (note string) {
	ctx := r.sess.Context()
	if ref := ctx.Model; ref != nil && !(strings.EqualFold(ref.Provider, r.model.Provider) && strings.EqualFold(ref.ModelID, r.model.ID)) {
		m, p, err := resolveModel(c, r, ref.Provider+"/"+ref.ModelID)
		if err != nil {
			note = fmt.Sprintf("Could not restore model %s/%s: %v", ref.Provider, ref.ModelID, err)
		} else {
			useModel(r, m, p)
		}
	}
	r.thinking = clampThinking(r.model, ctx.ThinkingLevel)
	return note
}

// manualCompact is /compact (pi's compact()): the branch is summarised through the agent's
// compaction and recorded in the store, between compaction_start and compaction_end events
// with reason "manual"; a failure is reported in compaction_end and returned.
func manualCompact(ctx context.Context, ag *agent.Agent, st agent.Store, s agent.Settings, emit func(agent.Event)) error {
	emit(agent.Event{Type: agent.EventCompactionStart, Reason: "manual"})
	fail := func(err error) error {
		if errors.Is(err, context.Canceled) {
			emit(agent.Event{Type: agent.EventCompactionEnd, Reason: "manual", Aborted: true})
			return err
		}
		emit(agent.Event{Type: agent.EventCompactionEnd, Reason: "manual", ErrorMessage: "Compaction failed: " + err.Error()})
		return err
	}
	branch := st.Branch()
	p := agent.PrepareCompaction(branch, s.Compaction)
	if p == nil {
		if n := len(branch); n > 0 && branch[n-1].Type == "compaction" {
			return fail(errors.New("Already compacted"))
		}
		return fail(errors.New("Nothing to compact (session too small)"))
	}
	c, err := ag.Compact(ctx, p, "manual")
	if err == nil && ctx.Err() != nil {
		err = context.Canceled
	}
	if err == nil {
		err = st.AppendCompaction(c)
	}
	if err != nil {
		return fail(err)
	}
	after, _ := agent.EstimateContextTokens(st.Context())
	emit(agent.Event{Type: agent.EventCompactionEnd, Reason: "manual", Compaction: &agent.CompactionResult{Summary: c.Summary,
		FirstKeptEntryID: c.FirstKeptEntryID, TokensBefore: c.TokensBefore, EstimatedTokensAfter: after, Usage: c.Usage, Details: c.Details}})
	return nil
}

// userText is a user message entry's text (pi's contentText: the text parts joined), "" for
// any other entry.
func userText(e *session.Entry) string {
	if e.Type != session.TypeMessage || e.Message == nil || e.Message.LLM == nil || e.Message.LLM.Role != llm.RoleUser {
		return ""
	}
	var b strings.Builder
	for _, c := range e.Message.LLM.Content {
		if c.Type == llm.TypeText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// forkPicker is /fork's selector: the session's user messages in file order (pi's
// getUserMessagesForForking), the newest selected.
func forkPicker(s *session.Session) chat.Picker {
	p := chat.Picker{Title: "Fork from which message?", Empty: "No messages to fork from"}
	for _, e := range s.Entries() {
		if t := userText(e); t != "" {
			line, _, _ := strings.Cut(t, "\n")
			p.Items = append(p.Items, chat.PickItem{Label: line, Arg: e.ID})
		}
	}
	p.Current = len(p.Items) - 1
	return p
}

// forkSession is /fork ID (pi's fork): the session continues in a new file holding the path
// up to before the user message, whose text it returns for the editor; forking from the first
// message starts an empty session whose parentSession is the old file.
func forkSession(r *run, id string) (string, error) {
	var target *session.Entry
	for _, e := range r.sess.Entries() {
		if e.ID == id {
			target = e
		}
	}
	text := ""
	if target != nil {
		text = userText(target)
	}
	if text == "" {
		return "", fmt.Errorf("Invalid entry ID for forking")
	}
	if target.ParentID == "" {
		old := r.sess.Path()
		if err := r.sess.Close(); err != nil {
			return "", err
		}
		r.sess = session.New(r.cfg.ProjectDir, r.sess.Dir(), session.Options{ParentSession: old})
		return text, nil
	}
	if _, err := r.sess.Branched(target.ParentID); err != nil {
		return "", err
	}
	return text, nil
}

// resumePicker is /resume's selector: this cwd's sessions, newest first, by name or first
// message, with their message counts.
func resumePicker(l session.Location) (chat.Picker, error) {
	infos, err := session.List(l, false)
	if err != nil {
		return chat.Picker{}, err
	}
	p := chat.Picker{Title: "Resume Session (Current Folder)", Empty: "No sessions found"}
	for _, in := range infos {
		label := in.Name
		if label == "" {
			label, _, _ = strings.Cut(in.FirstMessage, "\n")
		}
		p.Items = append(p.Items, chat.PickItem{Label: fmt.Sprintf("%s · %d messages", label, in.Messages), Arg: in.Path})
	}
	return p, nil
}

// resumeSession is /resume PATH: the chosen file is opened (its new branches stay in the
// session directory) and the current one closed; the chat continues the chosen conversation.
func resumeSession(r *run, l session.Location, path string) error {
	if path == r.sess.Path() {
		return nil
	}
	s, err := session.Open(path, session.OpenOptions{Dir: l.Dir, Cwd: l.Cwd})
	if err != nil {
		return err
	}
	if err := r.sess.Close(); err != nil {
		s.Close()
		return err
	}
	r.sess = s
	return nil
}

// treePicker is /tree's selector: the file's conversation entries depth first (siblings in
// file order), indented where the tree branches, the active leaf's entry selected.
func treePicker(s *session.Session) chat.Picker {
	p := chat.Picker{Title: "Navigate session tree", Empty: "No entries in session"}
	leaf := s.Leaf()
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		kids := s.Children(parent)
		d := depth
		if len(kids) > 1 {
			d++
		}
		for _, e := range kids {
			if label := treeLabel(e); label != "" {
				if e.ID == leaf {
					p.Current = len(p.Items)
				}
				p.Items = append(p.Items, chat.PickItem{Label: strings.Repeat("  ", d) + label, Arg: e.ID})
			} else if e.ID == leaf {
				p.Current = max(len(p.Items)-1, 0)
			}
			walk(e.ID, d)
		}
	}
	walk("", 0)
	return p
}

// treeLabel is an entry's line in /tree ("" for entries it does not show: tool results,
// model and thinking changes, labels).
func treeLabel(e *session.Entry) string {
	first := func(s string) string { l, _, _ := strings.Cut(strings.TrimSpace(s), "\n"); return l }
	switch e.Type {
	case session.TypeMessage:
		if e.Message == nil || e.Message.LLM == nil {
			if e.Message != nil && e.Message.Bash != nil {
				return "$ " + first(e.Message.Bash.Command)
			}
			return ""
		}
		m := e.Message.LLM
		var b strings.Builder
		for _, c := range m.Content {
			if c.Type == llm.TypeText {
				b.WriteString(c.Text)
			}
		}
		switch m.Role {
		case llm.RoleUser:
			return "user: " + first(b.String())
		case llm.RoleAssistant:
			if b.Len() == 0 {
				return ""
			}
			return "assistant: " + first(b.String())
		}
	case session.TypeCompaction:
		return "[compaction]"
	case session.TypeBranchSummary:
		return "[branch summary] " + first(e.Summary)
	}
	return ""
}

// navigateTree is /tree ID without a summary (pi's navigateTree): the leaf moves to the entry,
// or to before it when it is a user message, whose text it returns for the editor.
func navigateTree(s *session.Session, id string) (string, error) {
	e := s.Entry(id)
	if e == nil {
		return "", fmt.Errorf("Entry %s not found", id)
	}
	leaf, text := id, ""
	if t := userText(e); t != "" || (e.Type == session.TypeMessage && e.Message != nil && e.Message.LLM != nil && e.Message.LLM.Role == llm.RoleUser) {
		leaf, text = e.ParentID, t
	}
	if leaf == "" {
		s.ResetLeaf()
		return text, nil
	}
	return text, s.SetLeaf(leaf)
}

// reloadText is pi's /reload status.
const reloadText = "Reloaded keybindings, extensions, skills, prompts, themes, and context files"

// reloadRun is /reload: the configuration is loaded again and the registry re-resolved for the
// current model (commands, skills, prompt templates, context files, settings, the system
// prompt); the bound tools and the sandbox stay as the session started. Notices the load
// prints are returned with the status instead of going to the terminal under the chat.
func (c *CLI) reloadRun(r *run, a *args) (string, error) {
	var notes bytes.Buffer
	stderr := c.Stderr
	c.Stderr = &notes
	defer func() { c.Stderr = stderr }()
	a.vals["--model"] = []string{r.model.Provider + "/" + r.model.ID}
	cfg, res, ag, code := c.resolveAgent(a)
	if res == nil {
		return "", fmt.Errorf("reload failed (exit %d): %s", code, strings.TrimSpace(notes.String()))
	}
	var sub *config.ResolvedAgent
	if ag != nil {
		var err error
		if sub, err = cfg.Agent(ag.Name); err != nil {
			return "", fmt.Errorf("--agent: %v", err)
		}
	}
	settings, err := cfg.Effective(config.Settings)
	if err != nil {
		return "", err
	}
	var rs runSettings
	_ = json.Unmarshal(settings.JSON(), &rs)
	r.cfg, r.res, r.settings, r.settingsJSON = cfg, res, rs.agentSettings(), settings.JSON()
	r.system = c.systemPrompt(a, cfg, res, sub)
	text := reloadText
	if n := strings.TrimSpace(notes.String()); n != "" {
		text = n + "\n" + text
	}
	return text, nil
}

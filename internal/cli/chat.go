package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/pigo-agent/pigo/config"
	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/chat"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/tools"
)

// runChat is `pigo [FLAGS] [PROMPT...]` on a terminal: the interactive chat (D22). The run is
// prepared as for -p; the tools' session gets the chat as its Approver, so writes outside
// the workspace, escalations and questions are asked instead of refused.
func (c *CLI) runChat(a *args) int {
	if a.has("-r") {
		fmt.Fprintln(c.Stderr, "pigo: --resume: the session picker is not built yet; use --session PATH|ID or -c (continue the newest one)")
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
	r.ts.Headless = false
	r.ts.Approver = b
	r.ts.Abort = b.Abort
	rw := chat.NewRewind(rewindDir(r.sess.Path()))
	r.tools = recordWrites(r.tools, rw, r.cfg.ProjectDir)
	newAgent := func() *agent.Agent {
		return agent.New(agent.Config{Provider: r.provider, Model: r.model,
			Options:      llm.Options{ThinkingLevel: r.thinking, SessionID: r.sess.ID(), ProxyURL: r.proxy},
			SystemPrompt: r.system, Tools: r.tools, Settings: r.settings, Store: agent.SessionStore(r.sess), Emit: b.Emit})
	}
	ag := newAgent()
	expand := func(ctx context.Context, text string, out io.Writer) (string, bool, error) {
		return c.expander(r, out)(ctx, text)
	}
	prompts := append(append([]string{}, a.pos...), a.rest...)
	o := chat.Options{Agent: ag, Bridge: b, Expand: expand, Model: r.model.Provider + "/" + r.model.ID, Thinking: r.thinking,
		ContextWindow: r.model.ContextWindow, Prompt: strings.Join(prompts, " "), Color: c.color(a),
		Persist: func(p []string) error { return c.persistAllow(r, p) }, Todo: todoWidget,
		Commands: func(q string) []chat.Completion { return completions(r, q) },
		Session:  func() string { return sessionInfo(r, ag) },
		Rewind:   rw, Leaf: r.sess.Leaf,
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
	in := c.Stdin
	if in == nil {
		in = os.Stdin
	}
	if err := chat.Run(o, in, c.Stdout); err != nil {
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
	rules := append([]sandbox.Rule{}, r.ts.Sandbox.ApprovalRules...)
	for _, p := range patterns {
		rules = append(rules, sandbox.Rule{Action: "allow", Pattern: p, Origin: sandbox.Origin{File: ch.File}})
	}
	r.ts.Rules = sandbox.CompileRules(rules)
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

// Package spawn is the seed's spawn-agent: a task handed to a sub-agent defined in
// <agentDir>/agents/*.md, run as a child pigo session (`pigo -p --agent NAME --no-session
// --mode json`), so the child gets its own registry from the agent's tools and model, its
// fixed sandbox (the frontmatter's, else readonly with the network blocked; the user's
// sandbox.json is never read) and the spawn-agent.json defaults, exactly as --agent resolves
// them. The result is the child's last assistant text.
package spawn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Limits of the seed's tool.
const (
	MaxOutput     = 50 * 1024
	StderrTail    = 4 * 1024
	ProgressEvery = 100 * time.Millisecond
)

// Request is one spawn.
type Request struct {
	// Exe is the pigo binary; Cwd the child's working directory; AgentDir its --agent-dir
	// ("" = the default).
	Exe, Cwd, AgentDir string
	Agent, Task        string
	// Env is the child's environment (nil: the parent's).
	Env []string
	// Progress receives the child's progress (see progress), at most every ProgressEvery;
	// never after Run returns (nil: none).
	Progress func(text string)
}

// Result is the child's outcome.
type Result struct {
	// Text is what the tool returns; Failed marks an error result.
	Text   string
	Failed bool
	// Messages are the child's messages (the details of a truncated result).
	Messages []json.RawMessage
}

// event is one line of the child's JSON mode.
type event struct {
	Type     string          `json:"type"`
	Message  json.RawMessage `json:"message"`
	ToolName string          `json:"toolName"`
	Stream   *struct {
		Type    string `json:"type"`
		Delta   string `json:"delta"`
		Content string `json:"content"`
	} `json:"assistantMessageEvent"`
}

type message struct {
	Role       string `json:"role"`
	Model      string `json:"model"`
	StopReason string `json:"stopReason"`
	Error      string `json:"errorMessage"`
	Content    []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Usage *struct {
		TotalTokens int `json:"totalTokens"`
		Cost        struct {
			Total float64 `json:"total"`
		} `json:"cost"`
	} `json:"usage"`
}

func (m *message) text() string {
	var parts []string
	for _, c := range m.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Run runs the task in the child and blocks until its turn settles.
func Run(ctx context.Context, req Request) Result {
	args := []string{"-p", "--agent", req.Agent, "--no-session", "--mode", "json"}
	if req.AgentDir != "" {
		args = append(args, "--agent-dir", req.AgentDir)
	}
	args = append(args, "Task: "+req.Task)
	cmd := exec.CommandContext(ctx, req.Exe, args...)
	cmd.Dir, cmd.Env = req.Cwd, req.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Result{Text: "error: " + err.Error(), Failed: true}
	}
	if err := cmd.Start(); err != nil {
		return Result{Text: "error: " + err.Error(), Failed: true}
	}
	var (
		last     message
		haveLast bool
		msgs     []json.RawMessage
	)
	up := newUpdates(req.Progress)
	defer up.stop()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Type {
		case "tool_execution_start":
			up.change(func(p *progress) { p.toolStart(e.ToolName) })
		case "message_update":
			if e.Stream == nil {
				continue
			}
			switch e.Stream.Type {
			case "text_end":
				up.change(func(p *progress) { p.textEnd(e.Stream.Content) })
			case "thinking_delta":
				up.change(func(p *progress) { p.thinkingDelta(e.Stream.Delta) })
			case "thinking_end":
				up.change(func(p *progress) { p.thinkingEnd() })
			}
		case "message_end":
			if len(e.Message) == 0 {
				continue
			}
			msgs = append(msgs, append(json.RawMessage{}, e.Message...))
			var m message
			if json.Unmarshal(e.Message, &m) != nil || m.Role != "assistant" {
				continue
			}
			last, haveLast = m, true
			up.change(func(p *progress) { p.assistantEnd(&m) })
		}
	}
	waitErr := cmd.Wait()
	up.stop()
	text := ""
	if haveLast {
		text = last.text()
	}
	failed := waitErr != nil || (haveLast && (last.StopReason == "error" || last.StopReason == "aborted"))
	if failed {
		var b strings.Builder
		msg := ""
		if haveLast && last.Error != "" {
			msg = last.Error
		} else if waitErr != nil {
			msg = waitErr.Error()
		} else {
			msg = "Request " + last.StopReason
		}
		fmt.Fprintf(&b, "error: %s\n", msg)
		if s := strings.TrimSpace(tail(stderr.String(), StderrTail)); s != "" {
			fmt.Fprintf(&b, "stderr: %s\n", s)
		}
		if text != "" {
			fmt.Fprintf(&b, "output: %s", text)
		} else {
			b.WriteString("(no output)")
		}
		return Result{Text: b.String(), Failed: true, Messages: msgs}
	}
	if len(text) > MaxOutput {
		cut := text[:MaxOutput]
		for !utf8.ValidString(cut) {
			cut = cut[:len(cut)-1]
		}
		text = cut + fmt.Sprintf("\n\n[Output truncated at 50 KB (%d bytes in full); the full messages are in the details.]", len(last.text()))
		return Result{Text: text, Messages: msgs}
	}
	if text == "" {
		text = "(no output)"
	}
	return Result{Text: text}
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// updates sends the progress to the tool's update callback at most every ProgressEvery: a
// change within the interval is sent when it ends, so the last state of a burst is shown.
type updates struct {
	send func(string)
	mu   sync.Mutex
	p    *progress
	last time.Time
	// timer is the pending send; stopped is set when Run returns.
	timer   *time.Timer
	stopped bool
}

func newUpdates(send func(string)) *updates { return &updates{send: send, p: newProgress()} }

func (u *updates) change(f func(*progress)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	f(u.p)
	if u.send == nil || u.stopped || u.timer != nil {
		return
	}
	if wait := ProgressEvery - time.Since(u.last); wait > 0 {
		u.timer = time.AfterFunc(wait, u.flush)
		return
	}
	u.last = time.Now()
	u.send(u.p.render())
}

func (u *updates) flush() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.timer = nil
	if !u.stopped {
		u.last = time.Now()
		u.send(u.p.render())
	}
}

func (u *updates) stop() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stopped = true
	if u.timer != nil {
		u.timer.Stop()
		u.timer = nil
	}
}

// Package printmode is pi's print mode: a session driven without a person. The prompts run one
// after another; text mode prints the last reply, JSON mode every event as one line, closed by
// pigo's agent_settled lines that carry the exit code (cli.md). Notices go to standard error.
//
// The command line opens the session and exits with the code Run returns; the codes are
// cli.md's (0 done, 1 the model's request failed, 3 an I/O failure).
package printmode

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/pigo-agent/pigo/internal/agent"
	"github.com/pigo-agent/pigo/internal/app"
	"github.com/pigo-agent/pigo/internal/llm"
)

// cli.md's exit codes a print-mode run ends with (the agent_settled lines carry them too).
const (
	ExitOK       = 0
	ExitFailed   = 1
	ExitInternal = 3
)

// Frontend is a run's front end without a person: events as JSON lines (JSON mode), notices
// on Stderr.
type Frontend struct {
	Stderr  io.Writer
	events  *jsonWriter
	signals *signals
}

// NewFrontend is the front end of a run in mode ("text" or "json") printing to stdout and
// stderr. The run's SIGINT and SIGTERM handling starts registering now, beside the session's
// opening (see signals).
func NewFrontend(mode string, stdout, stderr io.Writer) *Frontend {
	f := &Frontend{Stderr: stderr, signals: watchSignals()}
	if mode == "json" {
		f.events = &jsonWriter{w: bufio.NewWriter(stdout)}
	}
	return f
}

// Event prints e as a JSON line in JSON mode.
func (f *Frontend) Event(e agent.Event) {
	if f.events != nil {
		f.events.line(e)
	}
}

// Notice prints n on standard error.
func (f *Frontend) Notice(n app.Notice) { fmt.Fprintln(f.Stderr, "pigo: "+n.Text) }

// jsonWriter prints events as JSON lines, serialised.
type jsonWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	err error
}

func (j *jsonWriter) line(v any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	b, err := json.Marshal(v)
	if err != nil {
		if j.err == nil {
			j.err = err
		}
		return
	}
	j.w.Write(b)
	j.w.WriteByte('\n')
	if err := j.w.Flush(); err != nil && j.err == nil {
		j.err = err
	}
}

// Run runs the prompts one after another on s (opened with f as its front end), prints the
// result and closes s; it returns the run's exit code.
func (f *Frontend) Run(s *app.Session, mode string, prompts []string, stdout io.Writer) int {
	if f.signals == nil {
		f.signals = watchSignals()
	}
	ctx, stop := f.signals.begin()
	defer stop()
	out, stderr := f.events, f.Stderr
	if out != nil {
		h := s.Header()
		out.line(&h)
	}
	cmdOut := stdout
	if mode == "json" {
		cmdOut = stderr // keep stdout JSON lines only
	}
	code := ExitOK
	var last *llm.Message
	for i, p := range prompts {
		r, err := s.Prompt(ctx, p, cmdOut)
		if err != nil {
			fmt.Fprintf(stderr, "pigo: %v\n", err)
			code = ExitFailed
		}
		if r.Handled {
			continue
		}
		last = r.Message
		failed := last != nil && (last.StopReason == llm.StopError || last.StopReason == llm.StopAborted)
		if failed {
			code = ExitFailed
		}
		// pi settles after each prompt; every settled line carries the exit code so far, and
		// the last one is the run's.
		if out != nil && i < len(prompts)-1 && ctx.Err() == nil {
			out.line(settled{"agent_settled", code})
		}
		if ctx.Err() != nil {
			break
		}
	}
	failed := last != nil && (last.StopReason == llm.StopError || last.StopReason == llm.StopAborted)
	if mode == "text" {
		if failed {
			msg := last.ErrorMessage
			if msg == "" {
				msg = "Request " + last.StopReason
			}
			fmt.Fprintln(stderr, msg)
		} else if m := lastWithText(s.Messages()); m != nil {
			for _, b := range m.Content {
				if b.Type == llm.TypeText {
					fmt.Fprintln(stdout, b.Text)
				}
			}
		}
	} else if failed && last.ErrorMessage != "" {
		fmt.Fprintln(stderr, last.ErrorMessage)
	}
	// Nothing the run did may be lost silently: a session entry that could not be written is
	// an I/O failure (exit 3), whatever the model did.
	if err := s.StoreErr(); err != nil {
		fmt.Fprintf(stderr, "pigo: the session file could not be written: %v\n", err)
		code = ExitInternal
	}
	if err := s.Close(); err != nil {
		fmt.Fprintf(stderr, "pigo: session: %v\n", err)
		code = ExitInternal
	}
	if out != nil {
		if out.err != nil {
			fmt.Fprintf(stderr, "pigo: writing events: %v\n", out.err)
			code = ExitInternal
		}
		out.line(settled{"agent_settled", code})
	}
	return code
}

// settled is pigo's agent_settled line: pi's, plus the exit code.
type settled struct {
	Type     string `json:"type"`
	ExitCode int    `json:"exit_code"`
}

// lastWithText is the last assistant message that has text: a run that ended on a tool turn
// still prints what the model last said.
func lastWithText(msgs []llm.Message) *llm.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := &msgs[i]
		if m.Role != llm.RoleAssistant {
			continue
		}
		for _, b := range m.Content {
			if b.Type == llm.TypeText && b.Text != "" {
				return m
			}
		}
	}
	return nil
}

// signals is signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM) for Run, registered on a
// goroutine of its own from NewFrontend on. os/signal's Notify and Stop each hand the signal
// mask to the runtime's signal thread and wait for its answer: the first Notify makes that
// thread (0.3–0.9 ms in the 4-request session's timeline, on the path to the first request
// when Run made it), and under load each wait is a wake-up of another thread (Stop's two were
// up to 1 ms at the run's end at load 9). The goroutine registers while the session opens and
// stays registered; it acts on a signal as the process did without it: from Run's beginning to
// its end the first signal cancels the run's context (later ones are taken), outside that
// span the signal ends the process by its default action (the goroutine stops the channel and
// sends the signal again), so no Stop waits at the end of a run.
type signals struct {
	ready chan struct{} // closed once Notify is registered
	ch    chan os.Signal

	mu      sync.Mutex
	running bool               // between begin and its stop
	cancel  context.CancelFunc // the running run's
}

func watchSignals() *signals {
	w := &signals{ready: make(chan struct{}), ch: make(chan os.Signal, 1)}
	go w.watch()
	return w
}

func (w *signals) watch() {
	signal.Notify(w.ch, os.Interrupt, syscall.SIGTERM)
	close(w.ready)
	for sig := range w.ch {
		w.mu.Lock()
		running, cancel := w.running, w.cancel
		w.mu.Unlock()
		if running {
			cancel()
			continue
		}
		// Outside a run: the default action, as without Notify (the runtime ends the process
		// by the signal once no channel takes it).
		signal.Stop(w.ch)
		if s, ok := sig.(syscall.Signal); ok {
			_ = syscall.Kill(syscall.Getpid(), s)
		}
		return
	}
}

// begin waits for the registration and returns the run's context, cancelled by the first
// signal, and its stop, which ends the run's span (later signals act by default again).
func (w *signals) begin() (context.Context, context.CancelFunc) {
	<-w.ready
	ctx, cancel := context.WithCancel(context.Background())
	w.mu.Lock()
	w.running, w.cancel = true, cancel
	w.mu.Unlock()
	return ctx, func() {
		cancel()
		w.mu.Lock()
		w.running = false
		w.mu.Unlock()
	}
}

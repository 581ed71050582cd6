// Package talk implements the talk-* tools over package internal/talk.
package talk

import (
	"context"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/talk"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	r.Register("talk", "talk-list-agents", talkTool(func(_ context.Context, c *talk.Core, inv *toolrun.Invocation) (string, error) {
		var a struct {
			Cwd string `json:"cwd"`
		}
		if err := inv.Decode(&a); err != nil {
			return "", err
		}
		return c.List(a.Cwd), nil
	}))
	r.Register("talk", "talk-send", talkTool(func(_ context.Context, c *talk.Core, inv *toolrun.Invocation) (string, error) {
		var a struct{ To, Message string }
		if err := inv.Decode(&a); err != nil {
			return "", err
		}
		return c.Send(a.To, a.Message), nil
	}))
	r.Register("talk", "talk-ask", talkTool(func(ctx context.Context, c *talk.Core, inv *toolrun.Invocation) (string, error) {
		var a struct {
			To, Message string
			TimeoutMs   *float64 `json:"timeoutMs"`
		}
		if err := inv.Decode(&a); err != nil {
			return "", err
		}
		timeout := talk.DefaultAskTimeout
		if a.TimeoutMs != nil {
			timeout = time.Duration(*a.TimeoutMs * float64(time.Millisecond))
		}
		return c.Ask(ctx, a.To, a.Message, timeout), nil
	}))
	r.Register("talk", "talk-reply", talkTool(func(_ context.Context, c *talk.Core, inv *toolrun.Invocation) (string, error) {
		var a struct {
			ReplyTo string `json:"replyTo"`
			Message string `json:"message"`
		}
		if err := inv.Decode(&a); err != nil {
			return "", err
		}
		return c.Reply(a.ReplyTo, a.Message), nil
	}))
}

// The talk tools (toolsets/talk.cue) act on the session's talk core, which the session's
// owner starts (talk.Start) and binds here with SetTalk, or SetTalkFunc to start it on the
// first call. Every outcome, refusals included, is a plain text result with empty details, as
// the seed's toolResult.

var talkCores sync.Map

// *toolrun.Session → func() (*talk.Core, error)

// SetTalk binds the talk core of a session (nil unbinds it).
func SetTalk(s *toolrun.Session, c *talk.Core) {
	if c == nil {
		talkCores.Delete(s)
		return
	}
	talkCores.Store(s, func() (*talk.Core, error) { return c, nil })
}

// SetTalkFunc binds a session's talk core as get gives it, on each call of a talk tool (get
// starts it the first time; its error is the tool's).
func SetTalkFunc(s *toolrun.Session, get func() (*talk.Core, error)) {
	talkCores.Store(s, get)
}

// talkNotStarted is the seed's text when the session never started its talk core.
const talkNotStarted = "Talk is not initialized (no session_start yet)."

func talkTool(run func(ctx context.Context, c *talk.Core, inv *toolrun.Invocation) (string, error)) toolrun.Impl {
	return toolrun.Impl{Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		v, ok := talkCores.Load(inv.Session)
		if !ok {
			return toolrun.TextResult(talkNotStarted, struct{}{}), nil
		}
		c, err := v.(func() (*talk.Core, error))()
		if err != nil {
			return toolrun.Result{}, err
		}
		if c == nil {
			return toolrun.TextResult(talkNotStarted, struct{}{}), nil
		}
		text, err := run(ctx, c, inv)
		if err != nil {
			return toolrun.Result{}, err
		}
		return toolrun.TextResult(text, struct{}{}), nil
	}}
}

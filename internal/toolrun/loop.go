package toolrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
)

// The agent loop runs pi's steps one by one (prepare, the beforeToolCall hook, execute, the
// afterToolCall hook), so it needs Run cut in two: PrepareCall is lookup and the argument
// pipeline, ExecutePrepared the implementation. Run is PrepareCall then ExecutePrepared.

// PrepareCall looks the call's tool up and runs pi's argument pipeline; an error's text is
// the model-visible result (`Tool <name> not found`, the validation text, …).
func (r *Runner) PrepareCall(call Call) (json.RawMessage, error) {
	t := r.Callable(call.Name)
	if t == nil {
		return nil, errText("Tool " + call.Name + " not found")
	}
	return r.PrepareTool(t, call)
}

// Callable is the tool a call names when it can be called (active or codemode-only), nil
// otherwise: the one name lookup of a call on the loop's route ([Runner.PrepareTool] and
// [Runner.ExecuteTool] take the tool it returns).
func (r *Runner) Callable(name string) *Tool {
	if t, ok := r.tools[name]; ok && Callable(t.State) {
		return t
	}
	return nil
}

// PrepareTool runs pi's argument pipeline for a call of t (from [Runner.Callable]).
func (r *Runner) PrepareTool(t *Tool, call Call) (json.RawMessage, error) {
	if t.impl == nil {
		return nil, errText(noImpl(t))
	}
	return r.prepare(t, call)
}

// ExecutePrepared runs the implementation of a call whose arguments PrepareCall returned. It
// never panics: a panic or returned error is an error result with pi's text.
func (r *Runner) ExecutePrepared(ctx context.Context, call Call, args json.RawMessage, progress func(Result)) Result {
	t, ok := r.tools[call.Name]
	if !ok || t.impl == nil {
		return ErrorResult("Tool " + call.Name + " not found")
	}
	return r.ExecuteTool(ctx, t, call, args, progress)
}

// ExecuteTool runs t's implementation for a call whose arguments PrepareTool returned. It
// never panics: a panic or returned error is an error result with pi's text; a returned
// [*Refusal] is kept on the result as a value.
func (r *Runner) ExecuteTool(ctx context.Context, t *Tool, call Call, args json.RawMessage, progress func(Result)) (res Result) {
	if t.impl == nil {
		return ErrorResult(noImpl(t))
	}
	defer func() {
		if p := recover(); p != nil {
			res = ErrorResult(fmt.Sprintf("Tool %s failed: %v", call.Name, p))
			if r.Session != nil && r.Session.PanicLog != nil {
				r.Session.PanicLog(call.Name, p, debug.Stack())
			}
		}
	}()
	if progress == nil {
		progress = func(Result) {}
	}
	inv := &Invocation{Call: call, Tool: t, Args: args, Session: r.Session, Progress: progress, Runner: r}
	res, err := t.impl.Execute(ctx, inv)
	if err != nil {
		res = ErrorResult(err.Error())
		var refused *Refusal
		if errors.As(err, &refused) {
			res.Refusal = refused
		}
	}
	return res
}

type errText string

func (e errText) Error() string { return string(e) }

// Package ext runs declarative extension tools (spec D6, D16): a tool declared in an
// extension file with an `exec` argv template runs that program in the sandbox. Each
// template word is one argv word; placeholders are replaced inside the word, never through a
// shell:
//   - a word that is exactly "{{name}}" becomes the argument's value as one word, or one
//     word per element for an array, and disappears when the argument is absent;
//   - a placeholder inside a longer word ("--count={{n}}") is replaced by the value's text,
//     and the whole word disappears when the argument is absent;
//   - strings are used as they are, numbers as JavaScript prints them, booleans as
//     "true"/"false", objects and arrays inside a word as JSON.
//
// The output (stdout and stderr merged) is the tool's text, tail-truncated as bash's. A tool
// that declares an output schema returns its standard output, parsed as JSON and checked
// against the schema, as the structured result.
package ext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pigo-agent/pigo/internal/lazy"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// Register sets r's runner for declarative extension tools.
func Register(r *toolrun.Impls) {
	all := r
	all.Exec = &toolrun.Impl{Execute: runExec}
}

var placeholder = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\{\{\s*([A-Za-z_$][A-Za-z0-9_$.-]*)\s*\}\}`) }}

// argText renders one argument value for an argv word.
func argText(v *toolrun.Value) string {
	switch v.Kind {
	case toolrun.String:
		return v.Str
	case toolrun.Number:
		return toolrun.FormatNumber(v.Num)
	case toolrun.Bool:
		if v.Bool {
			return "true"
		}
		return "false"
	case toolrun.Null:
		return "null"
	}
	b, _ := v.MarshalJSON()
	return string(b)
}

// ExpandArgv substitutes the arguments into an exec template.
func ExpandArgv(template []string, args *toolrun.Value) ([]string, error) {
	var out []string
	for i, w := range template {
		if m := placeholder.Get().FindStringSubmatch(w); m != nil && m[0] == w {
			v := args.Get(m[1])
			switch {
			case v == nil || v.Kind == toolrun.Null:
			case v.Kind == toolrun.Array:
				for _, e := range v.Arr {
					out = append(out, argText(e))
				}
			default:
				out = append(out, argText(v))
			}
			if i == 0 && (len(out) == 0 || out[0] == "") {
				return nil, errors.New("the program (the first exec word) is empty")
			}
			continue
		}
		absent := false
		word := placeholder.Get().ReplaceAllStringFunc(w, func(ph string) string {
			v := args.Get(placeholder.Get().FindStringSubmatch(ph)[1])
			if v == nil || v.Kind == toolrun.Null {
				absent = true
				return ""
			}
			return argText(v)
		})
		if !absent {
			out = append(out, word)
		}
		if i == 0 && (absent || word == "") {
			return nil, errors.New("the program (the first exec word) is empty")
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the exec template is empty")
	}
	return out, nil
}

func runExec(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	t := inv.Tool
	args, err := toolrun.ParseValue(inv.Args)
	if err != nil {
		return toolrun.Result{}, err
	}
	argv, err := ExpandArgv(t.Exec, args)
	if err != nil {
		return toolrun.Result{}, fmt.Errorf("Tool %s cannot run: %v", t.Name, err)
	}
	plan, err := toolkit.BashPlan(inv.Session)
	if err != nil {
		return toolrun.Result{}, err
	}
	var stdout bytes.Buffer
	out, err := toolkit.RunBash(ctx, toolkit.BashRun{Argv: argv, Dir: inv.Session.Cwd, Timeout: toolkit.DefaultBashTimeout, Plan: plan,
		SpillDir: toolkit.SpillDir(inv.Session), Stdout: &toolkit.CapBuffer{Buf: &stdout, Max: 5 << 20},
		Progress: func(tail string) { inv.Progress(toolrun.TextResult(tail, nil)) }})
	if err != nil {
		return toolrun.Result{}, err
	}
	text := out.Output
	if out.Truncation.Truncated && out.FullOutputPath != "" {
		t := out.Truncation
		text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Full output: %s]", t.TotalLines-t.OutputLines+1, t.TotalLines, t.TotalLines, out.FullOutputPath)
	}
	switch {
	case out.Aborted:
		return toolrun.Result{}, errors.New(toolkit.AppendStatus(text, "Command aborted"))
	case out.TimedOut:
		return toolrun.Result{}, errors.New(toolkit.AppendStatus(text, fmt.Sprintf("Command timed out after %d seconds", int(toolkit.DefaultBashTimeout.Seconds()))))
	case out.ExitCode == nil:
		return toolrun.Result{}, errors.New(toolkit.AppendStatus(text, "Command was killed by a signal"))
	case *out.ExitCode != 0:
		return toolrun.Result{}, errors.New(toolkit.AppendStatus(text, fmt.Sprintf("Command exited with code %d", *out.ExitCode)))
	}
	if text == "" {
		text = "(no output)"
	}
	res := toolrun.TextResult(text, map[string]any{"exitCode": *out.ExitCode})
	if len(t.Output) == 0 {
		return res, nil
	}
	raw := bytes.TrimSpace(stdout.Bytes())
	v, err := toolrun.ParseValue(raw)
	if err != nil {
		return res, nil // no JSON: no structured result (codemode says so)
	}
	schema, err := toolrun.CompileSchema(t.Output)
	if err != nil {
		return toolrun.Result{}, fmt.Errorf("Tool %s has an invalid output schema: %v", t.Name, err)
	}
	if errs := schema.Errors(v); len(errs) > 0 {
		var lines []string
		for _, e := range errs {
			lines = append(lines, "  - "+e.Path+": "+e.Message)
		}
		return toolrun.Result{}, fmt.Errorf("Tool %s printed JSON that does not match its output schema:\n%s", t.Name, strings.Join(lines, "\n"))
	}
	res.Structured, _ = v.MarshalJSON()
	return res, nil
}

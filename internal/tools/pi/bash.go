package pi

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// pi's largest timeout: setTimeout's limit, 2147483647 ms.
const piMaxTimeoutMs = 2147483647

type bashArgs struct {
	Command string `json:"command"`
	Timeout float  `json:"timeout"`
}

// piEnv is the environment pi's bash gives a command: the base environment without PI_*
// variables, then the session's PI_* unless exposeSessionEnvironment is off.
func piEnv(base []string, e toolrun.SessionEnv) []string {
	var out []string
	for _, kv := range base {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "PI_SESSION_ID", "PI_SESSION_FILE", "PI_PROVIDER", "PI_MODEL", "PI_REASONING_LEVEL":
			continue
		}
		out = append(out, kv)
	}
	if e.Hide {
		return out
	}
	add := func(k, v string) {
		if v != "" {
			out = append(out, k+"="+v)
		}
	}
	out = append(out, "PI_SESSION_ID="+e.SessionID)
	add("PI_SESSION_FILE", e.SessionFile)
	if e.Provider != "" || e.Model != "" {
		out = append(out, "PI_PROVIDER="+e.Provider, "PI_MODEL="+e.Model)
	}
	add("PI_REASONING_LEVEL", e.ReasoningLevel)
	return out
}

// BashTimeout is the timeout of one pi bash call: the one asked for, else none in the
// chat (pi's bash has no default) and DefaultBashTimeout headless, where nobody could stop
// `sleep infinity` (a deliberate difference from pi).
func BashTimeout(set time.Duration, headless bool) time.Duration {
	if set == 0 && headless {
		return toolkit.DefaultBashTimeout
	}
	return set
}

func piBash(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a bashArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	var timeout time.Duration
	if a.Timeout != nil {
		t := *a.Timeout
		if math.IsNaN(t) || math.IsInf(t, 0) || t <= 0 {
			return toolrun.Result{}, errors.New("Invalid timeout: must be a finite number of seconds")
		}
		if t*1000 > piMaxTimeoutMs {
			return toolrun.Result{}, errors.New("Invalid timeout: maximum is " + num(piMaxTimeoutMs/1000.0) + " seconds")
		}
		timeout = time.Duration(t * float64(time.Second))
	}
	timeout = BashTimeout(timeout, s.Headless)
	command := a.Command
	if s.Shell.CommandPrefix != "" {
		command = s.Shell.CommandPrefix + "\n" + command
	}
	shell := "/bin/bash"
	if s.Shell.Path != "" {
		if _, err := os.Stat(s.Shell.Path); err != nil {
			return toolrun.Result{}, errors.New("Custom shell path not found: " + s.Shell.Path)
		}
		shell = s.Shell.Path
	}
	plan, err := toolkit.BashPlan(s)
	if err != nil {
		return toolrun.Result{}, err
	}
	base := plan.Env
	if !plan.Sandboxed {
		base = os.Environ()
	}
	// pi's updates: an empty one at the start, then the tail (details as pi shapes them:
	// {} until the output is truncated).
	inv.Progress(toolrun.Result{Content: []llm.Content{}})
	out, err := toolkit.RunBash(ctx, toolkit.BashRun{Command: command, Dir: s.Cwd, Timeout: timeout, Plan: plan,
		Shell: []string{shell, "-c"}, Env: piEnv(base, s.Env),
		// pi's full-output file: <os temp dir>/pi-bash-<16 hex>.log, the path the model sees.
		SpillDir: os.TempDir(), SpillPrefix: "pi-bash",
		Progress: func(tail string) {
			t := toolkit.TruncateTail(tail, toolkit.MaxLines, toolkit.MaxBytes)
			r := toolrun.Result{Content: []llm.Content{llm.TextBlock(t.Content)}, Details: json.RawMessage(`{}`)}
			if t.Truncated {
				r.Details = toolrun.MustJSON(map[string]any{"truncation": t})
			}
			inv.Progress(r)
		}})
	if err != nil {
		if strings.HasPrefix(err.Error(), "Working directory does not exist") {
			return toolrun.Result{}, errors.New(err.Error() + "\nCannot execute bash commands.")
		}
		return toolrun.Result{}, err
	}
	if !out.Truncation.Truncated && out.FullOutputPath != "" {
		// pi keeps a temp file only for truncated output.
		os.Remove(out.FullOutputPath)
		out.FullOutputPath = ""
	}
	format := func(empty string) (string, any) {
		text := out.Output
		if text == "" {
			text = empty
		}
		t := out.Truncation
		if !t.Truncated {
			return text, nil
		}
		start, end := t.TotalLines-t.OutputLines+1, t.TotalLines
		switch {
		case t.LastLinePartial:
			text += "\n\n[Showing last " + toolkit.FormatSize(t.OutputBytes) + " of line " + Itoa(end) + " (line is " + toolkit.FormatSize(out.LastLineBytes) + "). Full output: " + out.FullOutputPath + "]"
		case *t.TruncatedBy == "lines":
			text += "\n\n[Showing lines " + Itoa(start) + "-" + Itoa(end) + " of " + Itoa(t.TotalLines) + ". Full output: " + out.FullOutputPath + "]"
		default:
			text += "\n\n[Showing lines " + Itoa(start) + "-" + Itoa(end) + " of " + Itoa(t.TotalLines) + " (" + toolkit.FormatSize(toolkit.MaxBytes) + " limit). Full output: " + out.FullOutputPath + "]"
		}
		return text, map[string]any{"truncation": t, "fullOutputPath": out.FullOutputPath}
	}
	switch {
	case out.Aborted:
		text, _ := format("")
		return toolrun.Result{}, errors.New(toolkit.AppendStatus(text, "Command aborted"))
	case out.TimedOut:
		text, _ := format("")
		return toolrun.Result{}, errors.New(toolkit.AppendStatus(text, "Command timed out after "+num(timeout.Seconds())+" seconds"))
	}
	text, details := format("(no output)")
	if out.ExitCode != nil && *out.ExitCode != 0 {
		return toolrun.Result{}, errors.New(toolkit.AppendStatus(text, "Command exited with code "+Itoa(*out.ExitCode)))
	}
	r := toolrun.TextResult(text, nil)
	if details != nil {
		r.Details = toolrun.MustJSON(orderedBash(details))
	}
	return r, nil
}

// orderedBash keeps pi's key order: truncation, then fullOutputPath.
func orderedBash(d any) any {
	m := d.(map[string]any)
	return struct {
		Truncation     any    `json:"truncation"`
		FullOutputPath string `json:"fullOutputPath"`
	}{m["truncation"], m["fullOutputPath"].(string)}
}

func Itoa(n int) string { return num(float64(n)) }

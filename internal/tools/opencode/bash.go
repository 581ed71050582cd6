package opencode

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

func ocBash(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a toolkit.SeedBashArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	a.Description = nil
	out, ms, full, err := toolkit.SeedBash(ctx, inv, "bash", a)
	if err != nil {
		return toolrun.Result{}, err
	}
	structured := toolrun.MustJSON(toolkit.BashStructured{ExitCode: out.ExitCode, Output: full})
	if out.Aborted {
		r := toolrun.ErrorResult(toolkit.AppendStatus(toolkit.BashTruncation(out.Output, out), "Command aborted"))
		r.Structured = structured
		return r, nil
	}
	if out.TimedOut {
		return toolrun.Result{Content: []llm.Content{
			llm.TextBlock("Command exceeded timeout of " + toolkit.JsNumber(ms) + " ms. Retry with a larger timeout if the command is expected to take longer."),
			llm.TextBlock("Command timed out before completion."),
		}, Details: json.RawMessage(`{"timeout":true}`), Structured: structured}, nil
	}
	text := out.Output
	if text == "" {
		text = "(no output)"
	}
	if out.Truncation.Truncated {
		text += "\n\n[output capture truncated at the in-memory safety limit]"
		if out.FullOutputPath != "" {
			text += "\nFull output: " + out.FullOutputPath
		}
	}
	code := "null"
	if out.ExitCode != nil {
		code = strconv.Itoa(*out.ExitCode)
	}
	details := struct {
		ExitCode       *int   `json:"exitCode"`
		Truncated      bool   `json:"truncated"`
		FullOutputPath string `json:"fullOutputPath,omitempty"`
	}{out.ExitCode, out.Truncation.Truncated, out.FullOutputPath}
	return toolrun.Result{Content: []llm.Content{llm.TextBlock(text), llm.TextBlock("Command exited with code " + code + ".")},
		Details: toolrun.MustJSON(details), Structured: structured}, nil
}

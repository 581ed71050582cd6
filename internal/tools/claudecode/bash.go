package claudecode

import (
	"context"
	"os"
	"strconv"
	"unicode/utf16"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// ccBashError is Claude Code's formatError: `Exit code <n>` and the full
// output; past 10 000 characters the first and last 5000 around a note.
func ccBashError(code int, output string) string {
	full := "Exit code " + strconv.Itoa(code)
	if output != "" {
		full += "\n" + output
	}
	units := utf16.Encode([]rune(full))
	if len(units) <= 10000 {
		return full
	}
	return string(utf16.Decode(units[:5000])) + "\n\n... [" + strconv.Itoa(len(units)-10000) + " characters truncated] ...\n\n" + string(utf16.Decode(units[len(units)-5000:]))
}

func ccBash(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a toolkit.SeedBashArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	out, ms, full, err := toolkit.SeedBash(ctx, inv, "Bash", a)
	if err != nil {
		return toolrun.Result{}, err
	}
	structured := toolrun.MustJSON(toolkit.BashStructured{ExitCode: out.ExitCode, Output: full})
	keep := out.Truncation.Truncated
	defer func() {
		if !keep && out.FullOutputPath != "" {
			os.Remove(out.FullOutputPath)
		}
	}()
	fail := func(msg string) (toolrun.Result, error) {
		r := toolrun.ErrorResult(msg)
		r.Structured = structured
		return r, nil
	}
	switch {
	case out.Aborted:
		return fail(toolkit.AppendStatus(toolkit.BashTruncation(out.Output, out), "Command aborted"))
	case out.TimedOut:
		return fail(toolkit.AppendStatus(toolkit.BashTruncation(out.Output, out), "Command timed out after "+toolkit.JsNumber(ms)+" milliseconds"))
	case out.ExitCode != nil && *out.ExitCode != 0:
		return fail(ccBashError(*out.ExitCode, full))
	}
	text := out.Output
	if text == "" {
		text = "(no output)"
	}
	r := toolrun.TextResult(toolkit.BashTruncation(text, out), nil)
	if keep && out.FullOutputPath != "" {
		r.Details = toolrun.MustJSON(struct {
			Truncation     toolkit.Truncation `json:"truncation"`
			FullOutputPath string             `json:"fullOutputPath"`
		}{out.Truncation, out.FullOutputPath})
	}
	r.Structured = structured
	return r, nil
}

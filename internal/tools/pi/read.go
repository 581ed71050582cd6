package pi

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"syscall"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

type readArgs struct {
	Path   string `json:"path"`
	Offset float  `json:"offset"`
	Limit  float  `json:"limit"`
}

func piRead(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a readArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	abs := toolkit.ResolveReadPath(a.Path, s.Cwd)
	if err := accessRead(abs); err != nil {
		return toolrun.Result{}, err
	}
	if ctx.Err() != nil {
		return toolrun.Result{}, errors.New(toolkit.ErrAborted)
	}
	buf, err := toolkit.ReadWhole(abs, "read")
	if err != nil {
		return toolrun.Result{}, err
	}
	mime := toolkit.DetectImage(buf[:min(len(buf), 4100)])
	if mime != "" {
		return readImage(buf, mime, s.Model), nil
	}
	return readText(toolkit.DecodeUTF8(buf), a), nil
}

// accessRead is fs.access(path, R_OK) with Node's error text (access(2): nothing is opened,
// so a FIFO cannot block it).
func accessRead(p string) error {
	if err := syscall.Access(p, 4); err != nil { // R_OK
		return toolkit.NodeError(err, "access", p)
	}
	return nil
}

func nonVisionNote(m *llm.Model) string {
	if m == nil || slices.Contains(m.Input, "image") {
		return ""
	}
	return "[Current model does not support images. The image will be omitted from this request.]"
}

func readImage(buf []byte, mime string, m *llm.Model) toolrun.Result {
	img, err := toolkit.ProcessImage(buf, mime)
	note := nonVisionNote(m)
	if err != nil {
		text := "Read image file [" + mime + "]\n" + err.Error()
		if note != "" {
			text += "\n" + note
		}
		return toolrun.Result{Content: []llm.Content{llm.TextBlock(text)}}
	}
	text := "Read image file [" + img.Mime + "]"
	if len(img.Hints) > 0 {
		text += "\n" + strings.Join(img.Hints, "\n")
	}
	if note != "" {
		text += "\n" + note
	}
	return toolrun.Result{Content: []llm.Content{llm.TextBlock(text),
		{Type: llm.TypeImage, Data: base64.StdEncoding.EncodeToString(img.Data), MimeType: img.Mime}}}
}

// jsSlice is Array.prototype.slice's index conversion (truncation, clamping).
func jsIndex(f float64, n int) int {
	if math.IsNaN(f) {
		return 0
	}
	f = math.Trunc(f)
	if f < 0 {
		f = math.Max(0, float64(n)+f)
	}
	return int(math.Min(f, float64(n)))
}

func readText(text string, a readArgs) toolrun.Result {
	lines := strings.Split(text, "\n")
	total := len(lines)
	start := 0.0
	if a.Offset != nil && *a.Offset != 0 {
		start = math.Max(0, *a.Offset-1)
	}
	startDisplay := start + 1
	if start >= float64(total) {
		return toolrun.ErrorResult(fmt.Sprintf("Offset %s is beyond end of file (%d lines total)", num(*a.Offset), total))
	}
	var selected string
	userLimited := -1.0
	if a.Limit != nil {
		end := math.Min(start+*a.Limit, float64(total))
		i, j := jsIndex(start, total), jsIndex(end, total)
		if j < i {
			j = i
		}
		selected = strings.Join(lines[i:j], "\n")
		userLimited = end - start
	} else {
		selected = strings.Join(lines[jsIndex(start, total):], "\n")
	}
	t := toolkit.TruncateHead(selected, toolkit.MaxLines, toolkit.MaxBytes)
	var out string
	var details any
	switch {
	case t.FirstLineExceedsLimit:
		first := lines[jsIndex(start, total)]
		out = fmt.Sprintf("[Line %s is %s, exceeds %s limit. Use bash: sed -n '%sp' %s | head -c %d]",
			num(startDisplay), toolkit.FormatSize(len(first)), toolkit.FormatSize(toolkit.MaxBytes), num(startDisplay), a.Path, toolkit.MaxBytes)
		details = map[string]any{"truncation": t}
	case t.Truncated:
		endDisplay := startDisplay + float64(t.OutputLines) - 1
		next := endDisplay + 1
		out = t.Content
		if *t.TruncatedBy == "lines" {
			out += fmt.Sprintf("\n\n[Showing lines %s-%s of %d. Use offset=%s to continue.]", num(startDisplay), num(endDisplay), total, num(next))
		} else {
			out += fmt.Sprintf("\n\n[Showing lines %s-%s of %d (%s limit). Use offset=%s to continue.]", num(startDisplay), num(endDisplay), total, toolkit.FormatSize(toolkit.MaxBytes), num(next))
		}
		details = map[string]any{"truncation": t}
	case userLimited >= 0 && start+userLimited < float64(total):
		remaining := float64(total) - (start + userLimited)
		out = fmt.Sprintf("%s\n\n[%s more lines in file. Use offset=%s to continue.]", t.Content, num(remaining), num(start+userLimited+1))
	default:
		out = t.Content
	}
	return toolrun.TextResult(out, details)
}

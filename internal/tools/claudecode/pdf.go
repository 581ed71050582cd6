package claudecode

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// Read's PDF pages (seed 004: "Read 支持 offset / limit 分页与 PDF pages"). Each page of the
// range is rendered to a PNG by poppler's pdftoppm and sent as an image, preceded by the page's
// text from pdftotext (a model without image input still gets the words). The PDF's bytes go
// to poppler on stdin, so poppler never opens a path the model named (no symlink race).

const (
	// pdfMaxPagesPerRead is the largest range one call renders.
	pdfMaxPagesPerRead = 20
	// pdfMaxPagesWhole is the largest PDF read whole, without a pages range.
	pdfMaxPagesWhole = 10
	// pdfMaxBytes is the largest PDF handed to poppler.
	pdfMaxBytes = 32 << 20
	// pdfDPI is the rendering resolution: a page of A4 is about 830×1170 pixels.
	pdfDPI = 100
	// pdfTimeout bounds each poppler run.
	pdfTimeout = 60 * time.Second
)

// pdfToolsMissing is the refusal when poppler's programs are not on PATH.
const pdfToolsMissing = "Reading a PDF needs pdfinfo, pdftotext and pdftoppm from poppler (the Debian/Ubuntu package poppler-utils, Homebrew's poppler), and %s is not on PATH."

// parsePages reads a pages argument: "N" or "N-M", pages counted from 1, M ≥ N. The range's
// size is checked here; its end against the page count by the caller.
func parsePages(s string) (first, last int, err error) {
	bad := fmt.Errorf("Invalid pages parameter %q: give one page (\"3\") or a range (\"1-5\"), pages counted from 1.", s)
	a, b, isRange := strings.Cut(strings.TrimSpace(s), "-")
	first, err1 := strconv.Atoi(strings.TrimSpace(a))
	last, err2 := first, error(nil)
	if isRange {
		last, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	if err1 != nil || err2 != nil || first < 1 || last < first {
		return 0, 0, bad
	}
	if n := last - first + 1; n > pdfMaxPagesPerRead {
		return 0, 0, fmt.Errorf("The pages range %q covers %d pages; at most %d pages are read per request. Read the PDF in smaller ranges.", s, n, pdfMaxPagesPerRead)
	}
	return first, last, nil
}

// poppler runs one of poppler's programs on the PDF's bytes (stdin) and returns its stdout.
func poppler(ctx context.Context, data []byte, name string, args ...string) ([]byte, error) {
	bin, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf(pdfToolsMissing, name)
	}
	ctx, cancel := context.WithTimeout(ctx, pdfTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = bytes.NewReader(data)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		msg := strings.TrimSpace(errb.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	return out.Bytes(), nil
}

// pdfPageCount asks pdfinfo for the number of pages.
func pdfPageCount(ctx context.Context, data []byte) (int, error) {
	out, err := poppler(ctx, data, "pdfinfo", "-")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Pages:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n, nil
			}
		}
	}
	return 0, errors.New("pdfinfo did not report a page count")
}

// pdfAborted turns a cancelled context into the tools' abort text.
func pdfAborted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errors.New(toolkit.ErrAborted)
	}
	return err
}

// ccReadPDF is Read on a PDF: the pages range (or the whole file up to pdfMaxPagesWhole pages)
// as one text block naming the range, then per page its text and its rendered image.
func ccReadPDF(ctx context.Context, inv *toolrun.Invocation, path string, size int64, pages string) (toolrun.Result, error) {
	first, last := 0, 0
	if strings.TrimSpace(pages) != "" {
		var err error
		if first, last, err = parsePages(pages); err != nil {
			return toolrun.Result{}, err
		}
	}
	if size > pdfMaxBytes {
		return toolrun.Result{}, fmt.Errorf("PDF file (%s) exceeds maximum allowed size (%s).", FileSize(size), FileSize(pdfMaxBytes))
	}
	for _, name := range []string{"pdfinfo", "pdftotext", "pdftoppm"} {
		if _, err := exec.LookPath(name); err != nil {
			return toolrun.Result{}, fmt.Errorf(pdfToolsMissing, name)
		}
	}
	data, err := toolkit.ReadWhole(path, "Read")
	if err != nil {
		return toolrun.Result{}, err
	}
	if len(data) == 0 {
		return toolrun.Result{}, errors.New("PDF file is empty: " + path)
	}
	total, err := pdfPageCount(ctx, data)
	if err != nil {
		return toolrun.Result{}, pdfAborted(ctx, fmt.Errorf("Cannot read PDF %s: %v", path, err))
	}
	switch {
	case total < 1:
		return toolrun.Result{}, errors.New("PDF file has no pages: " + path)
	case first == 0 && total > pdfMaxPagesWhole:
		return toolrun.Result{}, fmt.Errorf("%s has %d pages, too many to read at once. Give the pages parameter (e.g. \"1-5\"), at most %d pages per request.", path, total, pdfMaxPagesPerRead)
	case first == 0:
		first, last = 1, total
	case first > total:
		return toolrun.Result{}, fmt.Errorf("%s has %d page(s); the pages range %q starts after the last page.", path, total, pages)
	}
	last = min(last, total)
	dir, err := os.MkdirTemp("", "pigo-pdf-")
	if err != nil {
		return toolrun.Result{}, err
	}
	defer os.RemoveAll(dir)
	f, l := strconv.Itoa(first), strconv.Itoa(last)
	if _, err := poppler(ctx, data, "pdftoppm", "-png", "-r", strconv.Itoa(pdfDPI), "-f", f, "-l", l, "-", filepath.Join(dir, "page")); err != nil {
		return toolrun.Result{}, pdfAborted(ctx, fmt.Errorf("Cannot render PDF %s: %v", path, err))
	}
	text, err := poppler(ctx, data, "pdftotext", "-enc", "UTF-8", "-f", f, "-l", l, "-", "-")
	if err != nil {
		return toolrun.Result{}, pdfAborted(ctx, fmt.Errorf("Cannot read the text of PDF %s: %v", path, err))
	}
	// pdftotext ends every page with a form feed; pdftoppm names the images page-<n>.png with
	// n zero-padded to the width of the page count, so their names sort in page order.
	texts := strings.Split(toolkit.DecodeUTF8(text), "\f")
	images, _ := filepath.Glob(filepath.Join(dir, "page-*.png"))
	sort.Strings(images)
	if len(images) != last-first+1 {
		return toolrun.Result{}, fmt.Errorf("Cannot render PDF %s: pdftoppm wrote %d of %d pages", path, len(images), last-first+1)
	}
	tokens := (toolkit.Utf16Len(string(text)) + 3) / 4
	header := fmt.Sprintf("Read PDF file [pages %d-%d of %d]", first, last, total)
	if tokens > toolkit.MaxReadTokens {
		header += fmt.Sprintf("\n(the pages' text, %d tokens, is over the %d-token limit and left out: read fewer pages for it)", tokens, toolkit.MaxReadTokens)
	}
	content := []llm.Content{llm.TextBlock(header)}
	for i, img := range images {
		png, err := os.ReadFile(img)
		if err != nil {
			return toolrun.Result{}, err
		}
		label := fmt.Sprintf("Page %d", first+i)
		if tokens <= toolkit.MaxReadTokens && i < len(texts) {
			if t := strings.TrimSpace(texts[i]); t != "" {
				label += ":\n" + t
			} else {
				label += " (no text layer)"
			}
		}
		content = append(content, llm.TextBlock(label),
			llm.Content{Type: llm.TypeImage, Data: base64.StdEncoding.EncodeToString(png), MimeType: "image/png"})
	}
	rec := inv.Session.Reads("claude-code").Record(path, data, false)
	return toolrun.Result{Content: content, Details: toolrun.MustJSON(toolkit.ReadsDetails{Reads: rec})}, nil
}

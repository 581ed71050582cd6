package web

import (
	"context"
	"io"
	"net/url"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
	"github.com/pigo-agent/pigo/internal/web"
)

func webFetch(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		URL        string  `json:"url"`
		OutputPath *string `json:"output_path"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	s := inv.Session
	fail := func(err error) toolrun.Result {
		return toolkit.ErrDetails("抓取失败: "+err.Error(), map[string]any{"error": err.Error(), "url": a.URL})
	}
	// The network policy first: refused, nothing is fetched and no file is touched.
	permit, err := webPermit("web_fetch", s)
	if err != nil {
		return toolrun.Result{}, err
	}
	if u, err := url.Parse(a.URL); err == nil && permit != nil && u.Host != "" {
		if err := permit(u); err != nil {
			return toolrun.Result{}, err
		}
	}
	if a.OutputPath != nil {
		dest := toolkit.ResolvePath(*a.OutputPath, s.Cwd)
		// The write path as for the file tools, guarded before the download (the content is
		// not known yet, so the dialog shows the path only): the target is resolved and held
		// from then on, and the body streams into a file beside it that takes its name at
		// the end. A refusal is not a fetch failure.
		pw, err := s.PrepareWrite(ctx, toolrun.FileWrite{Tool: "web_fetch", Path: dest,
			ReadError: func(error) error { return nil },
			Update:    func(old []byte, _ bool) ([]byte, error) { return old, nil }})
		if err != nil {
			return toolrun.Result{}, toolkit.FsError(err)
		}
		c, err := NewClient(s)
		if err != nil {
			pw.Release()
			return fail(err), nil
		}
		c.SetPermit(permit)
		var f *web.Saved
		_, err = pw.CommitStream(ctx, func(w io.Writer) error {
			var err error
			f, err = c.Save(ctx, a.URL, w)
			return err
		})
		if refused := asRefusal(err); refused != nil {
			return toolrun.Result{}, refused
		}
		if err != nil {
			if f == nil {
				return fail(err), nil
			}
			return toolrun.Result{}, toolkit.FsError(err)
		}
		payload := struct {
			URL         string `json:"url"`
			FilePath    string `json:"file_path"`
			ContentType string `json:"content_type"`
			Bytes       int64  `json:"bytes"`
		}{f.URL, dest, f.ContentType, f.Bytes}
		return toolrun.TextResult(webJSON(payload), payload), nil
	}
	c, err := NewClient(s)
	if err != nil {
		return fail(err), nil
	}
	c.SetPermit(permit)
	page, err := c.Fetch(ctx, a.URL)
	if refused := asRefusal(err); refused != nil {
		return toolrun.Result{}, refused
	}
	if err != nil {
		return fail(err), nil
	}
	text, truncated := web.TruncateMarkdown(page.Markdown)
	return toolrun.TextResult(text, struct {
		URL       string `json:"url"`
		Title     string `json:"title"`
		Bytes     int    `json:"bytes"`
		Truncated bool   `json:"truncated"`
	}{page.URL, page.Title, len(page.Markdown), truncated}), nil
}

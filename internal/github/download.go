package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	gh "github.com/google/go-github/v84/github"
)

var unsafeTag = lazyRE(`[^A-Za-z0-9._+-]`)

// releaseDir is <cache>/releases/<owner>/<repo>/<tag>, the tag made one safe path segment.
func (c *Client) releaseDir(owner, name, tag string) string {
	safe := unsafeTag().ReplaceAllString(tag, "_")
	if strings.Trim(safe, ".") == "" {
		safe = "_"
	}
	return filepath.Join(c.cacheDir(), "releases", owner, name, safe)
}

// Patterns splits the comma-separated pattern parameter.
func Patterns(p string) []string {
	var out []string
	for _, s := range strings.Split(p, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// DownloadAssets is download-github-release-assets: the release's assets (those matching the
// globs) or its source archive into the release's cache directory, files already there kept;
// the result lists every regular file now in the directory.
func (c *Client) DownloadAssets(ctx context.Context, cwd, repo, tag, pattern, archive string, input any) (Result, error) {
	patterns := Patterns(pattern)
	if archive != "" && len(patterns) > 0 {
		return Result{}, errors.New("pattern and archive are mutually exclusive (pick asset globs or the source archive)")
	}
	cl, full, owner, name, err := c.target(ctx, cwd, repo, input)
	if err != nil {
		return Result{}, err
	}
	var rel *gh.RepositoryRelease
	if tag == "" {
		rel, _, err = cl.Repositories.GetLatestRelease(ctx, owner, name)
	} else {
		rel, _, err = cl.Repositories.GetReleaseByTag(ctx, owner, name, tag)
	}
	if err != nil {
		return Result{}, err
	}
	tagName := rel.GetTagName()
	dir := c.releaseDir(owner, name, tagName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Result{}, err
	}
	var names []string
	for _, a := range rel.Assets {
		names = append(names, a.GetName())
	}
	switch {
	case archive != "":
		u := rel.GetZipballURL()
		file := name + "-" + tagName + ".zip"
		if archive == "tar.gz" {
			u, file = rel.GetTarballURL(), name+"-"+tagName+".tar.gz"
		}
		if err := c.fetchTo(ctx, cl, u, "", filepath.Join(dir, filepath.Base(file))); err != nil {
			return Result{}, err
		}
	default:
		matched := 0
		for _, a := range rel.Assets {
			if !matchAny(patterns, a.GetName()) || a.GetName() != filepath.Base(a.GetName()) {
				continue
			}
			matched++
			if err := c.fetchTo(ctx, cl, a.GetURL(), "application/octet-stream", filepath.Join(dir, a.GetName())); err != nil {
				return Result{}, err
			}
		}
		if len(patterns) > 0 && matched == 0 {
			has := strings.Join(names, ", ")
			if has == "" {
				has = "(no assets)"
			}
			pj, _ := json.Marshal(patterns)
			return Result{}, fmt.Errorf("no asset of %s@%s matched %s; the release has: %s", full, tagName, pj, has)
		}
	}
	files, err := listFiles(dir)
	if err != nil {
		return Result{}, err
	}
	v := obj{"repo": full, "tag": tagName, "dir": dir, "files": files}
	if len(files) == 0 && archive == "" {
		return Result{Failed: true, Text: fmt.Sprintf("Nothing to download from %s@%s: the release has no assets (try archive for the source tarball)", full, tagName)}, nil
	}
	return jsonResult(v), nil
}

func matchAny(patterns []string, name string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

type releaseFile struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

func listFiles(dir string) ([]releaseFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := []releaseFile{}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, err
		}
		out = append(out, releaseFile{e.Name(), filepath.Join(dir, e.Name()), info.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// fetchTo downloads url into file unless it exists (the directory is a cache: a file there is
// never rewritten under a reader), through a temporary file so a failed download leaves none.
func (c *Client) fetchTo(ctx context.Context, cl *gh.Client, url, accept, file string) error {
	if _, err := os.Lstat(file); err == nil {
		return nil
	}
	req, err := cl.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	req = req.WithContext(ctx)
	// The API answers with a redirect to a storage host; the token must not follow it, so the
	// authenticated hop stops at the redirect and the storage URL (signed) is fetched bare.
	api := *cl.Client()
	api.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := api.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode/100 == 3 && loc != "" {
		u, err := resp.Request.URL.Parse(loc)
		if err != nil {
			return err
		}
		next, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return err
		}
		hc := c.HTTP
		if hc == nil {
			hc = http.DefaultClient
		}
		if resp, err = hc.Do(next); err != nil {
			return err
		}
		defer resp.Body.Close()
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("download %s: %s", url, resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, resp.Body); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

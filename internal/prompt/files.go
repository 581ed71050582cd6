package prompt

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// FileArgs is pi's processFileArguments for text files: each @file as
// <file name="ABS">\nCONTENT\n</file>\n (a BOM stripped, empty files skipped). Image files are
// not attached yet: they are refused rather than sent as text.
func FileArgs(cwd string, files []string) (string, error) {
	var b strings.Builder
	for _, f := range files {
		if f == "~" || strings.HasPrefix(f, "~/") {
			if h, err := os.UserHomeDir(); err == nil {
				f = filepath.Join(h, f[1:])
			}
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(cwd, f)
		}
		f = filepath.Clean(f)
		fi, err := os.Stat(f)
		if err != nil {
			return "", fmt.Errorf("File not found: %s", f)
		}
		if fi.Size() == 0 {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return "", fmt.Errorf("Could not read file %s: %v", f, err)
		}
		if mt := http.DetectContentType(data); strings.HasPrefix(mt, "image/") {
			return "", fmt.Errorf("@%s is an image (%s): image attachments from the command line are not supported yet", f, mt)
		}
		b.WriteString("<file name=\"" + f + "\">\n" + strings.TrimPrefix(string(data), "\ufeff") + "\n</file>\n")
	}
	return b.String(), nil
}

// Initial is pi's buildInitialMessage over a run's words: the @file words become FileArgs'
// text (relative to cwd); the piped text (read after the files, "" for none), then that text,
// then the first prompt, joined as they are, make the first prompt; the other words are the
// prompts that follow.
func Initial(cwd string, words []string, piped func() string) ([]string, error) {
	var prompts, files []string
	for _, w := range words {
		if strings.HasPrefix(w, "@") {
			files = append(files, w[1:])
		} else {
			prompts = append(prompts, w)
		}
	}
	fileText, err := FileArgs(cwd, files)
	if err != nil {
		return nil, err
	}
	if head := piped() + fileText; head != "" {
		if len(prompts) == 0 {
			prompts = []string{head}
		} else {
			prompts[0] = head + prompts[0]
		}
	}
	return prompts, nil
}

package pi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

// LocaleLess orders names as pi's ls does: a.toLowerCase().localeCompare(b.toLowerCase()).
func LocaleLess(a, b string) bool {
	pa, sa := toolkit.CollateKey(a)
	pb, sb := toolkit.CollateKey(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	if len(pa) != len(pb) {
		return len(pa) < len(pb)
	}
	if sa != sb {
		return sa < sb
	}
	return a < b
}

type lsArgs struct {
	Path  *string `json:"path"`
	Limit float   `json:"limit"`
}

func piLs(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a lsArgs
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	dir := toolkit.ResolvePath(orDot(a.Path), inv.Session.Cwd)
	limit := limitOr(a.Limit, 500)
	if !toolkit.Exists(dir) {
		return toolrun.Result{}, errors.New("Path not found: " + dir)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return toolrun.Result{}, toolkit.NodeError(err, "stat", dir)
	}
	if !st.IsDir() {
		return toolrun.Result{}, errors.New("Not a directory: " + dir)
	}
	f, err := os.Open(dir)
	if err != nil {
		return toolrun.Result{}, errors.New("Cannot read directory: " + toolkit.NodeError(err, "scandir", dir).Error())
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return toolrun.Result{}, errors.New("Cannot read directory: " + toolkit.NodeError(err, "scandir", dir).Error())
	}
	sort.SliceStable(names, func(i, j int) bool { return LocaleLess(names[i], names[j]) })
	var results []string
	limitReached := false
	for _, name := range names {
		if float64(len(results)) >= limit {
			limitReached = true
			break
		}
		if ctx.Err() != nil {
			return toolrun.Result{}, errors.New(toolkit.ErrAborted)
		}
		est, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if est.IsDir() {
			name += "/"
		}
		results = append(results, name)
	}
	if len(results) == 0 {
		return toolrun.TextResult("(empty directory)", nil), nil
	}
	t := toolkit.TruncateHead(strings.Join(results, "\n"), math.MaxInt, toolkit.MaxBytes)
	out := t.Content
	details := map[string]any{}
	var notices []string
	if limitReached {
		notices = append(notices, fmt.Sprintf("%s entries limit reached. Use limit=%s for more", num(limit), num(limit*2)))
		details["entryLimitReached"] = limit
	}
	if t.Truncated {
		notices = append(notices, toolkit.FormatSize(toolkit.MaxBytes)+" limit reached")
		details["truncation"] = t
	}
	return withNotices(out, notices, details), nil
}

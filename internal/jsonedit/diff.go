package jsonedit

import (
	"bytes"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
)

// Diff returns a unified diff from old to new with three lines of context,
// headed "--- a/NAME" and "+++ b/NAME" ("--- a/abs/path" for an absolute NAME), or "" when
// they are equal. A missing final newline is marked "\ No newline at end of file".
func Diff(name string, old, new []byte) string {
	name = strings.TrimPrefix(name, "/")
	out := diff.Diff("a/"+name, old, "b/"+name, new)
	if out == nil {
		return ""
	}
	// Drop the leading "diff a/NAME b/NAME" line.
	if i := bytes.IndexByte(out, '\n'); i >= 0 && bytes.HasPrefix(out, []byte("diff ")) {
		out = out[i+1:]
	}
	return string(out)
}

package toolkit

import (
	"strconv"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// unifiedPatch is details.patch: a unified diff with file headers only, laid out as pi's
// jsdiff (createTwoFilesPatch with FILE_HEADERS_ONLY) lays it out, so a patch pigo writes is
// byte for byte the one pi writes for the same change:
//   - every hunk header carries both counts ("@@ -3,1 +3,1 @@", never GNU's "@@ -3 +3 @@"),
//     and a side with no lines starts one line lower ("@@ -0,0 +1,2 @@");
//   - hunks join when the unchanged run between two changes is at most twice the context,
//     except the file's last unchanged run, which always closes the hunk;
//   - a line without a final newline is followed by "\ No newline at end of file";
//   - within a change, the removed lines come before the added ones.
func unifiedPatch(path, old, new string, context int) string {
	return UnifiedPatchParts(path, LineDiff(old, new), context)
}

// patchPart is one run of jsdiff's line diff: unchanged, removed or added lines, each line
// with its newline (the last one may have none).
type patchPart struct {
	lines          []string
	added, removed bool
}

// splitKeepNL splits s into lines that keep their "\n" (jsdiff's splitLines).
func splitKeepNL(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// patchParts turns line edits of old into jsdiff's run list: adjacent edits form one change,
// whose removed run precedes its added run.
func patchParts(old string, edits []udiff.Edit) []patchPart {
	var parts []patchPart
	at := 0
	for i := 0; i < len(edits); {
		e := edits[i]
		if e.Start > at {
			parts = append(parts, patchPart{lines: splitKeepNL(old[at:e.Start])})
		}
		// Merge the edits that touch: jsdiff reports one removed and one added run.
		start, end, added := e.Start, e.End, e.New
		for i++; i < len(edits) && edits[i].Start == end; i++ {
			end, added = edits[i].End, added+edits[i].New
		}
		if end > start {
			parts = append(parts, patchPart{lines: splitKeepNL(old[start:end]), removed: true})
		}
		if added != "" {
			parts = append(parts, patchPart{lines: splitKeepNL(added), added: true})
		}
		at = end
	}
	if at < len(old) {
		parts = append(parts, patchPart{lines: splitKeepNL(old[at:])})
	}
	return parts
}

type patchHunk struct {
	oldStart, oldLines, newStart, newLines int
	lines                                  []string
}

// UnifiedPatchParts formats the line diff parts as jsdiff's structuredPatch and formatPatch.
func UnifiedPatchParts(path string, parts []patchPart, context int) string {
	// The sentinel run closes the last hunk, as jsdiff appends an empty value.
	parts = append(parts[:len(parts):len(parts)], patchPart{})
	ctx := func(ls []string) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = " " + l
		}
		return out
	}
	var hunks []patchHunk
	oldRangeStart, newRangeStart := 0, 0
	var cur []string
	oldLine, newLine := 1, 1
	for i, p := range parts {
		if p.added || p.removed {
			if oldRangeStart == 0 {
				oldRangeStart, newRangeStart = oldLine, newLine
				if i > 0 {
					prev := parts[i-1].lines
					if context > 0 && len(prev) > context {
						prev = prev[len(prev)-context:]
					} else if context <= 0 {
						prev = nil
					}
					cur = ctx(prev)
					oldRangeStart -= len(cur)
					newRangeStart -= len(cur)
				}
			}
			sign := "-"
			if p.added {
				sign = "+"
			}
			for _, l := range p.lines {
				cur = append(cur, sign+l)
			}
			if p.added {
				newLine += len(p.lines)
			} else {
				oldLine += len(p.lines)
			}
			continue
		}
		if oldRangeStart != 0 {
			if len(p.lines) <= context*2 && i < len(parts)-2 {
				cur = append(cur, ctx(p.lines)...)
			} else {
				n := min(len(p.lines), context)
				cur = append(cur, ctx(p.lines[:n])...)
				hunks = append(hunks, patchHunk{oldRangeStart, oldLine - oldRangeStart + n, newRangeStart, newLine - newRangeStart + n, cur})
				oldRangeStart, newRangeStart, cur = 0, 0, nil
			}
		}
		oldLine += len(p.lines)
		newLine += len(p.lines)
	}
	var b strings.Builder
	b.WriteString("--- " + path + "\n+++ " + path + "\n")
	for _, h := range hunks {
		if h.oldLines == 0 {
			h.oldStart--
		}
		if h.newLines == 0 {
			h.newStart--
		}
		b.WriteString("@@ -" + strconv.Itoa(h.oldStart) + "," + strconv.Itoa(h.oldLines) + " +" + strconv.Itoa(h.newStart) + "," + strconv.Itoa(h.newLines) + " @@\n")
		for _, l := range h.lines {
			if strings.HasSuffix(l, "\n") {
				b.WriteString(l)
			} else {
				b.WriteString(l + "\n\\ No newline at end of file\n")
			}
		}
	}
	return b.String()
}

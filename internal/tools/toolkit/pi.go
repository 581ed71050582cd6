package toolkit

import (
	"encoding/base64"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"golang.org/x/text/unicode/norm"
)

const ErrAborted = "Operation aborted"

// ReadWhole reads a file a read tool shows: a regular file only (a FIFO, socket or device is
// refused before it is opened, so nothing blocks and /dev/zero is not read forever), at most
// [toolrun.MaxWholeFile] bytes, with a refusal that names the ceiling and the tool. A
// directory gives Node's EISDIR read error, as pi's read does.
func ReadWhole(p, tool string) ([]byte, error) {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return nil, NodeError(syscall.EISDIR, "read", "")
	}
	b, err := safefile.ReadRegular(p, toolrun.MaxWholeFile, tool)
	if err != nil {
		return nil, FsErrorAt(err, "open", p)
	}
	return b, nil
}

func AppendStatus(text, status string) string {
	if text != "" {
		return text + "\n\n" + status
	}
	return status
}

func SpillDir(s *toolrun.Session) string {
	if s.AgentDir == "" {
		return ""
	}
	return s.AgentDir + "/tmp"
}

func NormalizeLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// lineEdits is the line diff of old and new. The common head and tail (whole lines) are cut
// off first, so an edit of a large file costs the changed region plus one scan.
func lineEdits(old, new string) []udiff.Edit {
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	p = strings.LastIndexByte(old[:p], '\n') + 1
	q := 0
	for q < len(old)-p && q < len(new)-p && old[len(old)-1-q] == new[len(new)-1-q] {
		q++
	}
	if q < len(old)-p { // keep the tail on a line start
		if i := strings.IndexByte(old[len(old)-q:], '\n'); i >= 0 {
			q -= i + 1
		} else {
			q = 0
		}
	}
	if q < 0 {
		q = 0
	}
	edits := udiff.Lines(old[p:len(old)-q], new[p:len(new)-q])
	for i := range edits {
		edits[i].Start += p
		edits[i].End += p
	}
	return edits
}

// diffString is pi's generateDiffString: numbered +/- lines with `context` lines around
// each change, and the first changed line of the new file.
func diffString(old, new string, context int) (string, int) {
	return DiffStringParts(old, new, LineDiff(old, new), context)
}

// DiffStringParts renders the line diff parts of old → new.
func DiffStringParts(old, new string, lparts []patchPart, context int) (string, int) {
	width := len(strconv.Itoa(max(strings.Count(old, "\n"), strings.Count(new, "\n")) + 1))
	pad := func(n int) string { return fmt.Sprintf("%*d", width, n) }
	blank := strings.Repeat(" ", width)
	type part struct {
		lines    []string
		add, del bool
	}
	parts := make([]part, 0, len(lparts))
	for _, p := range lparts {
		// pi splits a run on "\n" and drops the empty string after a final newline.
		ls := make([]string, len(p.lines))
		for i, l := range p.lines {
			ls[i] = strings.TrimSuffix(l, "\n")
		}
		parts = append(parts, part{lines: ls, add: p.added, del: p.removed})
	}
	var out []string
	oldN, newN, first := 1, 1, 0
	lastChange := false
	for i, p := range parts {
		if p.add || p.del {
			if first == 0 {
				first = newN
			}
			for _, l := range p.lines {
				if p.add {
					out = append(out, "+"+pad(newN)+" "+l)
					newN++
				} else {
					out = append(out, "-"+pad(oldN)+" "+l)
					oldN++
				}
			}
			lastChange = true
			continue
		}
		next := i < len(parts)-1 && (parts[i+1].add || parts[i+1].del)
		show := func(ls []string) {
			for _, l := range ls {
				out = append(out, " "+pad(oldN)+" "+l)
				oldN++
				newN++
			}
		}
		skip := func(k int) {
			if k > 0 {
				out = append(out, " "+blank+" ...")
				oldN += k
				newN += k
			}
		}
		raw := p.lines
		switch {
		case lastChange && next:
			if len(raw) <= context*2 {
				show(raw)
			} else {
				show(raw[:context])
				skip(len(raw) - 2*context)
				show(raw[len(raw)-context:])
			}
		case lastChange:
			k := min(context, len(raw))
			show(raw[:k])
			skip(len(raw) - k)
		case next:
			k := max(0, len(raw)-context)
			skip(k)
			show(raw[k:])
		default:
			oldN += len(raw)
			newN += len(raw)
		}
		lastChange = false
	}
	return strings.Join(out, "\n"), first
}

// icuASCII is the primary order of the lower-case printable ASCII characters under ICU's root
// collation (what String.prototype.localeCompare uses in en-US).
const icuASCII = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"

var icuRank = func() [128]int {
	var r [128]int
	for i := range r {
		r[i] = -1
	}
	for i := 0; i < len(icuASCII); i++ {
		r[icuASCII[i]] = i + 1
	}
	return r
}()

// CollateKey approximates ICU root collation for file names: a primary key (accents and case
// ignored, ASCII in ICU's order, other characters after ASCII by code point) and the
// accent-bearing form as the tie-breaker.
func CollateKey(s string) (primary []int, secondary string) {
	d := norm.NFD.String(strings.ToLower(s))
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if exp, ok := collateExpand[r]; ok {
			for _, e := range exp {
				primary = append(primary, icuRank[e])
			}
			continue
		}
		if r < 128 && icuRank[r] > 0 {
			primary = append(primary, icuRank[r])
		} else {
			primary = append(primary, 1000+int(r))
		}
	}
	return primary, d
}

// collateExpand are letters ICU's root collation sorts as two letters.
// Letters with a stroke sort as their base letter (an accent-level difference).
var collateExpand = map[rune]string{'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ł': "l", 'ħ': "h", 'ŧ': "t"}

type RgText struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (t RgText) Str() (string, bool) {
	if t.Text != nil {
		return *t.Text, true
	}
	if t.Bytes != nil {
		b, err := base64.StdEncoding.DecodeString(*t.Bytes)
		if err == nil {
			return DecodeUTF8(b), true
		}
	}
	return "", false
}

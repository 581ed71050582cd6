package toolkit

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/sandbox"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"golang.org/x/text/unicode/norm"
)

const (
	// MaxReadBytes is the largest file a Read without limit returns.
	MaxReadBytes = 256 << 10
	// MaxReadTokens caps the formatted output (chars/4, rounded up).
	MaxReadTokens = 25000
	// MaxEditBytes is the largest file Edit opens.
	MaxEditBytes = 1 << 30
	// SampleBytes is how much of a file the binary sniffers look at.
	SampleBytes = 4096
)

// IsBinarySample is the seed's sniffer: a NUL byte, or more than 30 % of
// control bytes other than \t \n \v \f \r.
func IsBinarySample(sample []byte) bool {
	suspicious := 0
	for _, b := range sample {
		if b == 0 {
			return true
		}
		if b < 9 || (b > 13 && b < 32) {
			suspicious++
		}
	}
	return len(sample) > 0 && float64(suspicious)/float64(len(sample)) > 0.3
}

// AbsPath makes p absolute against cwd (claude-code and opencode both
// accept relative paths; ~ is not expanded, as in the seed's file tools).
func AbsPath(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// JsNumber is String(n) for the numbers a model sends.
func JsNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Plural is n and noun, with an s unless n is 1.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// ErrNoRG is the text for a missing ripgrep binary.
var ErrNoRG = errors.New("ripgrep (rg) was not found on PATH; install ripgrep to use this tool.")

// ReadsDetails is the details of a recording tool: its `reads` entry.
type ReadsDetails struct {
	Reads map[string]toolrun.Snapshot `json:"reads"`
}

// WithDiagnostics appends the LSP diagnostics of path (content is what is
// on disk now) to a success text, as the seed's appendLspDiagnosticText.
func WithDiagnostics(ctx context.Context, s *toolrun.Session, text, path string, content []byte) string {
	if s.LSP == nil {
		return text
	}
	return AppendDiagnostics(text, s.LSP.Diagnostics(ctx, path, content))
}

// editDetails is Edit's and edit's details: pi's diff of the change, the
// unified patch, the first changed line and the read recorded.
type FileEditDetails struct {
	Diff             string                      `json:"diff"`
	Patch            string                      `json:"patch"`
	FirstChangedLine *int                        `json:"firstChangedLine,omitempty"`
	Reads            map[string]toolrun.Snapshot `json:"reads"`
}

func NewEditDetails(path string, old, new []byte, rec map[string]toolrun.Snapshot) FileEditDetails {
	o, n := NormalizeLF(DecodeUTF8(old)), NormalizeLF(DecodeUTF8(new))
	parts := LineDiff(o, n)
	_, first := DiffStringParts(o, n, parts, 4)
	do, dn := tabsToSpaces(o), tabsToSpaces(n)
	diff, _ := diffString(do, dn, 4)
	d := FileEditDetails{Diff: diff, Patch: UnifiedPatchParts(path, parts, 4), Reads: rec}
	if first > 0 {
		d.FirstChangedLine = &first
	}
	return d
}

// tabsToSpaces turns each leading tab of a line into two spaces: the
// diff in Edit's details is for display, and tabs render unevenly.
func tabsToSpaces(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if n > 0 {
			lines[i] = strings.Repeat("  ", n) + l[n:]
		}
	}
	return strings.Join(lines, "\n")
}

// Question is one question as the dialog shows it (package approve).
type Question = approve.Question

// QuestionOption is one choice of a question.
type QuestionOption = approve.Option

// Ask puts q to the person through the session's approvals; noUI is the tool's refusal
// when nobody can be asked.
func Ask(ctx context.Context, s *toolrun.Session, tool string, q Question, noUI string) ([]string, error) {
	d, err := s.ApproverFor(ctx).Ask(ctx, approve.Request{Kind: approve.KindQuestion, Tool: tool, Title: q.Title, Question: &q, NoUI: noUI})
	if err != nil {
		return nil, err
	}
	return d.Answers, nil
}

// SeedBashArgs are the arguments of claude-code's Bash and opencode's bash.
type SeedBashArgs struct {
	Command     string   `json:"command"`
	Timeout     *float64 `json:"timeout"`
	Description *string  `json:"description"`
	Workdir     *string  `json:"workdir"`
	Unsandboxed *bool    `json:"dangerouslyDisableSandbox"`
}

// BashStructured is both toolsets' structured Bash result: the exit code
// (null when killed) and the complete merged output.
type BashStructured struct {
	ExitCode *int   `json:"exitCode"`
	Output   string `json:"output"`
}

// SeedBash runs a command for Bash or bash: the timeout check (ms, default
// 120000, at most 600000), the working directory, the sandbox plan or an
// approved escalation, then the shared runner. It returns the output and
// the complete output for the structured result.
func SeedBash(ctx context.Context, inv *toolrun.Invocation, tool string, a SeedBashArgs) (BashOutput, float64, string, error) {
	s := inv.Session
	ms := float64(DefaultBashTimeout / time.Millisecond)
	if a.Timeout != nil {
		ms = *a.Timeout
	}
	if math.IsNaN(ms) || math.IsInf(ms, 0) || ms <= 0 || ms > float64(MaxBashTimeout/time.Millisecond) {
		return BashOutput{}, 0, "", errors.New("timeout must be between 1 and 600000 milliseconds")
	}
	dir := s.Cwd
	if a.Workdir != nil && *a.Workdir != "" {
		dir = AbsPath(s.Cwd, *a.Workdir)
	}
	var plan *sandbox.Plan
	if a.Unsandboxed != nil && *a.Unsandboxed {
		esc, err := Escalate(ctx, s, tool, a.Command)
		if err != nil {
			return BashOutput{}, 0, "", err
		}
		plan = esc.Plan
	} else {
		p, err := BashPlan(s)
		if err != nil {
			return BashOutput{}, 0, "", err
		}
		plan = p
	}
	inv.Progress(toolrun.Result{Content: []llm.Content{}})
	out, err := RunBash(ctx, BashRun{Command: a.Command, Dir: dir, Timeout: time.Duration(ms * float64(time.Millisecond)),
		Plan: plan, SpillDir: SpillDir(s), Progress: func(tail string) {
			t := TruncateTail(tail, MaxLines, MaxBytes)
			inv.Progress(toolrun.Result{Content: []llm.Content{llm.TextBlock(t.Content)}})
		}})
	if err != nil {
		return BashOutput{}, 0, "", err
	}
	full := out.Output
	if out.FullOutputPath != "" && out.Truncation.Truncated {
		if b, err := os.ReadFile(out.FullOutputPath); err == nil {
			full = DecodeUTF8(b)
		}
	}
	return out, ms, full, nil
}

// BashTruncation appends the truncation note of a truncated output.
func BashTruncation(text string, out BashOutput) string {
	t := out.Truncation
	if !t.Truncated || out.FullOutputPath == "" {
		return text
	}
	start, end := t.TotalLines-t.OutputLines+1, t.TotalLines
	switch {
	case t.LastLinePartial:
		return text + "\n\n[Showing last " + FormatSize(t.OutputBytes) + " of line " + strconv.Itoa(end) + " (line is " + FormatSize(out.LastLineBytes) + "). Full output: " + out.FullOutputPath + "]"
	case t.TruncatedBy != nil && *t.TruncatedBy == "lines":
		return text + "\n\n[Showing lines " + strconv.Itoa(start) + "-" + strconv.Itoa(end) + " of " + strconv.Itoa(t.TotalLines) + ". Full output: " + out.FullOutputPath + "]"
	}
	return text + "\n\n[Showing lines " + strconv.Itoa(start) + "-" + strconv.Itoa(end) + " of " + strconv.Itoa(t.TotalLines) + " (" + FormatSize(MaxBytes) + " limit). Full output: " + out.FullOutputPath + "]"
}

// GlobParams are the parameters of both toolsets' glob tools.
type GlobParams struct {
	Pattern string  `json:"pattern"`
	Path    *string `json:"path"`
}

// TextTool is a tool whose whole result is one text computed from its decoded parameters.
func TextTool[P any](run func(ctx context.Context, s *toolrun.Session, p *P) (string, error)) toolrun.Impl {
	return toolrun.Impl{Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		var p P
		if err := inv.Decode(&p); err != nil {
			return toolrun.Result{}, err
		}
		text, err := run(ctx, inv.Session, &p)
		if err != nil {
			return toolrun.Result{}, err
		}
		return toolrun.TextResult(text, nil), nil
	}}
}

// LocaleLessCased orders names as JavaScript's a.localeCompare(b) in an
// English locale (ICU's root collation), case included: the primary and
// accent levels of collateKey, then case, lower before upper, at the first
// character where the two differ only by case.
func LocaleLessCased(a, b string) bool {
	pa, sa := CollateKey(a)
	pb, sb := CollateKey(b)
	for _, p := range [][]int{pa, pb} {
		for i, v := range p {
			if v == 1000+'\t' { // a tab sorts just before a space
				p[i] = 0
			}
		}
	}
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
	ra, rb := []rune(norm.NFD.String(a)), []rune(norm.NFD.String(b))
	for i := 0; i < len(ra) && i < len(rb); i++ {
		ua, ub := unicode.IsUpper(ra[i]), unicode.IsUpper(rb[i])
		if ua != ub {
			return ub
		}
	}
	return len(ra) < len(rb)
}

// CutUTF16 cuts s to at most n UTF-16 code units, never inside a character.
func CutUTF16(s string, n int) (string, bool) {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i], true
		}
		units += w
	}
	return s, false
}

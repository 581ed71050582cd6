package codemode

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/pigo-agent/pigo/internal/approve"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Name is the codemode tool's name; its results carry the store writes to replay.
const Name = "codemode"

// FS is the host side of fs.read and fs.write: they share the session's read state and
// write guard with the file tools. Reads is the `details.reads` entry the primitive
// records.
type FS interface {
	Read(ctx context.Context, s *toolrun.Session, path string) (text string, reads map[string]toolrun.Snapshot, err error)
	Write(ctx context.Context, s *toolrun.Session, path, content string) (reads map[string]toolrun.Snapshot, err error)
}

// Impl is the codemode tool's implementation, for registration under toolset "codemode".
func Impl(fs FS) toolrun.Impl {
	return toolrun.Impl{
		Sequential: true,
		Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
			return execute(ctx, inv, fs)
		},
		Describe: func(r *toolrun.Runner, declared string) string {
			return describe(declared, decls(r), hasDiscovery(r))
		},
	}
}

func decls(r *toolrun.Runner) []Decl {
	var out []Decl
	for _, t := range r.CodemodeCallable() {
		if t.Name == Name || t.Toolset == "mcp" {
			// MCP tools are callable but not declared here (pi 1.6): the description stays the
			// same while servers connect, and scripts find them with searchTools(),
			// describeTool(), describeNamespace() (discover.go) or in ALL_TOOLS.
			continue
		}
		out = append(out, Decl{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Output: t.Output})
	}
	return out
}

// TextNeedsPerson is the refusal of a nested call that would open a dialog (a write outside
// the workspace, a command outside the sandbox): nobody can be asked from inside a script,
// so the call fails as a CallFailedError and the model can make it directly.
func TextNeedsPerson(tool string) string {
	return `Tool "` + tool + `" needs the user's approval, which cannot be asked for inside codemode; use a direct call.`
}

type storeKey struct{}

// store is the session's codemode store, rebuilt by Session.Replay from the branch.
type store struct {
	mu sync.Mutex
	m  map[string]json.RawMessage
}

func storeOf(s *toolrun.Session) *store {
	return s.State(storeKey{}, func() any { return &store{m: map[string]json.RawMessage{}} }).(*store)
}

func init() {
	toolrun.OnReplay(func(s *toolrun.Session, msgs []*llm.Message) {
		st := storeOf(s)
		st.mu.Lock()
		defer st.mu.Unlock()
		st.m = Replay(msgs)
	})
}

// Replay rebuilds the store from the codemode results of a branch (oldest first): each
// result's details.store deletes, then sets, as the seed does.
func Replay(msgs []*llm.Message) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for _, msg := range msgs {
		if msg.Role != llm.RoleToolResult || msg.ToolName != Name || len(msg.Details) == 0 {
			continue
		}
		var d struct {
			Store *struct {
				Set    map[string]json.RawMessage `json:"set"`
				Delete []string                   `json:"delete"`
			} `json:"store"`
		}
		if json.Unmarshal(msg.Details, &d) != nil || d.Store == nil {
			continue
		}
		for _, k := range d.Store.Delete {
			delete(m, k)
		}
		for k, v := range d.Store.Set {
			m[k] = v
		}
	}
	return m
}

func (st *store) snapshot() map[string]json.RawMessage {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make(map[string]json.RawMessage, len(st.m))
	for k, v := range st.m {
		out[k] = v
	}
	return out
}

func (st *store) apply(ws []Write) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, w := range ws {
		if w.Delete {
			delete(st.m, w.Key)
		} else {
			st.m[w.Key] = w.Value
		}
	}
}

type pendant struct {
	Title    string `json:"title"`
	Subtitle string `json:"subtitle"`
	Markdown string `json:"markdown"`
}

func scriptPendant(code, subtitle string) pendant {
	longest, run := 0, 0
	for _, c := range code {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return pendant{Title: Name, Subtitle: subtitle, Markdown: fence + "js\n" + strings.TrimRight(code, jsSpace) + "\n" + fence}
}

func execute(ctx context.Context, inv *toolrun.Invocation, fs FS) (toolrun.Result, error) {
	var args struct {
		Code string `json:"code"`
	}
	if err := inv.Decode(&args); err != nil {
		return toolrun.Result{}, err
	}
	code, opts, err := ParseSource(args.Code)
	if err != nil {
		r := toolrun.ErrorResult(err.Error())
		r.Details = toolrun.MustJSON(struct {
			Error   string  `json:"error"`
			Pendant pendant `json:"pendant"`
		}{err.Error(), scriptPendant(args.Code, "invalid @options")})
		return r, nil
	}
	maxTokens := float64(DefaultOutputTokens)
	if opts.MaxOutputTokens > 0 {
		maxTokens = opts.MaxOutputTokens
	}
	s := inv.Session
	callable := map[string]bool{}
	var tools []Tool
	if inv.Runner != nil {
		for _, t := range inv.Runner.CodemodeCallable() {
			if t.Name == Name || callable[t.Name] {
				continue
			}
			callable[t.Name] = true
			tools = append(tools, Tool{Name: t.Name, Description: t.Description})
		}
	}
	var disc *discovery
	if d := discoveryOf(s); d != nil && hasDiscovery(inv.Runner) {
		disc = newDiscovery(d, inv.Runner)
	}
	st := storeOf(s)
	var readsMu sync.Mutex
	reads := map[string]toolrun.Snapshot{}
	record := func(m map[string]toolrun.Snapshot) {
		readsMu.Lock()
		defer readsMu.Unlock()
		for k, v := range m {
			reads[k] = v
		}
	}
	// Progress comes from the VM goroutine and from every nested call's goroutine.
	var progressMu sync.Mutex
	progress := func(line string) {
		progressMu.Lock()
		defer progressMu.Unlock()
		inv.Progress(toolrun.Result{Content: []llm.Content{{Type: "text", Text: line}},
			Details: toolrun.MustJSON(struct {
				Pendant pendant `json:"pendant"`
			}{scriptPendant(code, firstUnits(line, 120))})})
	}
	var seq int
	var seqMu sync.Mutex
	out := Run(ctx, Script{
		Code: code, Tools: tools, Store: st.snapshot(), Timeout: scriptTimeout(opts.Timeout, s.Headless), Discover: disc != nil,
		Output: func(it Item) {
			if !it.Image && it.Text != "" {
				progressMu.Lock()
				defer progressMu.Unlock()
				inv.Progress(toolrun.Result{Content: []llm.Content{{Type: "text", Text: it.Text}},
					Details: toolrun.MustJSON(struct {
						Pendant pendant `json:"pendant"`
					}{scriptPendant(code, firstUnits(it.Text, 80))})})
			}
		},
		Call: func(cctx context.Context, name string, raw json.RawMessage) CallOutcome {
			if disc != nil {
				if out, ok := disc.answer(name, raw); ok {
					return out
				}
			}
			cctx = toolrun.WithApprover(cctx, approve.Nested(inv.Session.Approver, func(r approve.Request) string { return TextNeedsPerson(r.Tool) }))
			detail := ""
			if raw != nil {
				detail = " " + firstUnits(string(raw), 200)
			}
			progress("→ " + name + detail)
			defer progress("← " + name)
			switch name {
			case "fs.read", "fs.write":
				return callFS(cctx, s, fs, name, raw, record)
			}
			if !callable[name] {
				return CallOutcome{Error: `Tool "` + name + `" is not available in codemode.`}
			}
			seqMu.Lock()
			seq++
			id := "tool-bus-" + strconv.Itoa(seq)
			seqMu.Unlock()
			return busCall(cctx, inv.Runner, toolrun.Call{ID: id, Name: name, Arguments: raw})
		},
	})
	images := []llm.Content{}
	var texts []string
	for _, it := range out.Output {
		if it.Image {
			images = append(images, llm.Content{Type: "image", Data: it.Data, MimeType: it.MimeType})
		} else {
			texts = append(texts, it.Text)
		}
	}
	body := strings.Join(texts, "\n")
	var readsOut map[string]toolrun.Snapshot
	if len(reads) > 0 {
		readsOut = reads
	}
	if !out.OK {
		kind := out.Err.Kind
		parts := []string{"Script failed (" + kind + "):\n" + out.Err.Text()}
		if body != "" {
			parts = append(parts, body)
		}
		parts = append(parts, callSummary(out.Calls))
		// The output budget holds for a failed or timed-out script too: its head (the error)
		// and tail (the calls made) stay, the rest is spilled.
		text, spill := truncate(strings.Join(parts, "\n\n"), 0, maxTokens)
		r := toolrun.ErrorResult(text)
		r.Details = toolrun.MustJSON(struct {
			Calls          []CallRecord                `json:"calls"`
			Error          string                      `json:"error"`
			Reads          map[string]toolrun.Snapshot `json:"reads,omitempty"`
			Pendant        pendant                     `json:"pendant"`
			FullOutputPath string                      `json:"fullOutputPath,omitempty"`
		}{out.Calls, kind, readsOut, scriptPendant(code, "failed ("+kind+")"), spill})
		return r, nil
	}
	full := body
	if out.Value != "" {
		full += "\n\n" + out.Value
	}
	text, spill := truncate(full, len(images), maxTokens)
	var storeOut *storeWrites
	if len(out.Writes) > 0 {
		storeOut = writesJSON(out.Writes)
		st.apply(out.Writes)
	}
	r := toolrun.Result{Content: append([]llm.Content{{Type: "text", Text: text}}, images...)}
	r.Details = toolrun.MustJSON(struct {
		Calls          []CallRecord                `json:"calls"`
		Store          *storeWrites                `json:"store,omitempty"`
		Reads          map[string]toolrun.Snapshot `json:"reads,omitempty"`
		Pendant        pendant                     `json:"pendant"`
		FullOutputPath string                      `json:"fullOutputPath,omitempty"`
	}{out.Calls, storeOut, readsOut, scriptPendant(code, strconv.Itoa(len(out.Calls))+" tool call(s)"), spill})
	return r, nil
}

// busCall runs one nested call through the runner and maps its result onto the script:
// a structured value resolves, an error rejects with the tool's text, a plain text result
// resolves with the text.
func busCall(ctx context.Context, r *toolrun.Runner, call toolrun.Call) CallOutcome {
	if r == nil {
		return CallOutcome{Error: `Tool "` + call.Name + `" is not available.`}
	}
	if _, ok := r.Lookup(call.Name); !ok {
		return CallOutcome{Error: `Tool "` + call.Name + `" is not available.`}
	}
	args, err := r.PrepareCall(call)
	if err != nil {
		return CallOutcome{Error: `Invalid arguments for tool "` + call.Name + `": ` + validationDetail(err.Error())}
	}
	if ctx.Err() != nil {
		return CallOutcome{Error: "Operation aborted"}
	}
	res := r.ExecutePrepared(ctx, call, args, nil)
	if len(res.Structured) > 0 {
		return CallOutcome{OK: true, Value: res.Structured}
	}
	if res.IsError {
		return CallOutcome{Error: res.Text()}
	}
	v, _ := json.Marshal(res.Text())
	return CallOutcome{OK: true, Value: v}
}

// validationDetail keeps the error lines of pi's validation text.
func validationDetail(msg string) string {
	var lines []string
	for _, l := range strings.Split(msg, "\n") {
		if d, ok := strings.CutPrefix(l, "  - "); ok {
			lines = append(lines, d)
		}
	}
	if len(lines) == 0 {
		return msg
	}
	return strings.Join(lines, "; ")
}

func callFS(ctx context.Context, s *toolrun.Session, fs FS, name string, raw json.RawMessage, record func(map[string]toolrun.Snapshot)) CallOutcome {
	var a struct {
		Path    *string `json:"path"`
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &a); err != nil || a.Path == nil || (name == "fs.write" && a.Content == nil) {
		if name == "fs.write" {
			return CallOutcome{Error: "fs.write expects (path: string, content: string)"}
		}
		return CallOutcome{Error: "fs.read expects (path: string)"}
	}
	if fs == nil {
		return CallOutcome{Error: name + " is not available"}
	}
	if name == "fs.read" {
		text, reads, err := fs.Read(ctx, s, *a.Path)
		if err != nil {
			return CallOutcome{Error: err.Error()}
		}
		record(reads)
		v, _ := json.Marshal(text)
		return CallOutcome{OK: true, Value: v}
	}
	reads, err := fs.Write(ctx, s, *a.Path, *a.Content)
	if err != nil {
		return CallOutcome{Error: err.Error()}
	}
	record(reads)
	return CallOutcome{OK: true}
}

func callSummary(calls []CallRecord) string {
	if len(calls) == 0 {
		return "No tool calls were made."
	}
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = c.Name + " (" + c.Status + ")"
	}
	return "Tool calls made before the failure (they are not undone): " + strings.Join(parts, ", ")
}

// storeWrites is details.store: the keys set (in write order) and the keys deleted.
type storeWrites struct {
	Set    orderedJSON `json:"set"`
	Delete []string    `json:"delete"`
}

type orderedJSON []Write

func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, w := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsString(w.Key))
		b.WriteByte(':')
		b.Write(w.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writesJSON(ws []Write) *storeWrites {
	out := &storeWrites{Delete: []string{}}
	for _, w := range ws {
		if w.Delete {
			out.Delete = append(out.Delete, w.Key)
		} else {
			out.Set = append(out.Set, w)
		}
	}
	return out
}

// CharsPerToken is pi's estimate.
const CharsPerToken = 4

// truncate applies the output budget as the seed does: over maxTokens·4 UTF-16 units the
// text keeps its head and tail around a "…N tokens truncated…" mark and the full text is
// spilled to $TMPDIR/pi-codemode-<16 hex>.txt. It returns the text and the spill path.
func truncate(text string, images int, maxTokens float64) (string, string) {
	u := utf16.Encode([]rune(text))
	budget := maxTokens * CharsPerToken
	if float64(len(u)) <= budget {
		return text, ""
	}
	head := int(math.Floor(budget / 2))
	tail := int(math.Ceil(budget)) - head
	if budget != math.Floor(budget) {
		tail = int(budget - float64(head)) // slice(-x) truncates x toward zero
	}
	removed := len(u) - head - tail
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	path := filepath.Join(os.TempDir(), "pi-codemode-"+hex.EncodeToString(rnd[:])+".txt")
	notice := "[Full output: " + path + " (read with offset/limit)]"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		notice, path = "[Could not save the full output: "+err.Error()+"]", ""
	}
	tailText := ""
	if tail > 0 {
		tailText = string(utf16.Decode(u[len(u)-tail:]))
	}
	lines := []string{
		"Warning: truncated output (original token count: " + strconv.Itoa(int(math.Ceil(float64(len(u))/CharsPerToken))) + ")",
		"Total output lines: " + strconv.Itoa(strings.Count(text, "\n")+1),
		string(utf16.Decode(u[:head])) + "…" + strconv.Itoa(int(math.Ceil(float64(removed)/CharsPerToken))) + " tokens truncated…" + tailText,
		notice,
	}
	if images > 0 {
		s := "s"
		if images == 1 {
			s = ""
		}
		lines = append(lines, "("+strconv.Itoa(images)+" image output"+s+" not shown here)")
	}
	return strings.Join(lines, "\n"), path
}

// firstUnits is s.slice(0, n) in UTF-16 units.
func firstUnits(s string, n int) string {
	u := utf16.Encode([]rune(s))
	if len(u) <= n {
		return s
	}
	return string(utf16.Decode(u[:n]))
}

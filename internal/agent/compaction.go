package agent

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/pigo-agent/pigo/internal/llm"
)

// pi's compaction texts (core/compaction/compaction.js and utils.js), byte for byte.
const (
	SummarizationSystemPrompt = "You are a context summarization assistant. Your task is to read a conversation between a user and an AI assistant, then produce a structured summary following the exact format specified.\n\nDo NOT continue the conversation. Do NOT respond to any questions in the conversation. ONLY output the structured summary."

	summarizationPrompt = "The messages above are a conversation to summarize. Create a structured context checkpoint summary that another LLM will use to continue the work.\n\nUse this EXACT format:\n\n## Goal\n[What is the user trying to accomplish? Can be multiple items if the session covers different tasks.]\n\n## Constraints & Preferences\n- [Any constraints, preferences, or requirements mentioned by user]\n- [Or \"(none)\" if none were mentioned]\n\n## Progress\n### Done\n- [x] [Completed tasks/changes]\n\n### In Progress\n- [ ] [Current work]\n\n### Blocked\n- [Issues preventing progress, if any]\n\n## Key Decisions\n- **[Decision]**: [Brief rationale]\n\n## Next Steps\n1. [Ordered list of what should happen next]\n\n## Critical Context\n- [Any data, examples, or references needed to continue]\n- [Or \"(none)\" if not applicable]\n\nKeep each section concise. Preserve exact file paths, function names, and error messages."

	updateSummarizationInstructions = "Update the existing structured summary with new information. RULES:\n- PRESERVE all existing information from the previous summary\n- ADD new progress, decisions, and context from the new messages\n- UPDATE the Progress section: move items from \"In Progress\" to \"Done\" when completed\n- UPDATE \"Next Steps\" based on what was accomplished\n- PRESERVE exact file paths, function names, and error messages\n- If something is no longer relevant, you may remove it\n\nUse this EXACT format:\n\n## Goal\n[Preserve existing goals, add new ones if the task expanded]\n\n## Constraints & Preferences\n- [Preserve existing, add new ones discovered]\n\n## Progress\n### Done\n- [x] [Include previously done items AND newly completed items]\n\n### In Progress\n- [ ] [Current work - update based on progress]\n\n### Blocked\n- [Current blockers - remove if resolved]\n\n## Key Decisions\n- **[Decision]**: [Brief rationale] (preserve all previous, add new)\n\n## Next Steps\n1. [Update based on current state]\n\n## Critical Context\n- [Preserve important context, add new if needed]\n\nKeep each section concise. Preserve exact file paths, function names, and error messages."

	updateSummarizationPrompt = "The messages above are NEW conversation messages to incorporate into the existing summary provided in <previous-summary> tags.\n\n" + updateSummarizationInstructions

	turnPrefixSummarizationPrompt = "This is the PREFIX of a turn that was too large to keep. The SUFFIX (recent work) is retained.\n\nSummarize the prefix to provide context for the retained suffix:\n\n## Original Request\n[What did the user ask for in this turn?]\n\n## Early Progress\n- [Key decisions and work done in the prefix]\n\n## Context for Suffix\n- [Information needed to understand the retained recent work]\n\nBe concise. Focus on what's needed to understand the kept suffix."

	// OverflowRecoveryFailed is pi's text when a compact-and-retry overflowed again.
	OverflowRecoveryFailed = "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model."
	// TruncatedRecoveryFailed is pi's text when a truncated (length) reply repeated after one.
	TruncatedRecoveryFailed = "Truncated response recovery failed after one compact-and-retry attempt."

	toolResultMaxChars  = 2000
	estimatedImageChars = 4800
)

// jsLen is a string's length as JavaScript counts it (UTF-16 code units), so estimates and
// truncation match pi's.
func jsLen(s string) int {
	// Runs of ASCII are counted eight bytes at a time: the estimates after a reply read every
	// message's text, and a reply stopped at its 32 MiB bound was read three times at a byte
	// a rune (70 ms).
	const highs = 0x8080808080808080
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	n, i := 0, 0
	for i < len(b) {
		j := i
		// Four words a step while all of them are ASCII (one test of the four words or-ed
		// together), then a word at a time.
		for j+32 <= len(b) && (binary.LittleEndian.Uint64(b[j:])|binary.LittleEndian.Uint64(b[j+8:])|
			binary.LittleEndian.Uint64(b[j+16:])|binary.LittleEndian.Uint64(b[j+24:]))&highs == 0 {
			j += 32
		}
		for j+8 <= len(b) && binary.LittleEndian.Uint64(b[j:])&highs == 0 {
			j += 8
		}
		n += j - i
		if i = j; i == len(b) {
			break
		}
		if b[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		// A byte of invalid UTF-8 is one U+FFFD, as ranging over s gives.
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x10000 {
			n++
		}
		n++
		i += size
	}
	return n
}

// jsSlice is s.slice(0, n) in UTF-16 code units.
func jsSlice(s string, n int) string {
	u := utf16.Encode([]rune(s))
	if n >= len(u) {
		return s
	}
	return string(utf16.Decode(u[:n]))
}

func ceil4(chars int) int { return int(math.Ceil(float64(chars) / 4)) }

func contentChars(cs []llm.Content) int {
	n := 0
	for _, c := range cs {
		switch c.Type {
		case llm.TypeText:
			n += jsLen(c.Text)
		case llm.TypeImage:
			n += estimatedImageChars
		}
	}
	return n
}

// compactJSON is JSON.stringify of a parsed value: no insignificant whitespace.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// EstimateTokens is pi's chars/4 estimate of one message.
func EstimateTokens(m *llm.Message) int {
	switch m.Role {
	case llm.RoleAssistant:
		n := 0
		for _, c := range m.Content {
			switch c.Type {
			case llm.TypeText:
				n += jsLen(c.Text)
			case llm.TypeThinking:
				n += jsLen(c.Thinking)
			case llm.TypeToolCall:
				n += jsLen(c.Name) + jsLen(compactJSON(c.Arguments))
			}
		}
		return ceil4(n)
	case llm.RoleUser, llm.RoleToolResult:
		return ceil4(contentChars(m.Content))
	}
	return 0
}

func entryTokens(e *Entry) int {
	switch e.Role {
	case "":
		return 0
	case RoleCompactionSummary, RoleBranchSummary:
		return ceil4(jsLen(e.Summary))
	}
	if e.Message == nil {
		return 0
	}
	return EstimateTokens(e.Message)
}

// ContextTokens is pi's calculateContextTokens.
func ContextTokens(u *llm.Usage) int {
	if u == nil {
		return 0
	}
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.Input + u.Output + u.CacheRead + u.CacheWrite
}

func validUsage(m *llm.Message) *llm.Usage {
	if m.Role == llm.RoleAssistant && m.StopReason != llm.StopAborted && m.StopReason != llm.StopError && ContextTokens(m.Usage) > 0 {
		return m.Usage
	}
	return nil
}

// EstimateContextTokens is pi's estimateContextTokens: the last valid usage plus estimates of
// the messages after it (lastUsage -1 when no message had usage).
func EstimateContextTokens(msgs []llm.Message) (tokens, lastUsage int) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if u := validUsage(&msgs[i]); u != nil {
			t := ContextTokens(u)
			for j := i + 1; j < len(msgs); j++ {
				t += EstimateTokens(&msgs[j])
			}
			return t, i
		}
	}
	t := 0
	for i := range msgs {
		t += EstimateTokens(&msgs[i])
	}
	return t, -1
}

// estimateEntries is EstimateContextTokens over context entries, each estimated with its pi
// role (a summary counts its own text, not the wrapper the model sees), as pi estimates the
// AgentMessages of buildSessionContext.
func estimateEntries(entries []Entry) int {
	for i := len(entries) - 1; i >= 0; i-- {
		if m := entries[i].Message; m != nil && entries[i].Type == "message" {
			if u := validUsage(m); u != nil {
				t := ContextTokens(u)
				for j := i + 1; j < len(entries); j++ {
					t += entryTokens(&entries[j])
				}
				return t
			}
		}
	}
	t := 0
	for i := range entries {
		t += entryTokens(&entries[i])
	}
	return t
}

func isCutPoint(e *Entry) bool {
	if e.Type == "compaction" {
		return false
	}
	switch e.Role {
	case llm.RoleUser, llm.RoleAssistant, RoleBashExecution, RoleCustom, RoleBranchSummary, RoleCompactionSummary:
		return true
	}
	return false
}

func isTurnStart(e *Entry) bool {
	if e.Type == "compaction" {
		return false
	}
	switch e.Role {
	case llm.RoleUser, RoleBashExecution, RoleCustom, RoleBranchSummary, RoleCompactionSummary:
		return true
	}
	return false
}

// CutPoint is where a compaction cuts a branch.
type CutPoint struct {
	FirstKept int
	TurnStart int
	SplitTurn bool
}

// FindCutPoint is pi's findCutPoint over entries[start:end]: walk back from the newest
// entry until keepRecentTokens are kept, cut at the nearest user or assistant message at or
// after that point (never at a tool result), and report a split turn.
func FindCutPoint(entries []Entry, start, end, keepRecentTokens int) CutPoint {
	var cuts []int
	for i := start; i < end; i++ {
		if isCutPoint(&entries[i]) {
			cuts = append(cuts, i)
		}
	}
	if len(cuts) == 0 {
		return CutPoint{FirstKept: start, TurnStart: -1}
	}
	acc := 0
	cut := cuts[0]
	for i := end - 1; i >= start; i-- {
		t := entryTokens(&entries[i])
		if t == 0 {
			continue
		}
		acc += t
		if acc >= keepRecentTokens {
			for _, c := range cuts {
				if c >= i {
					cut = c
					break
				}
			}
			break
		}
	}
	for cut > start {
		prev := &entries[cut-1]
		if prev.Type == "compaction" || prev.Role != "" {
			break
		}
		cut--
	}
	if isTurnStart(&entries[cut]) {
		return CutPoint{FirstKept: cut, TurnStart: -1}
	}
	ts := -1
	for i := cut; i >= start; i-- {
		if isTurnStart(&entries[i]) {
			ts = i
			break
		}
	}
	return CutPoint{FirstKept: cut, TurnStart: ts, SplitTurn: ts != -1}
}

// Preparation is pi's prepareCompaction result.
type Preparation struct {
	FirstKeptEntryID string
	ToSummarize      []llm.Message
	TurnPrefix       []llm.Message
	SplitTurn        bool
	TokensBefore     int
	PreviousSummary  string
	read, edited     map[string]bool
}

func fileOps(m *llm.Message, read, edited map[string]bool) {
	if m.Role != llm.RoleAssistant {
		return
	}
	for _, c := range m.Content {
		if c.Type != llm.TypeToolCall {
			continue
		}
		var args struct {
			Path any `json:"path"`
		}
		_ = json.Unmarshal(c.Arguments, &args)
		p, ok := args.Path.(string)
		if !ok || p == "" {
			continue
		}
		switch c.Name {
		case "read":
			read[p] = true
		case "write", "edit":
			edited[p] = true
		}
	}
}

// PrepareCompaction is pi's prepareCompaction over the current branch; nil when there is
// nothing to compact.
func PrepareCompaction(branch []Entry, s CompactionSettings) *Preparation {
	if len(branch) > 0 && branch[len(branch)-1].Type == "compaction" {
		return nil
	}
	prev := -1
	for i := len(branch) - 1; i >= 0; i-- {
		if branch[i].Type == "compaction" {
			prev = i
			break
		}
	}
	p := &Preparation{read: map[string]bool{}, edited: map[string]bool{}}
	start := 0
	if prev >= 0 {
		p.PreviousSummary = branch[prev].Summary
		start = prev + 1
		for i, e := range branch {
			if e.ID == branch[prev].FirstKeptEntryID {
				start = i
				break
			}
		}
	}
	p.TokensBefore = estimateEntries(ContextEntries(branch))
	cp := FindCutPoint(branch, start, len(branch), s.KeepRecentTokens)
	if cp.FirstKept >= len(branch) || branch[cp.FirstKept].ID == "" {
		return nil
	}
	p.FirstKeptEntryID = branch[cp.FirstKept].ID
	p.SplitTurn = cp.SplitTurn
	historyEnd := cp.FirstKept
	if cp.SplitTurn {
		historyEnd = cp.TurnStart
	}
	for i := start; i < historyEnd; i++ {
		if e := &branch[i]; e.Type != "compaction" && e.Message != nil {
			p.ToSummarize = append(p.ToSummarize, *e.Message)
		}
	}
	if cp.SplitTurn {
		for i := cp.TurnStart; i < cp.FirstKept; i++ {
			if e := &branch[i]; e.Type != "compaction" && e.Message != nil {
				p.TurnPrefix = append(p.TurnPrefix, *e.Message)
			}
		}
	}
	if len(p.ToSummarize) == 0 && len(p.TurnPrefix) == 0 {
		return nil
	}
	if prev >= 0 && !branch[prev].FromHook && len(branch[prev].Details) > 0 {
		var d struct {
			ReadFiles     []string `json:"readFiles"`
			ModifiedFiles []string `json:"modifiedFiles"`
		}
		if json.Unmarshal(branch[prev].Details, &d) == nil {
			for _, f := range d.ReadFiles {
				p.read[f] = true
			}
			for _, f := range d.ModifiedFiles {
				p.edited[f] = true
			}
		}
	}
	for i := range p.ToSummarize {
		fileOps(&p.ToSummarize[i], p.read, p.edited)
	}
	for i := range p.TurnPrefix {
		fileOps(&p.TurnPrefix[i], p.read, p.edited)
	}
	return p
}

// FileLists are pi's computeFileLists: files only read, and files modified, each sorted.
func (p *Preparation) FileLists() (readFiles, modifiedFiles []string) {
	readFiles, modifiedFiles = []string{}, []string{}
	for f := range p.edited {
		modifiedFiles = append(modifiedFiles, f)
	}
	for f := range p.read {
		if !p.edited[f] {
			readFiles = append(readFiles, f)
		}
	}
	sort.Strings(readFiles)
	sort.Strings(modifiedFiles)
	return readFiles, modifiedFiles
}

func formatFileOperations(readFiles, modifiedFiles []string) string {
	var sections []string
	if len(readFiles) > 0 {
		sections = append(sections, "<read-files>\n"+strings.Join(readFiles, "\n")+"\n</read-files>")
	}
	if len(modifiedFiles) > 0 {
		sections = append(sections, "<modified-files>\n"+strings.Join(modifiedFiles, "\n")+"\n</modified-files>")
	}
	if len(sections) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(sections, "\n\n")
}

func joinText(cs []llm.Content, sep string) string {
	var parts []string
	for _, c := range cs {
		if c.Type == llm.TypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, sep)
}

// argsInOrder renders a tool call's arguments as pi does: key=JSON, in the object's order.
func argsInOrder(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	var parts []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		parts = append(parts, fmt.Sprintf("%v=%s", k, compactJSON(v)))
	}
	return strings.Join(parts, ", ")
}

// SerializeConversation is pi's serializeConversation: the messages as labelled text, so the
// summarizer does not continue the conversation.
func SerializeConversation(msgs []llm.Message) string {
	var parts []string
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			if t := joinText(m.Content, ""); t != "" {
				parts = append(parts, "[User]: "+t)
			}
		case llm.RoleAssistant:
			var thinking, calls []string
			hasText := false
			for _, c := range m.Content {
				switch c.Type {
				case llm.TypeThinking:
					thinking = append(thinking, c.Thinking)
				case llm.TypeToolCall:
					calls = append(calls, c.Name+"("+argsInOrder(c.Arguments)+")")
				case llm.TypeText:
					hasText = true
				}
			}
			if len(thinking) > 0 {
				parts = append(parts, "[Assistant thinking]: "+strings.Join(thinking, "\n"))
			}
			if hasText {
				parts = append(parts, "[Assistant]: "+joinText(m.Content, "\n"))
			}
			if len(calls) > 0 {
				parts = append(parts, "[Assistant tool calls]: "+strings.Join(calls, "; "))
			}
		case llm.RoleToolResult:
			if t := joinText(m.Content, ""); t != "" {
				if n := jsLen(t); n > toolResultMaxChars {
					t = fmt.Sprintf("%s\n\n[... %d more characters truncated]", jsSlice(t, toolResultMaxChars), n-toolResultMaxChars)
				}
				parts = append(parts, "[Tool result]: "+t)
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

var errToolCall = errors.New("attempted to call a tool")

// summarize makes one summarization call with pi's retry policy.
func (a *Agent) summarize(ctx context.Context, prompt string, maxTokens int, reason string) (string, *llm.Usage, error) {
	c := &llm.Context{SystemPrompt: SummarizationSystemPrompt, Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(prompt)}, Timestamp: a.now()}}}
	opts := a.cfg.Options
	opts.MaxTokens = maxTokens
	// pi's completeSummarization: no cache writes for a one-off summary, no tools.
	opts.CacheRetention = "none"
	opts.ToolChoice = "none"
	opts.Memo = nil // a one-off body: the session's stays remembered
	if !a.cfg.Model.Reasoning {
		opts.ThinkingLevel = ""
	}
	s := a.cfg.Settings.Retry
	maxAttempts := 0
	if s.Enabled {
		maxAttempts = s.MaxRetries
	}
	attempt := 0
	retried := false
	for {
		resp := a.cfg.Provider.Stream(ctx, a.cfg.Model, c, &opts, func(llm.Event) {})
		if resp == nil {
			return "", nil, errors.New("Unknown error")
		}
		if resp.StopReason == llm.StopAborted || (resp.StopReason == llm.StopError && ctx.Err() != nil) {
			if retried {
				a.emit(Event{Type: EventSummarizationRetryFinished})
			}
			return "", nil, context.Canceled
		}
		if resp.StopReason == llm.StopError && attempt < maxAttempts && IsRetryableError(resp) {
			attempt++
			retried = true
			msg := resp.ErrorMessage
			if msg == "" {
				msg = "Unknown error"
			}
			delay := int64(s.BaseDelayMs) << (attempt - 1)
			a.emit(Event{Type: EventSummarizationRetryScheduled, Attempt: attempt, MaxAttempts: maxAttempts, DelayMs: delay, ErrorMessage: msg})
			if a.cfg.Sleep(ctx, time.Duration(delay)*time.Millisecond) != nil {
				a.emit(Event{Type: EventSummarizationRetryFinished})
				return "", nil, context.Canceled
			}
			a.emit(Event{Type: EventSummarizationRetryAttemptStart, Source: "compaction", Reason: reason})
			continue
		}
		if retried {
			a.emit(Event{Type: EventSummarizationRetryFinished})
		}
		if resp.StopReason == llm.StopError {
			msg := resp.ErrorMessage
			if msg == "" {
				msg = "Unknown error"
			}
			return "", nil, errors.New(msg)
		}
		for _, b := range resp.Content {
			if b.Type == llm.TypeToolCall {
				return "", nil, errToolCall
			}
		}
		return joinText(resp.Content, "\n"), resp.Usage, nil
	}
}

func minTokens(frac float64, reserve, modelMax int) int {
	n := int(math.Floor(frac * float64(reserve)))
	if modelMax > 0 && modelMax < n {
		return modelMax
	}
	return n
}

// Compact is pi's compact(): the history summary (iterative over a previous summary), plus a
// turn-prefix summary when the cut splits a turn, plus the file lists.
func (a *Agent) Compact(ctx context.Context, p *Preparation, reason string) (Compaction, error) {
	s := a.cfg.Settings.Compaction
	history := func() (string, *llm.Usage, error) {
		prompt := "<conversation>\n" + SerializeConversation(p.ToSummarize) + "\n</conversation>\n\n"
		base := summarizationPrompt
		if p.PreviousSummary != "" {
			prompt += "<previous-summary>\n" + p.PreviousSummary + "\n</previous-summary>\n\n"
			base = updateSummarizationPrompt
		}
		text, u, err := a.summarize(ctx, prompt+base, minTokens(0.8, s.ReserveTokens, a.cfg.Model.MaxTokens), reason)
		switch {
		case errors.Is(err, errToolCall):
			err = errors.New("Summarization attempted to call a tool")
		case err != nil && !errors.Is(err, context.Canceled):
			err = fmt.Errorf("Summarization failed: %s", err.Error())
		}
		return text, u, err
	}
	var summary string
	var usage *llm.Usage
	if p.SplitTurn && len(p.TurnPrefix) > 0 {
		historyText := "No prior history."
		var hu *llm.Usage
		if len(p.ToSummarize) > 0 {
			var err error
			if historyText, hu, err = history(); err != nil {
				return Compaction{}, err
			}
		}
		prompt := "<conversation>\n" + SerializeConversation(p.TurnPrefix) + "\n</conversation>\n\n" + turnPrefixSummarizationPrompt
		prefix, pu, err := a.summarize(ctx, prompt, minTokens(0.5, s.ReserveTokens, a.cfg.Model.MaxTokens), reason)
		if err != nil {
			switch {
			case errors.Is(err, errToolCall):
				err = errors.New("Turn prefix summarization attempted to call a tool")
			case !errors.Is(err, context.Canceled):
				err = fmt.Errorf("Turn prefix summarization failed: %s", err.Error())
			}
			return Compaction{}, err
		}
		summary = historyText + "\n\n---\n\n**Turn Context (split turn):**\n\n" + prefix
		usage = pu
		if hu != nil && pu != nil {
			usage = addUsage(hu, pu)
		}
	} else {
		var err error
		if summary, usage, err = history(); err != nil {
			return Compaction{}, err
		}
	}
	readFiles, modifiedFiles := p.FileLists()
	summary += formatFileOperations(readFiles, modifiedFiles)
	details, _ := json.Marshal(struct {
		ReadFiles     []string `json:"readFiles"`
		ModifiedFiles []string `json:"modifiedFiles"`
	}{readFiles, modifiedFiles})
	return Compaction{Summary: summary, FirstKeptEntryID: p.FirstKeptEntryID, TokensBefore: p.TokensBefore, Details: details, Usage: usage}, nil
}

func addUsage(a, b *llm.Usage) *llm.Usage {
	u := &llm.Usage{Input: a.Input + b.Input, Output: a.Output + b.Output, CacheRead: a.CacheRead + b.CacheRead,
		CacheWrite: a.CacheWrite + b.CacheWrite, TotalTokens: a.TotalTokens + b.TotalTokens,
		Cost: llm.Cost{Input: a.Cost.Input + b.Cost.Input, Output: a.Cost.Output + b.Cost.Output, CacheRead: a.Cost.CacheRead + b.Cost.CacheRead,
			CacheWrite: a.Cost.CacheWrite + b.Cost.CacheWrite, Total: a.Cost.Total + b.Cost.Total}}
	if a.Reasoning != nil || b.Reasoning != nil {
		r := 0
		if a.Reasoning != nil {
			r += *a.Reasoning
		}
		if b.Reasoning != nil {
			r += *b.Reasoning
		}
		u.Reasoning = &r
	}
	return u
}

// checkCompaction is pi's _checkCompaction: true means continue the agent.
func (a *Agent) checkCompaction(ctx context.Context, m *llm.Message, skipAborted bool) bool {
	s := a.cfg.Settings.Compaction
	if !s.Enabled {
		return false
	}
	if skipAborted && m.StopReason == llm.StopAborted {
		return false
	}
	model := a.cfg.Model
	sameModel := m.Provider == model.Provider && m.Model == model.ID
	lastCompaction := latestCompaction(a.cfg.Store)
	if lastCompaction != nil && m.Timestamp <= lastCompaction.Timestamp {
		return false
	}
	overflow := sameModel && IsContextOverflow(m, model.ContextWindow)
	length := sameModel && IsRecoverableLength(m, model.MaxTokens)
	if overflow || length {
		willRetry := m.StopReason != llm.StopStop
		if !willRetry {
			return a.autoCompact(ctx, "overflow", false)
		}
		if a.overflowAttempted {
			msg := OverflowRecoveryFailed
			if !overflow {
				msg = TruncatedRecoveryFailed
			}
			a.emit(Event{Type: EventCompactionEnd, Reason: "overflow", ErrorMessage: msg})
			return false
		}
		a.overflowAttempted = true
		a.dropTrailingAssistant(false)
		return a.autoCompact(ctx, "overflow", true)
	}
	var tokens int
	direct := ContextTokens(m.Usage)
	if m.StopReason == llm.StopError || direct == 0 {
		msgs := a.Messages()
		t, lastUsage := EstimateContextTokens(msgs)
		if lastUsage >= 0 && lastCompaction != nil && msgs[lastUsage].Timestamp <= lastCompaction.Timestamp {
			return false
		}
		tokens = t
	} else {
		tokens = direct
	}
	if tokens > model.ContextWindow-s.ReserveTokens {
		return a.autoCompact(ctx, "threshold", false)
	}
	return false
}

// compactionFinder is a Store that finds its latest compaction without converting the whole
// branch (checked after every run).
type compactionFinder interface {
	LatestCompaction() *Entry
}

func latestCompaction(s Store) *Entry {
	if f, ok := s.(compactionFinder); ok {
		return f.LatestCompaction()
	}
	branch := s.Branch()
	for i := len(branch) - 1; i >= 0; i-- {
		if branch[i].Type == "compaction" {
			return &branch[i]
		}
	}
	return nil
}

// autoCompact is pi's _runAutoCompaction.
func (a *Agent) autoCompact(ctx context.Context, reason string, willRetry bool) bool {
	p := PrepareCompaction(a.cfg.Store.Branch(), a.cfg.Settings.Compaction)
	if p == nil {
		return false
	}
	a.emit(Event{Type: EventCompactionStart, Reason: reason})
	c, err := a.Compact(ctx, p, reason)
	if err == nil && ctx.Err() != nil {
		err = context.Canceled
	}
	if errors.Is(err, context.Canceled) {
		a.emit(Event{Type: EventCompactionEnd, Reason: reason, Aborted: true})
		return false
	}
	if err == nil {
		err = a.cfg.Store.AppendCompaction(c)
	}
	if err != nil {
		msg := "Auto-compaction failed: " + err.Error()
		if reason == "overflow" {
			msg = "Context overflow recovery failed: " + err.Error()
		}
		a.emit(Event{Type: EventCompactionEnd, Reason: reason, ErrorMessage: msg})
		return false
	}
	msgs := a.cfg.Store.Context()
	after := 0
	for _, e := range ContextEntries(a.cfg.Store.Branch()) {
		after += entryTokens(&e)
	}
	a.mu.Lock()
	a.messages = msgs
	a.mu.Unlock()
	a.emit(Event{Type: EventCompactionEnd, Reason: reason, WillRetry: willRetry, Compaction: &CompactionResult{Summary: c.Summary,
		FirstKeptEntryID: c.FirstKeptEntryID, TokensBefore: c.TokensBefore, EstimatedTokensAfter: after, Usage: c.Usage, Details: c.Details}})
	if willRetry {
		a.dropTrailingAssistant(true)
		return true
	}
	return a.hasQueued()
}

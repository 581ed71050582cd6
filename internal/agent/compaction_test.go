package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

func TestOverflowCompactsAndRetriesOnce(t *testing.T) {
	p := &fakeProvider{}
	p.add(text("first answer"), failure("prompt is too long: 213462 tokens > 200000 maximum"), text("## Goal\nsummary"), text("after"))
	a, rec, _ := newTestAgent(t, p, nil, func(c *Config) { c.Settings.Compaction.KeepRecentTokens = 1 })
	if _, err := a.Prompt(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	last, err := a.Prompt(context.Background(), "second")
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "final", last.Text(), "after")
	sum := p.contexts[2]
	eq(t, "summary system prompt", sum.SystemPrompt, SummarizationSystemPrompt)
	eq(t, "no tools for the summary", len(sum.Tools), 0)
	prompt := sum.Messages[0].Text()
	if !strings.HasPrefix(prompt, "<conversation>\n[User]: first\n\n[Assistant]: first answer\n</conversation>\n\nThe messages above are a conversation to summarize.") {
		t.Fatalf("summary prompt: %q", prompt)
	}
	eq(t, "summary max tokens", p.options[2].MaxTokens, 13107)
	retry := p.contexts[3].Messages
	eq(t, "retry context", len(retry), 2)
	eq(t, "summary first", retry[0].Text(), "The conversation history before this point was compacted into the following summary:\n\n<summary>\n## Goal\nsummary\n</summary>")
	eq(t, "kept prompt", retry[1].Text(), "second")
	ends := rec.find(EventCompactionEnd)
	eq(t, "compaction_end", []any{ends[0].Reason, ends[0].WillRetry, ends[0].Aborted, ends[0].ErrorMessage}, []any{"overflow", true, false, ""})
	// The store has the compaction, and the failed message stays in the file.
	var types []string
	for _, e := range a.cfg.Store.Branch() {
		s := e.Type
		if e.Message != nil {
			s += ":" + e.Message.Role + ":" + e.Message.StopReason
		}
		types = append(types, s)
	}
	eq(t, "branch", types, []string{"message:user:", "message:assistant:stop", "message:user:", "message:assistant:error", "compaction", "message:assistant:stop"})
}

func TestOverflowTwiceGivesPiFailureText(t *testing.T) {
	p := &fakeProvider{}
	over := failure("Your input exceeds the context window of this model")
	p.add(text("a"), over, text("summary"), over)
	a, rec, _ := newTestAgent(t, p, nil, func(c *Config) { c.Settings.Compaction.KeepRecentTokens = 1 })
	a.Prompt(context.Background(), "first")
	last, _ := a.Prompt(context.Background(), "second")
	eq(t, "stop", last.StopReason, llm.StopError)
	ends := rec.find(EventCompactionEnd)
	eq(t, "two compaction_end", len(ends), 2)
	eq(t, "failure", ends[1].ErrorMessage, "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.")
	if len(rec.find(EventAutoRetryStart)) != 0 {
		t.Fatal("overflow must not be retried as a transient error")
	}
}

func TestThresholdCompactionDoesNotRetry(t *testing.T) {
	p := &fakeProvider{}
	p.add(text("x"), func(context.Context, *llm.Context) *llm.Message {
		return &llm.Message{Content: []llm.Content{llm.TextBlock("big")}, StopReason: llm.StopStop, Usage: &llm.Usage{Input: 115000, Output: 10, TotalTokens: 115010}}
	}, text("the summary"), text("the prefix"))
	a, rec, _ := newTestAgent(t, p, nil, func(c *Config) { c.Settings.Compaction.KeepRecentTokens = 1 })
	a.Prompt(context.Background(), "first")
	a.Prompt(context.Background(), "second")
	// The cut lands on the big reply, inside the second turn: a history summary and a turn
	// prefix summary.
	eq(t, "calls", len(p.contexts), 4)
	if !strings.HasSuffix(p.contexts[3].Messages[0].Text(), turnPrefixSummarizationPrompt) {
		t.Fatal("second summary call is not the turn-prefix prompt")
	}
	got := rec.types()
	eq(t, "tail", got[len(got)-2:], []string{"compaction_start:threshold", "compaction_end:threshold"})
	end := rec.find(EventCompactionEnd)[0]
	eq(t, "no retry", end.WillRetry, false)
	eq(t, "tokensBefore", end.Compaction.TokensBefore, 115010)
	eq(t, "summary", end.Compaction.Summary, "the summary\n\n---\n\n**Turn Context (split turn):**\n\nthe prefix")
	eq(t, "transcript after", len(a.Messages()), 2)
}

func TestCompactionFailureText(t *testing.T) {
	p := &fakeProvider{}
	p.add(text("x"), func(context.Context, *llm.Context) *llm.Message {
		return &llm.Message{Content: []llm.Content{llm.TextBlock("big")}, StopReason: llm.StopStop, Usage: &llm.Usage{TotalTokens: 120000}}
	}, failure("invalid request"))
	a, rec, _ := newTestAgent(t, p, nil, func(c *Config) { c.Settings.Compaction.KeepRecentTokens = 1 })
	a.Prompt(context.Background(), "first")
	a.Prompt(context.Background(), "second")
	end := rec.find(EventCompactionEnd)[0]
	eq(t, "error", end.ErrorMessage, "Auto-compaction failed: Summarization failed: invalid request")
}

func TestCutPointNeverAtToolResultAndSplitTurn(t *testing.T) {
	big := strings.Repeat("x", 400) // 100 tokens
	msg := func(role, s string) *llm.Message {
		return &llm.Message{Role: role, Content: []llm.Content{llm.TextBlock(s)}}
	}
	branch := []Entry{
		{ID: "1", Type: "message", Role: llm.RoleUser, Message: msg(llm.RoleUser, big)},
		{ID: "2", Type: "message", Role: llm.RoleAssistant, Message: msg(llm.RoleAssistant, big)},
		{ID: "3", Type: "message", Role: llm.RoleToolResult, Message: msg(llm.RoleToolResult, big)},
		{ID: "4", Type: "message", Role: llm.RoleAssistant, Message: msg(llm.RoleAssistant, big)},
		{ID: "5", Type: "message", Role: llm.RoleToolResult, Message: msg(llm.RoleToolResult, big)},
	}
	cp := FindCutPoint(branch, 0, len(branch), 150)
	// 100 (5) + 100 (4) reaches 150 at entry 4, an assistant message inside the first turn.
	eq(t, "cut", cp, CutPoint{FirstKept: 3, TurnStart: 0, SplitTurn: true})
	p := PrepareCompaction(branch, CompactionSettings{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 150})
	eq(t, "first kept", p.FirstKeptEntryID, "4")
	eq(t, "nothing before the turn", len(p.ToSummarize), 0)
	eq(t, "turn prefix", len(p.TurnPrefix), 3)
}

func TestSerializeConversation(t *testing.T) {
	long := strings.Repeat("é", 2001)
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("fix it")}},
		{Role: llm.RoleAssistant, Content: []llm.Content{{Type: llm.TypeThinking, Thinking: "hmm"}, llm.TextBlock("ok"),
			{Type: llm.TypeToolCall, Name: "edit", Arguments: []byte(`{"path": "a.go", "n": 1}`)}}},
		{Role: llm.RoleToolResult, Content: []llm.Content{llm.TextBlock(long)}},
	}
	got := SerializeConversation(msgs)
	want := "[User]: fix it\n\n[Assistant thinking]: hmm\n\n[Assistant]: ok\n\n[Assistant tool calls]: edit(path=\"a.go\", n=1)\n\n[Tool result]: " +
		strings.Repeat("é", 2000) + "\n\n[... 1 more characters truncated]"
	eq(t, "serialized", got, want)
}

// jsLenRunes is jsLen's definition: a UTF-16 code unit per rune, two above U+FFFF (ranging
// over a string gives a byte of invalid UTF-8 as one U+FFFD).
func jsLenRunes(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

func TestJSLenMatchesRunes(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghi", "héllo wörld, long enough", "😀", "ab😀cdefghijklmnop😀",
		"\xff", "abcdefg\xff\xfe", "abcdefgh\xe2\x82", "\xf0\x9f\x98", strings.Repeat("x", 1000) + "é" + strings.Repeat("y", 13)} {
		if got, want := jsLen(s), jsLenRunes(s); got != want {
			t.Errorf("jsLen(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzJSLen(f *testing.F) {
	for _, s := range []string{"", "abcdefgh😀é\xff", strings.Repeat("ab", 9) + "\xf0\x9f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := jsLen(s), jsLenRunes(s); got != want {
			t.Errorf("jsLen(%q) = %d, want %d", s, got, want)
		}
	})
}

func BenchmarkJSLen(b *testing.B) {
	s := strings.Repeat("All work and no play makes a long reply. ", 1<<15)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		jsLen(s)
	}
}

// TestJSLenBlocks: jsLen (four words a step, then one, then a rune) against its definition
// for a multi-byte rune, an invalid byte or a cut sequence at every position of strings of up
// to 100 bytes.
func TestJSLenBlocks(t *testing.T) {
	for n := 0; n <= 100; n++ {
		for at := 0; at <= n; at++ {
			for _, r := range []string{"é", "€", "😀", "\xff", "\xf0\x9f", "\x7f"} {
				s := strings.Repeat("a", at) + r + strings.Repeat("b", n-at)
				if got, want := jsLen(s), jsLenRunes(s); got != want {
					t.Fatalf("jsLen(%q) = %d, want %d", s, got, want)
				}
			}
		}
	}
}

package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// BuildFunc is a provider's request body for a context.
type BuildFunc func(m *llm.Model, c *llm.Context, o *llm.Options) []byte

// CheckMemo plays a scripted session through build twice at every step — once extending
// the last body through one llm.BodyMemo, once rebuilding it from nothing — and fails unless
// the two bodies are the same bytes. The steps are turns (the cache marker moves each turn),
// then every event that changes what was sent before: a thinking-level and a retention
// switch, a model switch (models[1]: the earlier replies become another model's), a changed
// system prompt and tool set, an errored reply and a tool call left without a result, an
// image, a compaction, a navigation to an earlier entry and a fork with a different prompt,
// an earlier message edited in place, and turns after each. It also fails when the memo
// copied nothing on the plain turns (the extension would not be happening) or copied the
// body on them instead of writing into the last one's buffer (llm.BodyMemo's in-place path,
// which the steps after them exercise: a changed element early in the array has the later
// equal ones moved, a shorter array truncates).
func CheckMemo(t *testing.T, build BuildFunc, models [2]*llm.Model) {
	t.Helper()
	memo := new(llm.BodyMemo)
	m := models[0]
	opts := llm.Options{SessionID: "session-1", ThinkingLevel: "high"}
	c := &llm.Context{SystemPrompt: "You are a coding agent.", Tools: memoTools()}
	f, tr := false, true
	n := 0
	reply := func(mod *llm.Model, blocks ...llm.Content) llm.Message {
		n++
		return llm.Message{Role: llm.RoleAssistant, Content: blocks, API: mod.API, Provider: mod.Provider, Model: mod.ID,
			Usage: &llm.Usage{Input: 100 * n, Output: 10}, StopReason: llm.StopToolUse, Timestamp: int64(n)}
	}
	call := func(id, path string) llm.Content {
		return llm.Content{Type: llm.TypeToolCall, ID: id, Name: "read", Arguments: json.RawMessage(`{"path": "` + path + `", "limit": 10}`)}
	}
	result := func(id, text string, isErr *bool) llm.Message {
		n++
		return llm.Message{Role: llm.RoleToolResult, ToolCallID: id, ToolName: "read", Content: []llm.Content{llm.TextBlock(text)}, IsError: isErr, Timestamp: int64(n)}
	}
	user := func(text string) llm.Message {
		n++
		return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock(text)}, Timestamp: int64(n)}
	}
	turn := func(mod *llm.Model, i int) []llm.Message {
		id := fmt.Sprintf("call_%d_%s", i, mod.ID)
		think := llm.Content{Type: llm.TypeThinking, Thinking: fmt.Sprintf("Thinking about step %d.", i), ThinkingSignature: fmt.Sprintf("sig%d", i)}
		ans := reply(mod, llm.TextBlock(fmt.Sprintf("Step %d: the file has \"quotes\", tabs\tand é ✓.", i)))
		ans.StopReason = llm.StopStop
		return []llm.Message{
			user(fmt.Sprintf("Prompt %d: look at file%d.go", i, i)),
			reply(mod, think, llm.TextBlock("Reading."), call(id, fmt.Sprintf("file%d.go", i))),
			result(id, strings.Repeat(fmt.Sprintf("line %d\twith \"text\"\n", i), 20), &f),
			ans,
		}
	}
	step := 0
	check := func(what string) {
		t.Helper()
		step++
		cp := *c
		cp.Messages = append([]llm.Message(nil), c.Messages...)
		plain := opts
		want := build(m, &cp, &plain)
		withMemo := opts
		withMemo.Memo = memo
		got := build(m, &cp, &withMemo)
		if !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			lo := max(0, i-80)
			t.Fatalf("step %d (%s): the extended body differs from the rebuilt one at byte %d:\nextended: …%s\nrebuilt:  …%s",
				step, what, i, got[lo:min(len(got), i+80)], want[lo:min(len(want), i+80)])
		}
	}
	plainTurns := func(what string, from, k int) {
		t.Helper()
		for i := from; i < from+k; i++ {
			c.Messages = append(c.Messages, turn(m, i)...)
			check(fmt.Sprintf("%s, turn %d", what, i))
		}
	}
	plainTurns("first turns", 0, 4)
	before := memo.Stats()
	plainTurns("more turns", 4, 3)
	// The three bodies hold 60 messages before their new turns (some providers merge a few);
	// at least half of them are copied.
	if s := memo.Stats(); s.Reused-before.Reused < 30 {
		t.Fatalf("the memo copied %d earlier messages over three turns of a 16-message session: the body is rebuilt, not extended", s.Reused-before.Reused)
	}
	// Nothing before the messages changed: each of the three was written into the last body's
	// buffer, not copied.
	if s := memo.Stats(); s.InPlace-before.InPlace < 3 {
		t.Fatalf("%d of three plain turns were written into the last body's buffer: the body is copied each turn", s.InPlace-before.InPlace)
	}
	check("the same context again (a retry)")

	opts.ThinkingLevel = "off"
	check("thinking off")
	opts.ThinkingLevel = "medium"
	plainTurns("thinking medium", 7, 1)
	opts.CacheRetention = "long"
	check("long retention")
	opts.CacheRetention = "none"
	plainTurns("no retention", 8, 1)
	opts.CacheRetention = ""

	m = models[1]
	check("model switch")
	plainTurns("after the model switch", 9, 2)
	m = models[0]
	check("model switched back")

	c.SystemPrompt = "You are another agent."
	check("system prompt changed")
	c.Tools = c.Tools[:1]
	check("a tool removed")
	c.Tools = nil
	check("no tools")
	c.Tools = memoTools()

	failed := reply(m, llm.TextBlock("partial"))
	failed.StopReason, failed.ErrorMessage = llm.StopError, "boom"
	c.Messages = append(c.Messages, user("go on"), failed)
	check("errored reply")
	c.Messages = append(c.Messages, reply(m, call("orphan", "x.go")))
	check("tool call without a result")
	c.Messages = append(c.Messages, user("and now?"))
	check("user after the orphan")
	c.Messages = append(c.Messages, result("orphan", "late", &tr))
	check("a late result")
	c.Messages = append(c.Messages, llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.TextBlock("see"),
		{Type: llm.TypeImage, Data: "aGVsbG8=", MimeType: "image/png"}}, Timestamp: 99})
	check("an image")
	plainTurns("after the image", 11, 1)

	tail := append([]llm.Message(nil), c.Messages[len(c.Messages)-4:]...)
	c.Messages = append([]llm.Message{user("The conversation so far, summarised: files were read.")}, tail...)
	check("compaction")
	plainTurns("after the compaction", 12, 2)

	c.Messages = append([]llm.Message(nil), c.Messages[:5]...)
	check("navigation to an earlier entry")
	c.Messages = append(c.Messages, user("a different question"))
	check("fork")
	plainTurns("after the fork", 14, 2)

	edited := append([]llm.Message(nil), c.Messages...)
	edited[1].Content = append([]llm.Content(nil), edited[1].Content...)
	edited[1].Content[0].Text = "Edited."
	c.Messages = edited
	check("an earlier message edited in place")
	plainTurns("after the edit", 16, 1)
}

func memoTools() []llm.Tool {
	params := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	var out []llm.Tool
	for _, name := range []string{"read", "bash", "edit"} {
		out = append(out, llm.Tool{Name: name, Description: "The " + name + " tool.", Parameters: params})
	}
	return out
}

// CPUTimer reports the process's CPU time (user + system, every thread: the garbage
// collector's too) per iteration as "cpu-ms/op" beside the wall time, which on a loaded
// machine mostly measures waiting for a CPU. Call the returned function after the loop.
func CPUTimer(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package llm

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestTransformMessagesMatchesTwoPass: the one-pass TransformMessages (which keeps an
// unchanged message's content slice) gives what the two-pass one it replaced gave, over
// every sequence of three messages drawn from a set covering each rule: images for a
// text-only model, thinking (signed, unsigned, blank, redacted) from the same and another
// model, tool calls normalised or not, errored and aborted replies, results with and without
// their call, empty content.
func TestTransformMessagesMatchesTwoPass(t *testing.T) {
	f := false
	same := func(blocks ...Content) Message {
		return Message{Role: RoleAssistant, Provider: "p", API: "a", Model: "m", Content: blocks, StopReason: StopToolUse}
	}
	other := func(blocks ...Content) Message {
		msg := same(blocks...)
		msg.Model = "n"
		return msg
	}
	call := func(id string) Content {
		return Content{Type: TypeToolCall, ID: id, Name: "read", ThoughtSignature: "ts"}
	}
	think := func(text, sig string, redacted bool) Content {
		return Content{Type: TypeThinking, Thinking: text, ThinkingSignature: sig, Redacted: redacted}
	}
	errored := same(TextBlock("x"))
	errored.StopReason = StopError
	aborted := same(call("c1"))
	aborted.StopReason = StopAborted
	pool := []Message{
		{Role: RoleUser, Content: []Content{TextBlock("hi"), {Type: TypeImage, Data: "d", MimeType: "image/png"}, {Type: TypeImage}}},
		{Role: RoleUser, Content: []Content{}},
		same(TextBlock("a"), call("c1")),
		same(think("t", "sig", false), think(" ", "", false), think("r", "", true), TextBlock("b")),
		same(think(" ", "", false)),
		same(),
		other(think("t", "sig", false), think("r", "", true), TextBlock("c"), call("c1|item")),
		other(call("c2")),
		// Another model's plain text and a call with nothing to change (kept, not copied),
		// and a text with a signature (copied without it).
		other(TextBlock("d"), Content{Type: TypeToolCall, ID: "c3", Name: "read"}),
		other(Content{Type: TypeText, Text: "e", TextSignature: "s"}, Content{Type: TypeToolCall, ID: "c1|item", Name: "read"}),
		{Role: RoleToolResult, ToolCallID: "c3", Content: []Content{TextBlock("r4")}, IsError: &f},
		errored, aborted,
		{Role: RoleToolResult, ToolCallID: "c1", Content: []Content{TextBlock("r"), {Type: TypeImage}}, IsError: &f},
		{Role: RoleToolResult, ToolCallID: "c1|item", Content: []Content{TextBlock("r2")}, IsError: &f},
		{Role: RoleToolResult, ToolCallID: "c2", Content: []Content{TextBlock("r3")}, IsError: &f},
		{Role: "custom"},
	}
	normalize := func(id string, _ *Message) string { return strings.ReplaceAll(id, "|", "_") }
	models := []*Model{{Provider: "p", API: "a", ID: "m", Input: []string{"text"}}, {Provider: "p", API: "a", ID: "m", Input: []string{"text", "image"}}}
	n := 0
	for _, m := range models {
		for _, norm := range []func(string, *Message) string{nil, normalize} {
			for _, a := range pool {
				for _, b := range pool {
					for _, c := range pool {
						msgs := []Message{a, b, c}
						want := transformMessagesRef(msgs, m, norm)
						got := TransformMessages(msgs, m, norm)
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("%v: %s\ngot  %+v\nwant %+v", m.Input, fmt.Sprint(msgs), got, want)
						}
						n++
					}
				}
			}
		}
	}
}

func transformMessagesRef(msgs []Message, m *Model, normalize func(id string, src *Message) string) []Message {
	idMap := map[string]string{}
	out := make([]Message, 0, len(msgs))
	transformed := make([]Message, 0, len(msgs))
	for i := range msgs {
		msg := msgs[i]
		if !m.HasInput("image") && (msg.Role == RoleUser || msg.Role == RoleToolResult) {
			ph := nonVisionUserImage
			if msg.Role == RoleToolResult {
				ph = nonVisionToolImage
			}
			msg.Content = replaceImages(msg.Content, ph)
		}
		switch msg.Role {
		case RoleToolResult:
			if n, ok := idMap[msg.ToolCallID]; ok && n != msg.ToolCallID {
				msg.ToolCallID = n
			}
		case RoleAssistant:
			same := msg.Provider == m.Provider && msg.API == m.API && msg.Model == m.ID
			var content []Content
			for _, b := range msg.Content {
				switch b.Type {
				case TypeThinking:
					if b.Redacted {
						if same {
							content = append(content, b)
						}
						continue
					}
					if same && b.ThinkingSignature != "" {
						content = append(content, b)
						continue
					}
					if strings.TrimSpace(b.Thinking) == "" {
						continue
					}
					if same {
						content = append(content, b)
					} else {
						content = append(content, TextBlock(b.Thinking))
					}
				case TypeText:
					if same {
						content = append(content, b)
					} else {
						content = append(content, TextBlock(b.Text))
					}
				case TypeToolCall:
					if !same {
						b.ThoughtSignature = ""
						if normalize != nil {
							if n := normalize(b.ID, &msgs[i]); n != b.ID {
								idMap[b.ID] = n
								b.ID = n
							}
						}
					}
					content = append(content, b)
				default:
					content = append(content, b)
				}
			}
			msg.Content = content
		}
		transformed = append(transformed, msg)
	}
	var pending []Content
	have := map[string]bool{}
	flush := func() {
		for _, tc := range pending {
			if !have[tc.ID] {
				isErr := true
				out = append(out, Message{Role: RoleToolResult, ToolCallID: tc.ID, ToolName: tc.Name,
					Content: []Content{TextBlock(noResultProvided)}, IsError: &isErr})
			}
		}
		pending = nil
		have = map[string]bool{}
	}
	for _, msg := range transformed {
		switch msg.Role {
		case RoleAssistant:
			flush()
			if msg.StopReason == StopError || msg.StopReason == StopAborted {
				continue
			}
			if tcs := msg.ToolCalls(); len(tcs) > 0 {
				pending = tcs
				have = map[string]bool{}
			}
			out = append(out, msg)
		case RoleToolResult:
			have[msg.ToolCallID] = true
			out = append(out, msg)
		case RoleUser:
			flush()
			out = append(out, msg)
		default:
			out = append(out, msg)
		}
	}
	flush()
	return out
}

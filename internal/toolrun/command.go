package toolrun

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/llm"
)

// What `pigo tool run` needs besides the runner: the row of the tool to run, a call id and the
// result as text.

// ContentText is the content as text: text blocks joined by newlines, images as a note.
func ContentText(cs []llm.Content) string {
	var parts []string
	for _, c := range cs {
		switch c.Type {
		case llm.TypeText:
			parts = append(parts, c.Text)
		case llm.TypeImage:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes base64]", c.MimeType, len(c.Data)))
		}
	}
	return strings.Join(parts, "\n")
}

// Row finds the registry row that owns name: the callable one, else the first of that
// name (for the state and reason).
func Row(reg *engine.Result, name string) (*engine.ToolResult, bool) {
	var first *engine.ToolResult
	for i := range reg.Tools {
		t := &reg.Tools[i]
		if t.Name != name {
			continue
		}
		if Callable(t.State) {
			return t, true
		}
		if first == nil || first.State == engine.Overridden || first.State == engine.Unavailable {
			first = t
		}
	}
	return first, false
}

// NewCallID is a fresh id in the shape pi's providers use for calls.
func NewCallID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

package session

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/llm"
)

// randomArgs writes a random JSON value as a tool call's arguments might be written: mostly in
// JSON.stringify's form, sometimes not (white space, \/ and other escapes JSON.stringify does
// not write, upper-case hex, surrogate pairs, invalid UTF-8, floats, -0, long integers, a key
// twice, deep nesting).
func randomArgs(r *rand.Rand, b *strings.Builder, depth int) {
	odd := r.Intn(40) == 0
	ws := func() {
		if odd && r.Intn(2) == 0 {
			b.WriteString([]string{" ", "\n", "\t", "\r"}[r.Intn(4)])
		}
	}
	str := func() {
		b.WriteByte('"')
		for range r.Intn(8) {
			if odd {
				b.WriteString([]string{`\/`, `\u0041`, `\u001F`, `\u0008`, `\ud83d\ude00`, "\xff", "\xc3", `\u000a`}[r.Intn(8)])
				continue
			}
			b.WriteString([]string{"abc", `\"`, `\\`, `\n`, `\t`, `\r`, `\b`, `\f`, `\u001f`, `\u0000`, "é", "€𝄞", "<&>", "\u2028", " ", "x y", "0123456789abcdef"}[r.Intn(17)])
		}
		b.WriteByte('"')
	}
	switch n := r.Intn(10); {
	case depth > 3 && n < 8 || n == 0:
		switch r.Intn(8) {
		case 0:
			b.WriteString("true")
		case 1:
			b.WriteString("false")
		case 2:
			b.WriteString("null")
		case 3:
			if odd {
				b.WriteString([]string{"-0", "1.5", "1e3", "1234567890123456", "-0.0", "2E-7"}[r.Intn(6)])
			} else {
				b.WriteString([]string{"0", "7", "-12", "123456789012345", "-123456789012345"}[r.Intn(5)])
			}
		default:
			str()
		}
	case n < 4:
		b.WriteByte('[')
		ws()
		for i := range r.Intn(4) {
			if i > 0 {
				b.WriteByte(',')
				ws()
			}
			randomArgs(r, b, depth+1)
			ws()
		}
		b.WriteByte(']')
	case n == 4 && r.Intn(20) == 0:
		// Deeper than the check follows.
		for range stringifiedMaxDepth + 2 {
			b.WriteByte('[')
		}
		for range stringifiedMaxDepth + 2 {
			b.WriteByte(']')
		}
	default:
		b.WriteByte('{')
		ws()
		keys := []string{`"path"`, `"oldText"`, `"newText"`, `"a\"b"`, `"é"`, `"x"`}
		for i := range r.Intn(4) {
			if i > 0 {
				b.WriteByte(',')
				ws()
			}
			k := keys[r.Intn(len(keys))]
			if odd && r.Intn(2) == 0 {
				k = keys[0] // perhaps a key twice
			}
			b.WriteString(k)
			ws()
			b.WriteByte(':')
			ws()
			randomArgs(r, b, depth+1)
			ws()
		}
		b.WriteByte('}')
	}
}

// TestArgumentsStringified: a tool call's arguments that the decoder records as in
// JSON.stringify's form are sent exactly as when their form is checked at the body
// (AppendArguments against AppendJSON of a JSONText, which checks it: a wrong record sends
// other bytes), over random arguments of every shape; they are the same bytes raw() read;
// and nearly all arguments in that form, and all of pi's session's, are recorded.
func TestArgumentsStringified(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	check := func(args string) (recorded, valid bool) {
		line := `{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"n","arguments":` +
			args + `}],"api":"x","provider":"p","model":"m","stopReason":"toolUse","timestamp":1}}`
		e, err := decodeEntry([]byte(line))
		if err != nil || e.Message == nil || e.Message.LLM == nil || len(e.Message.LLM.Content) != 1 {
			if json.Valid([]byte(line)) {
				t.Fatalf("%s: not decoded: %v", args, err)
			}
			return false, false
		}
		c := &e.Message.LLM.Content[0]
		if want := strings.TrimLeft(args, " \n\t\r"); string(c.Arguments) != want {
			t.Fatalf("arguments %q read as %q", want, c.Arguments)
		}
		got, want := c.AppendArguments(nil), llm.AppendJSON(nil, llm.JSONText(c.Arguments))
		if !bytes.Equal(got, want) {
			t.Fatalf("%s (recorded %v): sent as\n%s\nnot\n%s", args, c.ArgumentsStringified(), got, want)
		}
		return c.ArgumentsStringified(), true
	}
	recorded, stringified := 0, 0
	for range 30000 {
		var b strings.Builder
		randomArgs(r, &b, 0)
		args := b.String()
		rec, valid := check(args)
		if !valid {
			continue
		}
		if rec {
			recorded++
		}
		// In JSON.stringify's form: what JSONStringify writes for it.
		if s, err := llm.JSONStringify([]byte(args)); err == nil && string(s) == args {
			stringified++
		}
		// The same arguments after white space are read the same.
		check(" " + args)
	}
	if recorded < stringified*9/10 || recorded > stringified {
		t.Fatalf("%d recorded of %d in JSON.stringify's form", recorded, stringified)
	}
	t.Logf("%d recorded of %d in JSON.stringify's form", recorded, stringified)
	if b, err := os.ReadFile("/tmp/large-session.jsonl"); err == nil {
		calls, rec := 0, 0
		for _, l := range bytes.Split(b, []byte("\n")) {
			e, err := decodeEntry(l)
			if err != nil || e.Message == nil || e.Message.LLM == nil {
				continue
			}
			for k := range e.Message.LLM.Content {
				if c := &e.Message.LLM.Content[k]; c.Type == llm.TypeToolCall {
					calls++
					if c.ArgumentsStringified() {
						rec++
					}
				}
			}
		}
		if rec != calls || calls == 0 {
			t.Fatalf("pi's session: %d of %d calls' arguments recorded", rec, calls)
		}
	}
}

package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

type ccQuestion struct {
	Question    string                   `json:"question"`
	Header      string                   `json:"header"`
	Options     []toolkit.QuestionOption `json:"options"`
	MultiSelect bool                     `json:"multiSelect"`
}

func ccAsk(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		Questions []ccQuestion `json:"questions"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	const noUI = "Cannot ask questions: interactive UI is not available"
	if !inv.Session.CanAsk() {
		return toolrun.Result{}, errors.New(noUI)
	}
	var keys []string
	answers := map[string]string{}
	for _, q := range a.Questions {
		if ctx.Err() != nil {
			return toolrun.Result{}, errors.New(toolkit.ErrAborted)
		}
		got, err := toolkit.Ask(ctx, inv.Session, "AskUserQuestion", toolkit.Question{Title: q.Header + ": " + q.Question, Question: q.Question, Header: q.Header,
			Options: q.Options, Multiple: q.MultiSelect, Other: "Other", Done: "Done", InputPrompt: "Type your answer"}, noUI)
		if err != nil {
			return toolrun.Result{}, err
		}
		ans := "Unanswered"
		if len(got) > 0 {
			ans = strings.Join(got, ", ")
		}
		if _, seen := answers[q.Question]; !seen {
			keys = append(keys, q.Question)
		}
		answers[q.Question] = ans
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = `"` + k + `"="` + answers[k] + `"`
	}
	text := "User has answered your questions: " + strings.Join(parts, ", ") + ". You can now continue with the user's answers in mind."
	return toolrun.TextResult(text, struct {
		Questions []ccQuestion   `json:"questions"`
		Answers   orderedStrings `json:"answers"`
	}{a.Questions, orderedStrings{keys, answers}}), nil
}

// orderedStrings marshals a string map in insertion order (a JavaScript
// object's key order).
type orderedStrings struct {
	keys []string
	m    map[string]string
}

func (o orderedStrings) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(o.m[k])
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

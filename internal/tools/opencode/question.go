package opencode

import (
	"context"
	"errors"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools/toolkit"
)

type ocQuestionIn struct {
	Question string                   `json:"question"`
	Header   string                   `json:"header"`
	Options  []toolkit.QuestionOption `json:"options"`
	Multiple bool                     `json:"multiple"`
}

func ocQuestion(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	var a struct {
		Questions []ocQuestionIn `json:"questions"`
	}
	if err := inv.Decode(&a); err != nil {
		return toolrun.Result{}, err
	}
	const noUI = "Cannot ask questions: interactive UI is not available in this mode"
	if !inv.Session.CanAsk() {
		return toolrun.Result{}, errors.New(noUI)
	}
	qs := make([]ocQuestionIn, len(a.Questions))
	for i, q := range a.Questions {
		opts := make([]toolkit.QuestionOption, len(q.Options))
		for j, o := range q.Options {
			opts[j] = toolkit.QuestionOption{Label: toolkit.JsTrim(o.Label), Description: toolkit.JsTrim(o.Description)}
		}
		qs[i] = ocQuestionIn{Question: toolkit.JsTrim(q.Question), Header: toolkit.JsTrim(q.Header), Options: opts, Multiple: q.Multiple}
	}
	answers := make([][]string, len(qs))
	parts := make([]string, len(qs))
	for i, q := range qs {
		if ctx.Err() != nil {
			return toolrun.Result{}, errors.New(toolkit.ErrAborted)
		}
		title := q.Question
		if q.Header != "" {
			title = q.Header + ": " + q.Question
		}
		got, err := toolkit.Ask(ctx, inv.Session, "question", toolkit.Question{Title: title, Question: q.Question, Header: q.Header, Options: q.Options,
			Multiple: q.Multiple, Other: "Type your own answer.", Done: "✓ Done", InputPrompt: "Type your answer…"}, noUI)
		if err != nil {
			return toolrun.Result{}, err
		}
		if got == nil {
			got = []string{}
		}
		answers[i] = got
		ans := "Unanswered"
		if len(got) > 0 {
			ans = strings.Join(got, ", ")
		}
		parts[i] = `"` + q.Question + `"="` + ans + `"`
	}
	text := "User has answered your questions: " + strings.Join(parts, ", ") + ". You can now continue with the user's answers in mind."
	return toolrun.TextResult(text, struct {
		Questions []ocQuestionIn `json:"questions"`
		Answers   [][]string     `json:"answers"`
	}{qs, answers}), nil
}

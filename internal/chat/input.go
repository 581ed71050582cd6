package chat

import (
	"context"
	"errors"
	"strings"

	"github.com/pigo-agent/pigo/internal/editor"
	"github.com/pigo-agent/pigo/internal/keymap"
	"github.com/pigo-agent/pigo/internal/termui"
)

// InputRequest is a question a command puts to the person while it runs (a sign-in: the
// method to choose, a key to paste, the redirect URL): a choice among Options, a line of text,
// or a secret, which the dialog never shows.
type InputRequest struct {
	// Kind is "select", "text" or "secret".
	Kind        string
	Message     string
	Placeholder string
	Options     []InputOption
}

// InputOption is one choice of a select request.
type InputOption struct{ ID, Label string }

// ErrInputCancelled is Input's error when the person closes the dialog (Escape).
var ErrInputCancelled = errors.New("cancelled")

// inputMsg opens an input dialog.
type inputMsg struct {
	req   InputRequest
	reply chan inputReply
}

type inputReply struct {
	text string
	err  error
}

// showMsg adds a line to the transcript.
type showMsg struct{ text string }

// Input asks the person and waits for the answer: the chosen option's ID, or the typed text.
// Only the calling goroutine waits; when ctx ends first the dialog closes.
func (b *Bridge) Input(ctx context.Context, r InputRequest) (string, error) {
	reply := make(chan inputReply, 1)
	b.ch <- inputMsg{r, reply}
	select {
	case a := <-reply:
		return a.text, a.err
	case <-ctx.Done():
		b.ch <- cancelDialogMsg{reply}
		return "", ctx.Err()
	}
}

// Show adds a line to the transcript while a command runs (a sign-in URL, a device code).
func (b *Bridge) Show(text string) { b.ch <- showMsg{text} }

// newInputDialog opens the dialog of one request.
func newInputDialog(msg inputMsg) *dialog {
	d := &dialog{kind: "input", title: msg.req.Message, in: &msg}
	if msg.req.Kind == "select" {
		items := make([]termui.Item, len(msg.req.Options))
		for i, o := range msg.req.Options {
			items[i] = termui.Item{Label: o.Label, Value: o.ID}
		}
		d.list = termui.NewList(items)
		d.list.Max = min(len(items), pickRows)
		d.list.Filterable = len(items) > pickRows
		return d
	}
	d.input = editor.New()
	return d
}

// inputKey handles a key of an input dialog; done reports that it answered.
func (d *dialog) inputKey(k keymap.Key, km *keymap.Map) bool {
	answer := func(text string, err error) bool {
		d.in.reply <- inputReply{text, err}
		return true
	}
	if d.list != nil {
		switch d.list.Handle(k, km) {
		case termui.Chosen:
			it, _ := d.list.Selected()
			return answer(it.Value, nil)
		case termui.Cancelled:
			return answer("", ErrInputCancelled)
		}
		return false
	}
	switch {
	case k.Name == "escape" || k.Name == "ctrl+c":
		return answer("", ErrInputCancelled)
	case km.Is(k.Name, keymap.Submit):
		return answer(strings.TrimSpace(d.input.Expanded()), nil)
	}
	d.input.Handle(k, km)
	return false
}

// inputLines draws an input dialog; a secret shows one bullet per character.
func (d *dialog) inputLines(m *Model, w int) []string {
	st := m.st
	var out []string
	for _, l := range strings.Split(d.title, "\n") {
		out = append(out, termui.Wrap(l, w)...)
	}
	out = append(out, "")
	if d.list != nil {
		out = append(out, d.list.Render(w, st)...)
		return append(out, "", st.Fg("dim", "↑↓ navigate · enter select · esc cancel"))
	}
	text := d.input.Text()
	switch {
	case text == "" && d.in.req.Placeholder != "":
		out = append(out, st.Fg("dim", d.in.req.Placeholder)+st.Reverse(" "))
	case d.in.req.Kind == "secret":
		out = append(out, strings.Repeat("•", len([]rune(text)))+st.Reverse(" "))
	default:
		ls := d.input.Render(w, editor.Styles{Border: func(s string) string { return st.Fg("border", s) },
			Cursor: func(s string) string { return st.Reverse(s) }}, "")
		out = append(out, ls[1:len(ls)-1]...)
	}
	return append(out, "", st.Fg("dim", "enter submit · esc cancel"))
}

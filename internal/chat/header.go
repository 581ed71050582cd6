package chat

import (
	"strings"

	"github.com/pigo-agent/pigo/internal/keymap"
	"github.com/pigo-agent/pigo/internal/termui"
)

// header is the start-up header: the version, then the key hints in one line (all of them,
// one per line, while Ctrl+O has the transcript expanded), as pi shows them.
func (m *Model) header(w int) []string {
	if m.o.UI.Quiet == "true" {
		return nil
	}
	st := m.st
	hint := func(a keymap.Action, what string) string {
		k := m.km.Text(a)
		if k == "" {
			return ""
		}
		return st.Fg("dim", k) + st.Fg("muted", " "+what)
	}
	raw := func(k, what string) string { return st.Fg("dim", k) + st.Fg("muted", " "+what) }
	version := m.o.Version
	if version == "" {
		version = "dev"
	}
	out := []string{"", m.block([]string{st.Style("accent", "", termui.Bold, "pigo") + " " + st.Fg("dim", "v"+version)}, w, "")[0]}
	var hints []string
	if m.expanded {
		for _, h := range []string{
			hint(keymap.Interrupt, "to interrupt"),
			hint(keymap.Clear, "to clear"),
			raw(m.km.Text(keymap.Clear)+" twice", "to exit"),
			hint(keymap.Exit, "to exit (empty)"),
			hint(keymap.Suspend, "to suspend"),
			hint(keymap.DeleteToLineEnd, "to delete to end"),
			hint(keymap.ThinkingCycle, "to cycle thinking level"),
			raw(m.km.Text(keymap.ModelForward)+"/"+m.km.Text(keymap.ModelBackward), "to cycle models"),
			hint(keymap.ModelSelect, "to select model"),
			hint(keymap.ToolsExpand, "to expand tools"),
			hint(keymap.ThinkingToggle, "to expand thinking"),
			hint(keymap.External, "for external editor"),
			raw("/", "for commands"),
			raw("!", "to run bash"),
			raw("!!", "to run bash (no context)"),
			hint(keymap.FollowUp, "to queue follow-up"),
			hint(keymap.Dequeue, "to edit all queued messages"),
			hint(keymap.MessageCopy, "to copy the last answer"),
		} {
			if h != "" {
				hints = append(hints, h)
			}
		}
		out = append(out, m.block(hints, w, "")...)
		return out
	}
	for _, h := range []string{
		hint(keymap.Interrupt, "interrupt"),
		raw(m.km.Text(keymap.Clear)+"/"+m.km.Text(keymap.Exit), "clear/exit"),
		raw("/", "commands"),
		raw("!", "bash"),
		hint(keymap.ToolsExpand, "more"),
	} {
		if h != "" {
			hints = append(hints, h)
		}
	}
	line := strings.Join(hints, st.Fg("muted", " · "))
	for _, l := range wrapStyled(line, max(1, w-2*m.pad())) {
		out = append(out, m.block([]string{l}, w, "")...)
	}
	if m.o.UI.Quiet != "header" {
		if k := m.km.Text(keymap.ToolsExpand); k != "" {
			out = append(out, m.block([]string{st.Fg("dim", "Press "+k+" to show full startup help.")}, w, "")...)
		}
	}
	return out
}

// wrapStyled wraps a styled line at spaces (each piece keeps its own escapes closed).
func wrapStyled(s string, w int) []string {
	if termui.Width(s) <= w {
		return []string{s}
	}
	return termui.Wrap(s, w)
}

// Package keymap is the chat's keyboard: pi's named actions (tui.editor.cursorLeft,
// app.model.select, …) with pi 1.6's default keys on Linux, the person's
// <agent-dir>/keybindings.json over them, and one normalized key name for whatever the terminal
// sent — a legacy byte, an xterm modifier sequence, a CSI-u or a modifyOtherKeys report — so
// "shift+enter" means the same key in tmux with extended keys, in Kitty and in xterm.
//
// Key names follow pi's syntax: modifiers shift, ctrl, alt, super joined by "+" before the key
// ("ctrl+shift+up", "alt+enter", "pageUp"). Name normalizes any spelling to one canonical form
// (modifiers in the order shift, ctrl, alt, super; key names lower-case, "esc" → "escape",
// "return" → "enter", "ctrl+_" → "ctrl+-"), so matching is a string comparison.
package keymap

import (
	"slices"
	"strings"
)

// Action is one of pi's keybinding ids.
type Action string

// Def is an action's default keys and its description (what /hotkeys shows).
type Def struct {
	Action      Action
	Keys        []string
	Description string
}

// The actions the chat uses, by id (the full table is Defs).
const (
	CursorUp          Action = "tui.editor.cursorUp"
	CursorDown        Action = "tui.editor.cursorDown"
	HistoryPrevious   Action = "tui.editor.historyPrevious"
	HistoryNext       Action = "tui.editor.historyNext"
	CursorLeft        Action = "tui.editor.cursorLeft"
	CursorRight       Action = "tui.editor.cursorRight"
	CursorWordLeft    Action = "tui.editor.cursorWordLeft"
	CursorWordRight   Action = "tui.editor.cursorWordRight"
	CursorLineStart   Action = "tui.editor.cursorLineStart"
	CursorLineEnd     Action = "tui.editor.cursorLineEnd"
	JumpForward       Action = "tui.editor.jumpForward"
	JumpBackward      Action = "tui.editor.jumpBackward"
	EditorPageUp      Action = "tui.editor.pageUp"
	EditorPageDown    Action = "tui.editor.pageDown"
	DeleteCharBack    Action = "tui.editor.deleteCharBackward"
	DeleteCharForward Action = "tui.editor.deleteCharForward"
	DeleteWordBack    Action = "tui.editor.deleteWordBackward"
	DeleteWordForward Action = "tui.editor.deleteWordForward"
	DeleteToLineStart Action = "tui.editor.deleteToLineStart"
	DeleteToLineEnd   Action = "tui.editor.deleteToLineEnd"
	Yank              Action = "tui.editor.yank"
	YankPop           Action = "tui.editor.yankPop"
	Undo              Action = "tui.editor.undo"
	NewLine           Action = "tui.input.newLine"
	Submit            Action = "tui.input.submit"
	Tab               Action = "tui.input.tab"
	Copy              Action = "tui.input.copy"
	SelectUp          Action = "tui.select.up"
	SelectDown        Action = "tui.select.down"
	SelectPageUp      Action = "tui.select.pageUp"
	SelectPageDown    Action = "tui.select.pageDown"
	SelectConfirm     Action = "tui.select.confirm"
	SelectCancel      Action = "tui.select.cancel"
	ScreenPageUp      Action = "tui.altScreen.pageUp"
	ScreenPageDown    Action = "tui.altScreen.pageDown"
	ScreenHalfUp      Action = "tui.altScreen.halfPageUp"
	ScreenHalfDown    Action = "tui.altScreen.halfPageDown"
	ScreenLineUp      Action = "tui.altScreen.lineUp"
	ScreenLineDown    Action = "tui.altScreen.lineDown"
	PreviousPrompt    Action = "tui.altScreen.previousPrompt"
	NextPrompt        Action = "tui.altScreen.nextPrompt"
	Search            Action = "tui.altScreen.search"
	SearchNext        Action = "tui.altScreen.searchNext"
	SearchPrevious    Action = "tui.altScreen.searchPrevious"
	SearchClose       Action = "tui.altScreen.searchClose"
	ScreenTop         Action = "tui.altScreen.top"
	ScreenBottom      Action = "tui.altScreen.bottom"

	Interrupt      Action = "app.interrupt"
	Clear          Action = "app.clear"
	Exit           Action = "app.exit"
	Suspend        Action = "app.suspend"
	ThinkingCycle  Action = "app.thinking.cycle"
	ThinkingSave   Action = "app.thinking.save"
	ModelForward   Action = "app.model.cycleForward"
	ModelBackward  Action = "app.model.cycleBackward"
	ModelSelect    Action = "app.model.select"
	ToolsExpand    Action = "app.tools.expand"
	ThinkingToggle Action = "app.thinking.toggle"
	External       Action = "app.editor.external"
	MessageCopy    Action = "app.message.copy"
	FollowUp       Action = "app.message.followUp"
	Dequeue        Action = "app.message.dequeue"
	PasteImage     Action = "app.clipboard.pasteImage"
	SessionNew     Action = "app.session.new"
	SessionTree    Action = "app.session.tree"
	SessionFork    Action = "app.session.fork"
	SessionResume  Action = "app.session.resume"
	ModelsSave     Action = "app.models.save"
	ModelsAll      Action = "app.models.enableAll"
	ModelsClear    Action = "app.models.clearAll"
	ModelsProvider Action = "app.models.toggleProvider"
	ModelsUp       Action = "app.models.reorderUp"
	ModelsDown     Action = "app.models.reorderDown"
)

func d(a Action, desc string, keys ...string) Def { return Def{a, keys, desc} }

// Defs is pi 1.6's keybinding table with its Linux defaults, in pi's order.
var Defs = []Def{
	d(CursorUp, "Move cursor up", "up"),
	d(CursorDown, "Move cursor down", "down"),
	d(HistoryPrevious, "Select previous prompt history entry"),
	d(HistoryNext, "Select next prompt history entry"),
	d(CursorLeft, "Move cursor left", "left", "ctrl+b"),
	d(CursorRight, "Move cursor right", "right", "ctrl+f"),
	d(CursorWordLeft, "Move cursor word left", "alt+left", "ctrl+left", "alt+b"),
	d(CursorWordRight, "Move cursor word right", "alt+right", "ctrl+right", "alt+f"),
	d(CursorLineStart, "Move to line start", "home", "ctrl+a"),
	d(CursorLineEnd, "Move to line end", "end", "ctrl+e"),
	d(JumpForward, "Jump forward to character", "ctrl+]"),
	d(JumpBackward, "Jump backward to character", "ctrl+alt+]"),
	d(EditorPageUp, "Page up", "pageUp", "ctrl+pageUp"),
	d(EditorPageDown, "Page down", "pageDown", "ctrl+pageDown"),
	d(DeleteCharBack, "Delete character backward", "backspace"),
	d(DeleteCharForward, "Delete character forward", "delete", "ctrl+d"),
	d(DeleteWordBack, "Delete word backward", "ctrl+w", "alt+backspace"),
	d(DeleteWordForward, "Delete word forward", "alt+d", "alt+delete"),
	d(DeleteToLineStart, "Delete to line start", "ctrl+u"),
	d(DeleteToLineEnd, "Delete to line end", "ctrl+k"),
	d(Yank, "Yank", "ctrl+y"),
	d(YankPop, "Yank pop", "alt+y"),
	d(Undo, "Undo", "ctrl+-"),
	d(NewLine, "Insert newline", "shift+enter", "ctrl+j"),
	d(Submit, "Submit input", "enter"),
	d(Tab, "Tab / autocomplete", "tab"),
	d(Copy, "Copy selection", "ctrl+c"),
	d(SelectUp, "Move selection up", "up"),
	d(SelectDown, "Move selection down", "down"),
	d(SelectPageUp, "Selection page up", "pageUp"),
	d(SelectPageDown, "Selection page down", "pageDown"),
	d(SelectConfirm, "Confirm selection", "enter"),
	d(SelectCancel, "Cancel selection", "escape", "ctrl+c"),
	d(ScreenPageUp, "Scroll viewport up one page", "pageUp"),
	d(ScreenPageDown, "Scroll viewport down one page", "pageDown"),
	d(ScreenHalfUp, "Scroll viewport up half a page"),
	d(ScreenHalfDown, "Scroll viewport down half a page"),
	d(ScreenLineUp, "Scroll viewport up one line"),
	d(ScreenLineDown, "Scroll viewport down one line"),
	d(PreviousPrompt, "Jump to previous semantic prompt", "ctrl+shift+up", "ctrl+up"),
	d(NextPrompt, "Jump to next semantic prompt", "ctrl+shift+down", "ctrl+down"),
	d(Search, "Search the primary scroll view", "ctrl+shift+f"),
	d(SearchNext, "Select the next search match", "enter", "ctrl+g"),
	d(SearchPrevious, "Select the previous search match", "shift+enter", "ctrl+shift+g"),
	d(SearchClose, "Close transcript search", "escape"),
	d(ScreenTop, "Scroll viewport to top", "ctrl+home"),
	d(ScreenBottom, "Scroll viewport to bottom", "ctrl+end"),

	d(Interrupt, "Cancel or abort", "escape"),
	d(Clear, "Clear editor", "ctrl+c"),
	d(Exit, "Exit when editor is empty", "ctrl+d"),
	d(Suspend, "Suspend to background", "ctrl+z"),
	d(ThinkingCycle, "Cycle thinking level", "shift+tab"),
	d(ThinkingSave, "Save thinking level", "ctrl+s"),
	d(ModelForward, "Cycle to next model", "ctrl+p"),
	d(ModelBackward, "Cycle to previous model", "shift+ctrl+p"),
	d(ModelSelect, "Open model selector", "ctrl+l"),
	d(ToolsExpand, "Toggle tool output", "ctrl+o"),
	d(ThinkingToggle, "Toggle thinking blocks", "ctrl+t"),
	d("app.session.toggleNamedFilter", "Toggle named session filter", "ctrl+n"),
	d(External, "Open external editor", "ctrl+g"),
	d(MessageCopy, "Copy selection or last assistant message", "ctrl+x"),
	d(FollowUp, "Queue follow-up message", "alt+enter"),
	d(Dequeue, "Restore queued messages", "alt+up"),
	d(PasteImage, "Paste files on macOS, images, or text from clipboard", "ctrl+v"),
	d(SessionNew, "Start a new session"),
	d(SessionTree, "Open session tree"),
	d(SessionFork, "Fork current session"),
	d(SessionResume, "Resume a session"),
	d("app.tree.foldOrUp", "Fold tree branch or move up", "ctrl+left", "alt+left"),
	d("app.tree.unfoldOrDown", "Unfold tree branch or move down", "ctrl+right", "alt+right"),
	d("app.tree.editLabel", "Edit tree label", "shift+l"),
	d("app.tree.toggleLabelTimestamp", "Toggle tree label timestamps", "shift+t"),
	d("app.session.togglePath", "Toggle session path display", "ctrl+p"),
	d("app.session.toggleSort", "Toggle session sort mode", "ctrl+s"),
	d("app.session.rename", "Rename session", "ctrl+r"),
	d("app.session.delete", "Delete session", "ctrl+d"),
	d("app.session.deleteNoninvasive", "Delete session when query is empty", "ctrl+backspace"),
	d(ModelsSave, "Save model selection", "ctrl+s"),
	d(ModelsAll, "Enable all models", "ctrl+a"),
	d(ModelsClear, "Clear all models", "ctrl+x"),
	d(ModelsProvider, "Toggle all models for provider", "ctrl+p"),
	d(ModelsUp, "Move model up in order", "alt+up"),
	d(ModelsDown, "Move model down in order", "alt+down"),
	d("app.tree.filter.default", "Tree filter: default view", "ctrl+d"),
	d("app.tree.filter.noTools", "Tree filter: hide tool results", "ctrl+t"),
	d("app.tree.filter.userOnly", "Tree filter: user messages only", "ctrl+u"),
	d("app.tree.filter.labeledOnly", "Tree filter: labeled entries only", "ctrl+l"),
	d("app.tree.filter.all", "Tree filter: show all entries", "ctrl+a"),
	d("app.tree.filter.cycleForward", "Tree filter: cycle forward", "ctrl+o"),
	d("app.tree.filter.cycleBackward", "Tree filter: cycle backward", "shift+ctrl+o"),
}

// legacyNames maps pi's older keybindings.json names to today's ids (pi migrates them). An
// array of pairs, not a map: it is static data, where a package-level map is built by every
// pigo process at start-up (D25.44); it is read only when keybindings.json is loaded.
var legacyNames = [...]struct {
	old string
	id  Action
}{
	{"cursorUp", CursorUp}, {"cursorDown", CursorDown}, {"cursorLeft", CursorLeft},
	{"cursorRight", CursorRight}, {"cursorWordLeft", CursorWordLeft},
	{"cursorWordRight", CursorWordRight}, {"cursorLineStart", CursorLineStart},
	{"cursorLineEnd", CursorLineEnd}, {"jumpForward", JumpForward}, {"jumpBackward", JumpBackward},
	{"pageUp", EditorPageUp}, {"pageDown", EditorPageDown}, {"deleteCharBackward", DeleteCharBack},
	{"deleteCharForward", DeleteCharForward}, {"deleteWordBackward", DeleteWordBack},
	{"deleteWordForward", DeleteWordForward}, {"deleteToLineStart", DeleteToLineStart},
	{"deleteToLineEnd", DeleteToLineEnd}, {"yank", Yank}, {"yankPop", YankPop}, {"undo", Undo},
	{"newLine", NewLine}, {"submit", Submit}, {"tab", Tab}, {"copy", Copy}, {"selectUp", SelectUp},
	{"selectDown", SelectDown}, {"selectPageUp", SelectPageUp}, {"selectPageDown", SelectPageDown},
	{"selectConfirm", SelectConfirm}, {"selectCancel", SelectCancel}, {"interrupt", Interrupt},
	{"clear", Clear}, {"exit", Exit}, {"suspend", Suspend}, {"cycleThinkingLevel", ThinkingCycle},
	{"cycleModelForward", ModelForward}, {"cycleModelBackward", ModelBackward},
	{"selectModel", ModelSelect}, {"expandTools", ToolsExpand}, {"toggleThinking", ThinkingToggle},
	{"toggleSessionNamedFilter", "app.session.toggleNamedFilter"}, {"externalEditor", External},
	{"followUp", FollowUp}, {"dequeue", Dequeue}, {"pasteImage", PasteImage},
	{"newSession", SessionNew}, {"tree", SessionTree}, {"fork", SessionFork},
	{"resume", SessionResume}, {"treeFoldOrUp", "app.tree.foldOrUp"},
	{"treeUnfoldOrDown", "app.tree.unfoldOrDown"}, {"treeEditLabel", "app.tree.editLabel"},
	{"treeToggleLabelTimestamp", "app.tree.toggleLabelTimestamp"},
	{"toggleSessionPath", "app.session.togglePath"}, {"toggleSessionSort", "app.session.toggleSort"},
	{"renameSession", "app.session.rename"}, {"deleteSession", "app.session.delete"},
	{"deleteSessionNoninvasive", "app.session.deleteNoninvasive"},
}

// legacyName returns the id an older name stands for.
func legacyName(k string) (Action, bool) {
	for _, l := range legacyNames {
		if l.old == k {
			return l.id, true
		}
	}
	return "", false
}

// Map is the keys of every action: the defaults with the person's bindings over them.
type Map struct {
	keys map[Action][]string
	// shown keeps each action's keys as written (for /hotkeys).
	shown map[Action][]string
}

// Default is pi's default key map.
func Default() *Map {
	m := &Map{keys: map[Action][]string{}, shown: map[Action][]string{}}
	for _, d := range Defs {
		m.set(d.Action, d.Keys)
	}
	return m
}

func (m *Map) set(a Action, keys []string) {
	var norm, shown []string
	for _, k := range keys {
		n, ok := Name(k)
		if !ok || slices.Contains(norm, n) {
			continue
		}
		norm = append(norm, n)
		shown = append(shown, k)
	}
	m.keys[a], m.shown[a] = norm, shown
}

// Is reports whether key (a normalized name) is bound to the action.
func (m *Map) Is(key string, a Action) bool {
	return key != "" && slices.Contains(m.keys[a], key)
}

// Keys are the action's keys as the person wrote them (the defaults when not rebound).
func (m *Map) Keys(a Action) []string { return slices.Clone(m.shown[a]) }

// Text is the action's keys for hints ("ctrl+c", "shift+enter/ctrl+j"); "" when unbound.
func (m *Map) Text(a Action) string { return strings.Join(m.shown[a], "/") }

// Description is the action's description from the table ("" for an unknown action).
func Description(a Action) string {
	for _, d := range Defs {
		if d.Action == a {
			return d.Description
		}
	}
	return ""
}

func known(a Action) bool {
	for _, d := range Defs {
		if d.Action == a {
			return true
		}
	}
	return false
}

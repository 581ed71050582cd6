package keymap

import "testing"

// oldLegacyNames is the map legacyName replaced.
var oldLegacyNames = map[string]Action{
	"cursorUp": CursorUp, "cursorDown": CursorDown, "cursorLeft": CursorLeft, "cursorRight": CursorRight,
	"cursorWordLeft": CursorWordLeft, "cursorWordRight": CursorWordRight, "cursorLineStart": CursorLineStart,
	"cursorLineEnd": CursorLineEnd, "jumpForward": JumpForward, "jumpBackward": JumpBackward,
	"pageUp": EditorPageUp, "pageDown": EditorPageDown, "deleteCharBackward": DeleteCharBack,
	"deleteCharForward": DeleteCharForward, "deleteWordBackward": DeleteWordBack,
	"deleteWordForward": DeleteWordForward, "deleteToLineStart": DeleteToLineStart,
	"deleteToLineEnd": DeleteToLineEnd, "yank": Yank, "yankPop": YankPop, "undo": Undo,
	"newLine": NewLine, "submit": Submit, "tab": Tab, "copy": Copy, "selectUp": SelectUp,
	"selectDown": SelectDown, "selectPageUp": SelectPageUp, "selectPageDown": SelectPageDown,
	"selectConfirm": SelectConfirm, "selectCancel": SelectCancel, "interrupt": Interrupt,
	"clear": Clear, "exit": Exit, "suspend": Suspend, "cycleThinkingLevel": ThinkingCycle,
	"cycleModelForward": ModelForward, "cycleModelBackward": ModelBackward, "selectModel": ModelSelect,
	"expandTools": ToolsExpand, "toggleThinking": ThinkingToggle,
	"toggleSessionNamedFilter": "app.session.toggleNamedFilter", "externalEditor": External,
	"followUp": FollowUp, "dequeue": Dequeue, "pasteImage": PasteImage, "newSession": SessionNew,
	"tree": SessionTree, "fork": SessionFork, "resume": SessionResume,
	"treeFoldOrUp": "app.tree.foldOrUp", "treeUnfoldOrDown": "app.tree.unfoldOrDown",
	"treeEditLabel": "app.tree.editLabel", "treeToggleLabelTimestamp": "app.tree.toggleLabelTimestamp",
	"toggleSessionPath": "app.session.togglePath", "toggleSessionSort": "app.session.toggleSort",
	"renameSession": "app.session.rename", "deleteSession": "app.session.delete",
	"deleteSessionNoninvasive": "app.session.deleteNoninvasive",
}

// oldKeyAliases and oldNamedKeys are the maps keyAlias and namedKey replaced.
var oldKeyAliases = map[string]string{
	"esc": "escape", "return": "enter", "pgup": "pageup", "pgdown": "pagedown",
	"pagedn": "pagedown", "del": "delete", "ins": "insert", " ": "space",
}

var oldNamedKeys = map[string]bool{
	"escape": true, "enter": true, "tab": true, "space": true, "backspace": true, "delete": true,
	"insert": true, "clear": true, "home": true, "end": true, "pageup": true, "pagedown": true,
	"up": true, "down": true, "left": true, "right": true,
}

// The switches answer exactly what the maps did, for their keys and for others (D25.44).
func TestSwitchesMatchTheMaps(t *testing.T) {
	others := []string{"", "x", "Esc", "ESC", "cursorup", "f1", "ctrl+a", "pageUp", "escape ", "app.tree.foldOrUp"}
	var words []string
	for k := range oldLegacyNames {
		words = append(words, k)
	}
	for k := range oldKeyAliases {
		words = append(words, k)
	}
	for k := range oldNamedKeys {
		words = append(words, k)
	}
	for _, k := range append(words, others...) {
		a, ok := legacyName(k)
		if wa, wok := oldLegacyNames[k]; a != wa || ok != wok {
			t.Errorf("legacyName(%q) = %q, %v; the map gave %q, %v", k, a, ok, wa, wok)
		}
		s, ok := keyAlias(k)
		if ws, wok := oldKeyAliases[k]; s != ws || ok != wok {
			t.Errorf("keyAlias(%q) = %q, %v; the map gave %q, %v", k, s, ok, ws, wok)
		}
		if got, want := namedKey(k), oldNamedKeys[k]; got != want {
			t.Errorf("namedKey(%q) = %v, the map gave %v", k, got, want)
		}
	}
}

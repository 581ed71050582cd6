package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// binding is one entry of the key map: the keys (as tea.KeyMsg.String spells them) and the
// help text.
type binding struct {
	keys []string
	help string
}

func (b binding) is(k tea.KeyMsg) bool {
	s := k.String()
	for _, x := range b.keys {
		if x == s {
			return true
		}
	}
	return false
}

// label is the help-line form: "d disable".
func (b binding) label() string { return strings.Join(b.keys[:1], "/") + " " + b.help }

// keyMap is the one key map of the program.
type keyMap struct {
	Quit, ForceQuit, NextTab, PrevTab           binding
	Up, Down, PageUp, PageDown, Home, End       binding
	Reload, Undo, Find, Cancel, Accept          binding
	Model, DisableAll, DisableModel             binding
	EnableAll, EnableModel, Scope               binding
	Severity, File, Edit                        binding
	Registry, Diagnostics, Commands, SandboxTab binding
	Help                                        binding
}

func defaultKeys() keyMap {
	return keyMap{
		Quit:         binding{[]string{"q"}, "quit"},
		ForceQuit:    binding{[]string{"ctrl+c"}, "quit"},
		NextTab:      binding{[]string{"tab"}, "next tab"},
		PrevTab:      binding{[]string{"shift+tab"}, "previous tab"},
		Up:           binding{[]string{"up", "k"}, "up"},
		Down:         binding{[]string{"down", "j"}, "down"},
		PageUp:       binding{[]string{"pgup", "ctrl+b"}, "page up"},
		PageDown:     binding{[]string{"pgdown", "ctrl+f"}, "page down"},
		Home:         binding{[]string{"home", "g"}, "first"},
		End:          binding{[]string{"end", "G"}, "last"},
		Reload:       binding{[]string{"r"}, "re-check"},
		Undo:         binding{[]string{"u"}, "undo"},
		Find:         binding{[]string{"/"}, "find"},
		Cancel:       binding{[]string{"esc"}, "clear"},
		Accept:       binding{[]string{"enter"}, "pick"},
		Model:        binding{[]string{"m"}, "model"},
		DisableAll:   binding{[]string{"d"}, "disable"},
		DisableModel: binding{[]string{"D"}, "disable for model"},
		EnableAll:    binding{[]string{"e"}, "enable"},
		EnableModel:  binding{[]string{"E"}, "enable for model"},
		Scope:        binding{[]string{"s"}, "scope"},
		Severity:     binding{[]string{"v"}, "severity"},
		File:         binding{[]string{"f"}, "file"},
		Edit:         binding{[]string{"i", "/"}, "type"},
		Registry:     binding{[]string{"1"}, "registry"},
		Diagnostics:  binding{[]string{"2"}, "diagnostics"},
		Commands:     binding{[]string{"3"}, "commands"},
		SandboxTab:   binding{[]string{"4"}, "sandbox"},
		Help:         binding{[]string{"?"}, "keys"},
	}
}

// input is a one-line text field (the cursor stays at the end).
type input struct{ text []rune }

func (in *input) String() string { return string(in.text) }
func (in *input) set(s string)   { in.text = []rune(s) }

// handle applies an editing key; it reports whether the key was an editing key.
func (in *input) handle(k tea.KeyMsg) bool {
	switch k.Type {
	case tea.KeyRunes:
		if k.Alt {
			return false // an escape that arrived glued to the next key
		}
		in.text = append(in.text, k.Runes...)
	case tea.KeySpace:
		in.text = append(in.text, ' ')
	case tea.KeyBackspace:
		if len(in.text) > 0 {
			in.text = in.text[:len(in.text)-1]
		}
	case tea.KeyCtrlU:
		in.text = nil
	case tea.KeyCtrlW:
		s := strings.TrimRight(string(in.text), " ")
		if i := strings.LastIndexAny(s, " /"); i >= 0 {
			in.text = []rune(s[:i+1])
		} else {
			in.text = nil
		}
	default:
		return false
	}
	return true
}

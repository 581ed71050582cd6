package keymap

import (
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
)

// Key is one key press, or one bracketed paste, as the chat sees it.
type Key struct {
	// Name is the normalized key name ("ctrl+a", "shift+enter", "a", "shift+a"); "" for a
	// paste or for text of several characters.
	Name string
	// Text is what the key types (a printable key without ctrl or alt, or several characters
	// the terminal delivered at once); "" for a key that types nothing.
	Text string
	// Paste marks Text as the content of one bracketed paste, byte for byte.
	Paste bool
}

var modNames = []string{"shift", "ctrl", "alt", "super"}

// keyAlias returns the key name an other spelling pi accepts stands for. A switch, not a map:
// a package-level map is built by every pigo process at start-up (D25.44).
func keyAlias(k string) (string, bool) {
	switch k {
	case "esc":
		return "escape", true
	case "return":
		return "enter", true
	case "pgup":
		return "pageup", true
	case "pgdown", "pagedn":
		return "pagedown", true
	case "del":
		return "delete", true
	case "ins":
		return "insert", true
	case " ":
		return "space", true
	}
	return "", false
}

// namedKey reports whether k is one of the named keys (not a character or a function key).
func namedKey(k string) bool {
	switch k {
	case "escape", "enter", "tab", "space", "backspace", "delete", "insert", "clear", "home", "end",
		"pageup", "pagedown", "up", "down", "left", "right":
		return true
	}
	return false
}

// Name normalizes a key name written in pi's syntax; ok is false for one pi would refuse (an
// unknown key, a repeated modifier).
func Name(s string) (string, bool) {
	key := s
	var mods [4]bool
	for {
		found := false
		low := strings.ToLower(key)
		for i, m := range modNames {
			if strings.HasPrefix(low, m+"+") && len(key) > len(m)+1 {
				if mods[i] {
					return "", false
				}
				mods[i], key, found = true, key[len(m)+1:], true
				break
			}
		}
		if !found {
			break
		}
	}
	if key == "" || (strings.Contains(key, "+") && key != "+") {
		return "", false
	}
	if utf8.RuneCountInString(key) == 1 {
		r, _ := utf8.DecodeRuneInString(key)
		if unicode.IsUpper(r) && unicode.IsLetter(r) {
			mods[0], key = true, string(unicode.ToLower(r))
		}
		if key == "_" && mods[1] {
			key = "-" // the same physical key, and the same byte (0x1f) in legacy terminals
		}
		if key == " " {
			key = "space"
		}
	} else {
		key = strings.ToLower(key)
		if a, ok := keyAlias(key); ok {
			key = a
		}
		if !namedKey(key) && !isFunctionKey(key) {
			return "", false
		}
	}
	return join(mods, key), true
}

func isFunctionKey(k string) bool {
	if len(k) < 2 || k[0] != 'f' {
		return false
	}
	n, err := strconv.Atoi(k[1:])
	return err == nil && n >= 1 && n <= 20
}

func join(mods [4]bool, key string) string {
	var b strings.Builder
	for i, m := range modNames {
		if mods[i] {
			b.WriteString(m)
			b.WriteByte('+')
		}
	}
	b.WriteString(key)
	return b.String()
}

// FromTea turns Bubble Tea's key message into a Key.
func FromTea(k tea.KeyMsg) Key {
	if k.Paste {
		return Key{Text: string(k.Runes), Paste: true}
	}
	switch k.Type {
	case tea.KeyRunes:
		if len(k.Runes) == 0 {
			return Key{}
		}
		if k.Alt {
			if len(k.Runes) != 1 {
				return Key{}
			}
			n, _ := Name("alt+" + string(k.Runes))
			return Key{Name: n}
		}
		if len(k.Runes) > 1 {
			return Key{Text: string(k.Runes)}
		}
		n, _ := Name(string(k.Runes))
		return Key{Name: n, Text: string(k.Runes)}
	case tea.KeySpace:
		if k.Alt {
			return Key{Name: "alt+space"}
		}
		return Key{Name: "space", Text: " "}
	case tea.KeyCtrlH:
		// A raw 0x08 is Backspace outside Windows Terminal (as pi reads it).
		return Key{Name: alt(k.Alt, "backspace")}
	case tea.KeyCtrlAt:
		return Key{Name: alt(k.Alt, "ctrl+space")}
	case tea.KeyCtrlUnderscore:
		return Key{Name: alt(k.Alt, "ctrl+-")}
	}
	s := k.String()
	if k.Alt {
		s = strings.TrimPrefix(s, "alt+")
	}
	if s == "ctrl+^" {
		s = "ctrl+6"
	}
	n, ok := Name(s)
	if !ok {
		return Key{}
	}
	if k.Alt {
		n, _ = Name("alt+" + n)
	}
	return Key{Name: n}
}

func alt(on bool, name string) string {
	if on {
		n, _ := Name("alt+" + name)
		return n
	}
	return name
}

// FromMsg reads a key from any message the program received: a tea.KeyMsg, or the raw
// sequence Bubble Tea v1 passes on unparsed (a CSI-u or modifyOtherKeys report such as
// "\x1b[13;2u" for shift+enter). ok is false for other messages.
func FromMsg(msg tea.Msg) (Key, bool) {
	if k, ok := msg.(tea.KeyMsg); ok {
		return FromTea(k), true
	}
	// Bubble Tea v1 delivers sequences it does not know as an unexported []byte type.
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 && v.Type().PkgPath() == "github.com/charmbracelet/bubbletea" {
		return ParseCSI(v.Bytes())
	}
	return Key{}, false
}

// ParseCSI decodes a keyboard report of the extended protocols: CSI code;mod u (Kitty, and
// tmux's extended keys) and CSI 27;mod;code ~ (xterm's modifyOtherKeys).
func ParseCSI(seq []byte) (Key, bool) {
	s := string(seq)
	if !strings.HasPrefix(s, "\x1b[") || len(s) < 4 {
		return Key{}, false
	}
	body, final := s[2:len(s)-1], s[len(s)-1]
	var code, mod int
	switch final {
	case 'u':
		parts := strings.Split(body, ";")
		code = leadingInt(parts[0])
		mod = 1
		if len(parts) > 1 {
			mod = leadingInt(parts[1])
		}
	case '~':
		parts := strings.Split(body, ";")
		if len(parts) != 3 || parts[0] != "27" {
			return Key{}, false
		}
		mod, code = leadingInt(parts[1]), leadingInt(parts[2])
	default:
		return Key{}, false
	}
	if code <= 0 || mod <= 0 {
		return Key{}, false
	}
	bits := mod - 1
	mods := [4]bool{bits&1 != 0, bits&4 != 0, bits&2 != 0, bits&8 != 0}
	var key, text string
	switch code {
	case 13:
		key = "enter"
	case 9:
		key = "tab"
	case 27:
		key = "escape"
	case 127, 8:
		key = "backspace"
	case 32:
		key, text = "space", " "
	default:
		if code < 32 || code > unicode.MaxRune || !unicode.IsPrint(rune(code)) {
			return Key{}, false
		}
		r := rune(code)
		text = string(r)
		if unicode.IsUpper(r) {
			mods[0], r = true, unicode.ToLower(r)
		} else if mods[0] && unicode.IsLower(r) {
			text = string(unicode.ToUpper(r))
		}
		key = string(r)
		if key == "_" && mods[1] {
			key = "-"
		}
	}
	if mods[1] || mods[2] || mods[3] {
		text = ""
	}
	return Key{Name: join(mods, key), Text: text}, true
}

func leadingInt(s string) int {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

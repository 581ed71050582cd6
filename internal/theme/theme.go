// Package theme reads pi's theme files (<agent-dir>/themes/*.json, a trusted project's
// .pi/themes/, the settings' themes paths and packages' themes) and resolves every colour
// role pi defines — accent, borders, message panels, tool cards, Markdown, diffs, syntax,
// thinking levels — to a colour the chat can draw: "#rrggbb" from hex, OKLCH or OKHSL, a
// 256-colour index, or the terminal's default. Variables resolve through vars, cycles and
// missing names are reported with their position, and a key pi does not know is an info
// (pi refuses such a theme; pigo ignores the key and says so).
//
// The built-in "system" theme is pi's theme for a terminal whose palette is unknown: ANSI
// indices the terminal renders with its own theme, secondary text faint, panels without a
// background. pigo does not query the terminal's colours (pi does, to derive a palette).
package theme

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pigo-agent/pigo/internal/diag"
	"github.com/pigo-agent/pigo/internal/jsonc"
	"github.com/pigo-agent/pigo/internal/lazy"
)

// Theme is a resolved theme.
type Theme struct {
	Name       string
	Appearance string // "dark", "light" or ""
	// Source is the file it came from ("" for a built-in).
	Source string
	colors map[string]Color
}

// Get is a role's colour (the system theme's when the theme does not set it).
func (t *Theme) Get(role string) Color {
	if c, ok := t.colors[role]; ok {
		return c
	}
	if c, ok := system.Get().colors[role]; ok {
		return c
	}
	return Default
}

// Roles are pi's colour roles; Required marks those a theme must set.
var Roles = []struct {
	Name     string
	Required bool
}{
	{"accent", true}, {"border", true}, {"borderAccent", true}, {"borderMuted", true}, {"success", true},
	{"error", true}, {"warning", true}, {"muted", true}, {"dim", true}, {"text", true}, {"thinkingText", true},
	{"selectedBg", true}, {"scrollbarTrack", false}, {"scrollbarThumb", false}, {"searchMatchBg", false},
	{"searchMatchText", false}, {"userMessageBg", true}, {"userMessageText", true}, {"customMessageBg", true},
	{"customMessageText", true}, {"customMessageLabel", true}, {"toolPendingBg", true}, {"toolSuccessBg", true},
	{"toolErrorBg", true}, {"toolTitle", true}, {"toolOutput", true}, {"mdHeading", true}, {"mdLink", true},
	{"mdLinkUrl", true}, {"mdCode", true}, {"mdCodeBlock", true}, {"mdCodeBlockBorder", true}, {"mdQuote", true},
	{"mdQuoteBorder", true}, {"mdHr", true}, {"mdListBullet", true}, {"toolDiffAdded", true},
	{"toolDiffRemoved", true}, {"toolDiffContext", true}, {"syntaxComment", true}, {"syntaxKeyword", true},
	{"syntaxFunction", true}, {"syntaxVariable", true}, {"syntaxString", true}, {"syntaxNumber", true},
	{"syntaxType", true}, {"syntaxOperator", true}, {"syntaxPunctuation", true}, {"thinkingOff", true},
	{"thinkingMinimal", true}, {"thinkingLow", true}, {"thinkingMedium", true}, {"thinkingHigh", true},
	{"thinkingXhigh", true}, {"thinkingMax", false}, {"bashMode", true},
}

func knownRole(name string) bool {
	for _, r := range Roles {
		if r.Name == name {
			return true
		}
	}
	return false
}

// system is pi's "system" theme for a terminal that reports no colours: each role's ANSI
// palette slot (a role of the neutral family is the default colour, faint below body text;
// panels have no background).
var system = lazy.Value[*Theme]{New: func() *Theme {
	slot := map[string]int{
		"accent": 5, "borderAccent": 5, "customMessageLabel": 5, "mdCode": 5, "mdListBullet": 5, "syntaxType": 5,
		"border": 4, "mdLink": 4, "syntaxKeyword": 4, "syntaxVariable": 6, "success": 2, "mdCodeBlock": 2,
		"toolDiffAdded": 2, "bashMode": 2, "syntaxNumber": 5, "error": 1, "toolDiffRemoved": 1, "warning": 3,
		"mdHeading": 3, "syntaxFunction": 3, "syntaxString": 2, "thinkingMinimal": 4, "thinkingLow": 4,
		"thinkingMedium": 6, "thinkingHigh": 5, "thinkingXhigh": 13, "thinkingMax": 1,
	}
	foreground := map[string]bool{"text": true, "userMessageText": true, "toolTitle": true}
	panels := map[string]bool{"userMessageBg": true, "toolPendingBg": true, "toolSuccessBg": true,
		"toolErrorBg": true, "selectedBg": true, "searchMatchBg": true, "customMessageBg": true}
	t := &Theme{Name: "system", colors: map[string]Color{}}
	for _, r := range Roles {
		switch s, ok := slot[r.Name]; {
		case panels[r.Name]:
			t.colors[r.Name] = Default
		case ok:
			t.colors[r.Name] = Color{Index: s}
		case foreground[r.Name]:
			t.colors[r.Name] = Default
		default:
			t.colors[r.Name] = Color{Index: -1, Faint: true}
		}
	}
	return t
}}

// System is the built-in "system" theme.
func System() *Theme { return system.Get() }

// Load reads one theme file. A file that cannot be used at all (not JSON, no name, no
// colors object) is an error diagnostic and nil; otherwise every problem is reported and the
// theme returned with the usable colours (an unset required role falls back to the system
// theme's colour).
func Load(path string) (*Theme, diag.List) {
	var ds diag.List
	src, err := os.ReadFile(path)
	s := diag.NewSource(path, src)
	if err != nil {
		ds.Add(diag.FileSpan(s), diag.Error, "io", "", err.Error())
		return nil, ds
	}
	root, pd := jsonc.ParseObject(s, "a theme", " (theme ignored)")
	if root == nil {
		return nil, append(ds, pd...)
	}
	t := &Theme{Source: path, colors: map[string]Color{}}
	for _, m := range root.Members {
		switch m.Key {
		case "$schema", "vars", "colors", "export":
		case "name":
			if m.Value.Kind != jsonc.String || m.Value.Str == "" || strings.Contains(m.Value.Str, "/") || m.Value.Str == "system" {
				ds.Add(diag.At(s, m.Value.Start, m.Value.End), diag.Error, "schema", "name",
					"a theme name is a non-empty string without \"/\" and not \"system\" (theme ignored)")
				return nil, ds
			}
			t.Name = m.Value.Str
		case "appearance":
			if m.Value.Kind != jsonc.String || (m.Value.Str != "dark" && m.Value.Str != "light") {
				ds.Add(diag.At(s, m.Value.Start, m.Value.End), diag.Warning, "schema", "appearance", `appearance is "dark" or "light" (ignored)`)
				continue
			}
			t.Appearance = m.Value.Str
		default:
			ds.Add(diag.At(s, m.KeyStart, m.KeyEnd), diag.Info, "unknown-field", m.Key,
				fmt.Sprintf("unknown theme key %q (pi rejects the theme; pigo ignores the key)", m.Key))
		}
	}
	if t.Name == "" {
		ds.Add(diag.FileSpan(s), diag.Error, "schema", "name", "a theme needs a \"name\" (theme ignored)")
		return nil, ds
	}
	colors := root.Get("colors")
	if colors == nil || colors.Kind != jsonc.Object {
		ds.Add(diag.FileSpan(s), diag.Error, "schema", "colors", "a theme needs a \"colors\" object (theme ignored)")
		return nil, ds
	}
	vars := map[string]*jsonc.Node{}
	if v := root.Get("vars"); v != nil && v.Kind == jsonc.Object {
		for _, m := range v.Members {
			vars[m.Key] = m.Value
		}
	}
	for _, m := range colors.Members {
		if !knownRole(m.Key) {
			ds.Add(diag.At(s, m.KeyStart, m.KeyEnd), diag.Info, "unknown-field", "colors."+m.Key,
				fmt.Sprintf("unknown colour role %q (pi rejects the theme; pigo ignores the role)", m.Key))
			continue
		}
		c, err := resolve(m.Value, vars, nil)
		if err != nil {
			ds.Add(diag.At(s, m.Value.Start, m.Value.End), diag.Warning, "bad-color", "colors."+m.Key,
				fmt.Sprintf("colors.%s: %v (the system theme's colour is used)", m.Key, err))
			continue
		}
		t.colors[m.Key] = c
	}
	var missing []string
	for _, r := range Roles {
		if _, ok := t.colors[r.Name]; r.Required && !ok {
			missing = append(missing, r.Name)
		}
	}
	if len(missing) > 0 {
		list := strings.Join(missing, ", ")
		if len(missing) > 4 {
			list = strings.Join(missing[:4], ", ") + fmt.Sprintf(", … (%d roles)", len(missing))
		}
		ds.Add(diag.At(s, colors.Start, colors.Start+1), diag.Warning, "missing-color", "colors",
			fmt.Sprintf("colors lacks %s: the system theme's colours are used for them", list))
	}
	return t, ds
}

// resolve reads a colour value, following variable names through vars.
func resolve(n *jsonc.Node, vars map[string]*jsonc.Node, seen []string) (Color, error) {
	switch n.Kind {
	case jsonc.Number:
		var i int
		if _, err := fmt.Sscanf(n.Num, "%d", &i); err != nil || fmt.Sprint(i) != n.Num || i < 0 || i > 255 {
			return Color{}, fmt.Errorf("%s is not a palette index 0-255", n.Num)
		}
		return Color{Index: i}, nil
	case jsonc.String:
		s := strings.TrimSpace(n.Str)
		if v, ok := vars[s]; ok && s != "" {
			for _, x := range seen {
				if x == s {
					return Color{}, fmt.Errorf("variable %q refers to itself (%s)", s, strings.Join(append(seen, s), " → "))
				}
			}
			return resolve(v, vars, append(seen, s))
		}
		c, err := parseColor(s)
		if err != nil && s != "" && !strings.ContainsAny(s, "#(") {
			return Color{}, fmt.Errorf("no variable named %q", s)
		}
		return c, err
	}
	return Color{}, fmt.Errorf("a colour is a string or a palette index, not %s", n.Kind)
}

// Find looks a theme up by name among files (theme files or folders of them, searched in
// order: the first file whose theme has the name wins). "system" and "" are the built-in.
// A file that fails to load is reported once; a name found nowhere is an error naming the
// themes that exist.
func Find(name string, places []string) (*Theme, diag.List) {
	if name == "" || name == "system" {
		return system.Get(), nil
	}
	var ds diag.List
	var names []string
	for _, f := range files(places) {
		t, d := Load(f)
		if t != nil && t.Name == name {
			return t, append(ds, d...)
		}
		if t == nil {
			ds = append(ds, d...)
			continue
		}
		names = append(names, t.Name)
	}
	sort.Strings(names)
	msg := fmt.Sprintf("theme %q not found; the system theme is used", name)
	if len(names) > 0 {
		msg += " (themes: system, " + strings.Join(names, ", ") + ")"
	}
	ds.Add(diag.Span{Start: -1, End: -1}, diag.Warning, "unknown-theme", "theme", msg)
	return system.Get(), ds
}

// files expands places into theme files: a folder's *.json (sorted), a file as is.
func files(places []string) []string {
	var out []string
	for _, p := range places {
		st, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err == nil && st.IsDir():
			m, _ := filepath.Glob(filepath.Join(p, "*.json"))
			sort.Strings(m)
			out = append(out, m...)
		case err == nil:
			out = append(out, p)
		}
	}
	return out
}

// Pick chooses the theme name from pi's theme setting: a name, or "light/dark" (the dark one
// unless COLORFGBG says the background is light; pigo does not query the terminal).
func Pick(setting, colorfgbg string) string {
	light, dark, ok := strings.Cut(setting, "/")
	if !ok {
		return setting
	}
	if i := strings.LastIndexByte(colorfgbg, ';'); i >= 0 {
		switch colorfgbg[i+1:] {
		case "7", "15":
			return light
		}
	}
	return dark
}

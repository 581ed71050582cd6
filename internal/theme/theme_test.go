package theme

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/pitest"
)

func TestLoad(t *testing.T) {
	th, ds := Load("testdata/mine.json")
	if th == nil {
		t.Fatalf("not loaded: %v", ds)
	}
	if th.Name != "mine" || th.Appearance != "dark" {
		t.Errorf("name %q appearance %q", th.Name, th.Appearance)
	}
	for role, want := range map[string]string{
		"border": "#00aaff", "borderAccent": "#00aaff", "borderMuted": "244", "error": "",
		"accent": okhsl(250, 0.6, 0.55), "success": oklchHex(0.62, 0.1, 200),
		// unusable values fall back to the system theme
		"warning": "3", "dim": "", "muted": "",
	} {
		if got := th.Get(role).String(); got != want {
			t.Errorf("%s = %q, want %q", role, got, want)
		}
	}
	var got []string
	for _, d := range ds {
		l, c := d.Pos()
		got = append(got, fmt.Sprintf("%d:%d %s %s", l, c, d.Severity, d.Message))
	}
	all := strings.Join(got, "\n")
	for _, w := range []string{
		`6:3 info unknown theme key "author"`,
		`15:16 warning colors.warning: variable "loop1" refers to itself (loop1 → loop2 → loop1)`,
		`16:14 warning colors.muted: no variable named "nope"`,
		`17:5 info unknown colour role "glow"`,
		`18:12 warning colors.dim: 300 is not a palette index 0-255`,
		`colors lacks warning, muted, dim, text, … (45 roles): the system theme's colours are used for them`,
	} {
		if !strings.Contains(all, w) {
			t.Errorf("missing %q in\n%s", w, all)
		}
	}
}

func okhsl(h, s, l float64) string {
	r, g, b := okhslToSRGB(h, s, l)
	return rgbColor(r, g, b).Hex
}

func oklchHex(l, c, h float64) string {
	col, _ := parseColor(fmt.Sprintf("oklch(%g %g %g)", l, c, h))
	return col.Hex
}

func TestFindAndPick(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"name":"alpha","colors":{"accent":"#123456"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{`), 0o644)
	th, ds := Find("alpha", []string{filepath.Join(dir, "missing"), dir})
	if th.Name != "alpha" || th.Get("accent").Hex != "#123456" {
		t.Fatalf("found %+v %v", th, ds)
	}
	th, ds = Find("zeta", []string{dir})
	if th != System() || !strings.Contains(fmt.Sprint(ds), `theme "zeta" not found; the system theme is used (themes: system, alpha)`) {
		t.Fatalf("unknown theme: %v", ds)
	}
	if Pick("light/dark", "15;0") != "dark" || Pick("light/dark", "0;15") != "light" || Pick("mine", "") != "mine" {
		t.Error("Pick")
	}
}

// TestOKHSLDifferential compares the OKHSL and OKLCH conversions with pi's (pi-tui, run by
// node) on a grid of colours, within one step of rounding.
func TestOKHSLDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node")
	}
	pi := pitest.FindVersion(t, pitest.Version16)
	js := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(pi.CLI))), "pi-tui", "dist", "oklab.js")
	var cases [][3]float64
	for h := 0.0; h < 360; h += 37 {
		for _, s := range []float64{0, 0.2, 0.6, 0.85, 1} {
			for _, l := range []float64{0.1, 0.35, 0.55, 0.67, 0.9} {
				cases = append(cases, [3]float64{h, s, l})
			}
		}
	}
	in, _ := json.Marshal(cases)
	script := `import { okhslToRgb } from ` + quote(js) + `;
const cases = ` + string(in) + `;
console.log(JSON.stringify(cases.map(([h, s, l]) => okhslToRgb(h, s, l))));`
	f := filepath.Join(t.TempDir(), "x.mjs")
	os.WriteFile(f, []byte(script), 0o644)
	out, err := exec.Command(pi.Node, f).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []struct{ R, G, B int }
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		var r, g, b int
		fmt.Sscanf(okhsl(c[0], c[1], c[2]), "#%02x%02x%02x", &r, &g, &b)
		w := want[i]
		if abs(r-w.R) > 1 || abs(g-w.G) > 1 || abs(b-w.B) > 1 {
			t.Errorf("okhsl(%v) = %d,%d,%d; pi %d,%d,%d", c, r, g, b, w.R, w.G, w.B)
		}
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

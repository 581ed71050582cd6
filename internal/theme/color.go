package theme

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Color is one resolved theme colour.
type Color struct {
	// Hex is "#rrggbb" for an RGB, OKLCH or OKHSL colour.
	Hex string
	// Index is a 256-colour palette index (-1: none).
	Index int
	// Faint draws the colour as the terminal's default in faint (SGR 2): the "system" theme's
	// secondary text when the terminal's palette is unknown.
	Faint bool
}

// Default is the terminal's own default colour.
var Default = Color{Index: -1}

// IsDefault reports the terminal's default colour.
func (c Color) IsDefault() bool { return c.Hex == "" && c.Index < 0 }

// String is the colour as lipgloss spells it ("" for the default).
func (c Color) String() string {
	switch {
	case c.Hex != "":
		return c.Hex
	case c.Index >= 0:
		return strconv.Itoa(c.Index)
	}
	return ""
}

// parseColor reads one colour value: "#rgb", "#rrggbb", "oklch(L C H)", "okhsl(H S L)" (with
// optional % and deg units) or "" (the terminal default). A variable name is resolved by the
// caller.
func parseColor(s string) (Color, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return Default, nil
	case strings.HasPrefix(s, "#"):
		h := s[1:]
		if len(h) == 3 {
			h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
		}
		if len(h) != 6 {
			return Color{}, fmt.Errorf("%q is not #RGB or #RRGGBB", s)
		}
		if _, err := strconv.ParseUint(h, 16, 32); err != nil {
			return Color{}, fmt.Errorf("%q is not a hexadecimal colour", s)
		}
		return Color{Hex: "#" + strings.ToLower(h), Index: -1}, nil
	case strings.HasPrefix(strings.ToLower(s), "oklch(") && strings.HasSuffix(s, ")"):
		v, err := args(s[6:len(s)-1], []float64{1, 1, 1})
		if err != nil {
			return Color{}, fmt.Errorf("%q: %v", s, err)
		}
		l, c, h := v[0], v[1], v[2]*math.Pi/180
		r, g, b := oklabToSRGB(l, c*math.Cos(h), c*math.Sin(h))
		return rgbColor(r, g, b), nil
	case strings.HasPrefix(strings.ToLower(s), "okhsl(") && strings.HasSuffix(s, ")"):
		v, err := args(s[6:len(s)-1], []float64{1, 1, 1})
		if err != nil {
			return Color{}, fmt.Errorf("%q: %v", s, err)
		}
		r, g, b := okhslToSRGB(v[0], v[1], v[2])
		return rgbColor(r, g, b), nil
	}
	return Color{}, fmt.Errorf("%q is not a colour (#RGB, #RRGGBB, oklch(…), okhsl(…), 0-255 or \"\")", s)
}

// args reads three space- or comma-separated numbers; "50%" is 0.5, "120deg" is 120.
func args(s string, _ []float64) ([]float64, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '/' })
	if len(f) != 3 {
		return nil, fmt.Errorf("want three numbers, got %d", len(f))
	}
	out := make([]float64, 3)
	for i, x := range f {
		scale := 1.0
		switch {
		case strings.HasSuffix(x, "%"):
			x, scale = strings.TrimSuffix(x, "%"), 0.01
		case strings.HasSuffix(x, "deg"):
			x = strings.TrimSuffix(x, "deg")
		}
		v, err := strconv.ParseFloat(x, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%q is not a number", x)
		}
		out[i] = v * scale
	}
	return out, nil
}

func rgbColor(r, g, b float64) Color {
	c := func(x float64) int { return int(math.Round(math.Min(1, math.Max(0, x)) * 255)) }
	return Color{Hex: fmt.Sprintf("#%02x%02x%02x", c(r), c(g), c(b)), Index: -1}
}

// Oklab and OKHSL are Björn Ottosson's colour spaces; the conversions below follow his
// published reference algorithm (https://bottosson.github.io/posts/colorpicker/, MIT),
// written out here in Go.

func gammaEncode(x float64) float64 {
	if x > 0.0031308 {
		return 1.055*math.Pow(x, 1/2.4) - 0.055
	}
	return 12.92 * x
}

func oklabToLinear(l, a, b float64) (float64, float64, float64) {
	l1 := l + 0.3963377774*a + 0.2158037573*b
	m1 := l - 0.1055613458*a - 0.0638541728*b
	s1 := l - 0.0894841775*a - 1.2914855480*b
	l3, m3, s3 := l1*l1*l1, m1*m1*m1, s1*s1*s1
	return 4.0767416621*l3 - 3.3077115913*m3 + 0.2309699292*s3,
		-1.2684380046*l3 + 2.6097574011*m3 - 0.3413193965*s3,
		-0.0041960863*l3 - 0.7034186147*m3 + 1.7076147010*s3
}

func oklabToSRGB(l, a, b float64) (float64, float64, float64) {
	r, g, bl := oklabToLinear(l, a, b)
	return gammaEncode(r), gammaEncode(g), gammaEncode(bl)
}

// maxSaturation is the largest C/L inside sRGB for the hue (a, b) (a and b normalised).
func maxSaturation(a, b float64) float64 {
	var k0, k1, k2, k3, k4, wl, wm, ws float64
	switch {
	case -1.88170328*a-0.80936493*b > 1: // red clips first
		k0, k1, k2, k3, k4 = 1.19086277, 1.76576728, 0.59662641, 0.75515197, 0.56771245
		wl, wm, ws = 4.0767416621, -3.3077115913, 0.2309699292
	case 1.81444104*a-1.19445276*b > 1: // green
		k0, k1, k2, k3, k4 = 0.73956515, -0.45954404, 0.08285427, 0.12541070, 0.14503204
		wl, wm, ws = -1.2684380046, 2.6097574011, -0.3413193965
	default: // blue
		k0, k1, k2, k3, k4 = 1.35733652, -0.00915799, -1.15130210, -0.50559606, 0.00692167
		wl, wm, ws = -0.0041960863, -0.7034186147, 1.7076147010
	}
	s := k0 + k1*a + k2*b + k3*a*a + k4*a*b
	kl := 0.3963377774*a + 0.2158037573*b
	km := -0.1055613458*a - 0.0638541728*b
	ks := -0.0894841775*a - 1.2914855480*b
	l1, m1, s1 := 1+s*kl, 1+s*km, 1+s*ks
	l3, m3, s3 := l1*l1*l1, m1*m1*m1, s1*s1*s1
	ldS, mdS, sdS := 3*kl*l1*l1, 3*km*m1*m1, 3*ks*s1*s1
	ldS2, mdS2, sdS2 := 6*kl*kl*l1, 6*km*km*m1, 6*ks*ks*s1
	f := wl*l3 + wm*m3 + ws*s3
	f1 := wl*ldS + wm*mdS + ws*sdS
	f2 := wl*ldS2 + wm*mdS2 + ws*sdS2
	return s - f*f1/(f1*f1-0.5*f*f2)
}

func findCusp(a, b float64) (float64, float64) {
	s := maxSaturation(a, b)
	r, g, bl := oklabToLinear(1, s*a, s*b)
	l := math.Cbrt(1 / math.Max(r, math.Max(g, bl)))
	return l, l * s
}

// gamutIntersection is t where the line from (L0, 0) to (L1, C1) leaves the gamut.
func gamutIntersection(a, b, l1, c1, l0 float64, cuspL, cuspC float64) float64 {
	if (l1-l0)*cuspC-(cuspL-l0)*c1 <= 0 {
		return cuspC * l0 / (c1*cuspL + cuspC*(l0-l1))
	}
	t := cuspC * (l0 - 1) / (c1*(cuspL-1) + cuspC*(l0-l1))
	dL, dC := l1-l0, c1
	kl := 0.3963377774*a + 0.2158037573*b
	km := -0.1055613458*a - 0.0638541728*b
	ks := -0.0894841775*a - 1.2914855480*b
	ldt, mdt, sdt := dL+dC*kl, dL+dC*km, dL+dC*ks
	L := l0*(1-t) + t*l1
	C := t * c1
	l, m, s := L+C*kl, L+C*km, L+C*ks
	l3, m3, s3 := l*l*l, m*m*m, s*s*s
	ldt1, mdt1, sdt1 := 3*ldt*l*l, 3*mdt*m*m, 3*sdt*s*s
	ldt2, mdt2, sdt2 := 6*ldt*ldt*l, 6*mdt*mdt*m, 6*sdt*sdt*s
	step := func(w0, w1, w2 float64) float64 {
		f := w0*l3 + w1*m3 + w2*s3 - 1
		f1 := w0*ldt1 + w1*mdt1 + w2*sdt1
		f2 := w0*ldt2 + w1*mdt2 + w2*sdt2
		u := f1 / (f1*f1 - 0.5*f*f2)
		if u >= 0 {
			return -f * u
		}
		return math.MaxFloat64
	}
	tr := step(4.0767416621, -3.3077115913, 0.2309699292)
	tg := step(-1.2684380046, 2.6097574011, -0.3413193965)
	tb := step(-0.0041960863, -0.7034186147, 1.7076147010)
	return t + math.Min(tr, math.Min(tg, tb))
}

func toe(x float64) float64 {
	const k1, k2 = 0.206, 0.03
	k3 := (1 + k1) / (1 + k2)
	return 0.5 * (k3*x - k1 + math.Sqrt((k3*x-k1)*(k3*x-k1)+4*k2*k3*x))
}

func toeInv(x float64) float64 {
	const k1, k2 = 0.206, 0.03
	k3 := (1 + k1) / (1 + k2)
	return (x*x + k1*x) / (k3 * (x + k2))
}

func stMid(a, b float64) (float64, float64) {
	s := 0.11516993 + 1/(7.44778970+4.15901240*b+a*(-2.19557347+1.75198401*b+a*(-2.13704948-10.02301043*b+a*(-4.24894561+5.38770819*b+4.69891013*a))))
	t := 0.11239642 + 1/(1.61320320-0.68124379*b+a*(0.40370612+0.90148123*b+a*(-0.27087943+0.61223990*b+a*(0.00299215-0.45399568*b-0.14661872*a))))
	return s, t
}

func okhslToSRGB(h, s, l float64) (float64, float64, float64) {
	if l >= 1 {
		return 1, 1, 1
	}
	if l <= 0 {
		return 0, 0, 0
	}
	h = math.Mod(math.Mod(h, 360)+360, 360) / 360
	a, b := math.Cos(2*math.Pi*h), math.Sin(2*math.Pi*h)
	L := toeInv(l)
	if s <= 0 {
		return oklabToSRGB(L, 0, 0)
	}
	cuspL, cuspC := findCusp(a, b)
	cMax := gamutIntersection(a, b, L, 1, L, cuspL, cuspC)
	sMax, tMax := cuspC/cuspL, cuspC/(1-cuspL)
	k := cMax / math.Min(L*sMax, (1-L)*tMax)
	sm, tm := stMid(a, b)
	ca := L * sm
	cb := (1 - L) * tm
	cMid := 0.9 * k * math.Sqrt(math.Sqrt(1/(1/(ca*ca*ca*ca)+1/(cb*cb*cb*cb))))
	ca, cb = L*0.4, (1-L)*0.8
	c0 := math.Sqrt(1 / (1/(ca*ca) + 1/(cb*cb)))
	var c float64
	if s < 0.8 {
		t := 1.25 * s
		k0, k1 := 0.0, 0.8*c0
		k2 := 1 - k1/cMid
		c = k0 + t*k1/(1-k2*t)
	} else {
		t := 5 * (s - 0.8)
		k0 := cMid
		k1 := 0.2 * cMid * cMid * 1.25 * 1.25 / c0
		k2 := 1 - k1/(cMax-cMid)
		c = k0 + t*k1/(1-k2*t)
	}
	return oklabToSRGB(L, c*a, c*b)
}

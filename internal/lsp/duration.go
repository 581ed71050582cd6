package lsp

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// durationPattern is the accepted string form: a non-negative decimal and an
// optional unit; no unit means milliseconds.
var durationPattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*(ms|s|m|h)?$`) }}

// ParseDuration converts a duration string of lsp.json ("300ms", "5s",
// "1m", "2h", "1.5s", "500") to a time.Duration. Surrounding whitespace is
// ignored. A string that does not parse, or that is not at least one
// millisecond, is an error.
func ParseDuration(s string) (time.Duration, error) {
	m := durationPattern.Get().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("invalid duration %q: expected a number of milliseconds or a number with a unit ms, s, m or h (e.g. \"300ms\", \"5s\")", s)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: %v", s, err)
	}
	scale := map[string]float64{"": 1, "ms": 1, "s": 1e3, "m": 60e3, "h": 3600e3}[m[2]]
	ms := math.Round(n * scale)
	if ms < 1 {
		return 0, fmt.Errorf("invalid duration %q: must be at least 1ms", s)
	}
	if ms > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, fmt.Errorf("invalid duration %q: too large", s)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// ValidateDuration reports whether s is a valid duration string for
// lsp.json. `pigo check` shows a failure as a bad-duration warning: at run
// time the field's default is used instead.
func ValidateDuration(s string) error {
	_, err := ParseDuration(s)
	return err
}

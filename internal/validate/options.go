package validate

// Mode says how unknown keys are judged.
type Mode int

const (
	// UserConfig is for files shared with other pi extensions (D15): an unknown key is a warning
	// when it is a near miss of a known key or sits inside a section only pigo reads (@pigo(owned)),
	// else an info.
	UserConfig Mode = iota
	// Declaration is for pigo's own declaration files (extensions, toolsets, commands): an unknown
	// key is an error.
	Declaration
)

// Options tunes one check.
type Options struct {
	Mode Mode
	// Skip lists top-level keys that must not be checked (already reported another way).
	Skip []string
}

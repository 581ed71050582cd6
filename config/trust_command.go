package config

import (
	"fmt"
	"io"
	"path/filepath"
)

// TrustReport is `pigo trust`'s result (its JSON, cli.md).
type TrustReport struct {
	Version  int    `json:"version"`
	Dir      string `json:"dir"`
	Decision string `json:"decision"`
	File     string `json:"file"`
	word     string
}

// TrustFolder is `pigo trust [--always|--once|--never] DIR`: decision ("always", "once" or
// "never") saved for DIR's real path in agentDir's trust.json (SaveTrust). An error names the
// file when it is the file's.
func TrustFolder(agentDir, dir, decision string) (*TrustReport, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	r := &TrustReport{Version: 1, Dir: abs, Decision: decision, word: "trusted"}
	var d *bool
	switch decision {
	case "never":
		f := false
		d, r.word = &f, "not trusted"
	case "once":
		r.word = "left without a saved decision of its own"
	default:
		t := true
		d = &t
	}
	if r.File, err = SaveTrust(agentDir, abs, d); err != nil {
		return nil, fmt.Errorf("%s: %v", r.File, err)
	}
	return r, nil
}

// WriteText prints the decision as `pigo trust` does.
func (r *TrustReport) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s is %s (%s)\n", r.Dir, r.word, r.File)
}

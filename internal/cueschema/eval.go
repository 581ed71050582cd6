package cueschema

import (
	"cuelang.org/go/cue"

	"github.com/pigo-agent/pigo/internal/cuehelper"
	"github.com/pigo-agent/pigo/internal/diag"
)

// Evaluate compiles a CUE extension file and unifies it with #Extension: the value's tree when
// it is clean, else the diagnostics (Syntax when it does not compile). It is what the pigo-cue
// helper answers.
func Evaluate(name string, src []byte) *cuehelper.Result {
	ds := diag.NewSource(name, src)
	s, err := Load()
	if err != nil {
		var l diag.List
		l.Add(diag.FileSpan(ds), diag.Error, "internal", "", err.Error())
		return &cuehelper.Result{Diags: cuehelper.FromList(l)}
	}
	v := s.Context().CompileBytes(src, cue.Filename(name))
	if err := v.Err(); err != nil {
		l := Errors(err, ds)
		for i := range l {
			l[i].Code = "syntax"
		}
		return &cuehelper.Result{Syntax: true, Diags: cuehelper.FromList(l)}
	}
	u := s.Def("#Extension").Unify(v)
	if err := u.Validate(cue.Concrete(true)); err != nil {
		return &cuehelper.Result{Diags: cuehelper.FromList(Errors(err, ds))}
	}
	return &cuehelper.Result{Root: NodeOf(v, src)}
}

package cueschema

import (
	"errors"
	"fmt"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"github.com/google/go-cmp/cmp"

	"github.com/pigo-agent/pigo/internal/diag"
)

// cueErr unifies a schema with a value in a fresh context and returns CUE's error.
func cueErr(t *testing.T, schema, value string) error {
	t.Helper()
	ctx := cuecontext.New()
	s := ctx.CompileString(schema)
	v := ctx.CompileString(value)
	err := s.Unify(v).Validate()
	if err == nil {
		t.Fatalf("%s & %s: no error", schema, value)
	}
	return err
}

func TestTranslate(t *testing.T) {
	cases := []struct {
		name, schema, value, got, want string
	}{
		{"bound", `int & <=3`, `5`, `5`, `5 is out of range (must be <=3)`},
		{"lower bound", `int & >=1`, `0`, `0`, `0 is out of range (must be >=1)`},
		{"not empty", `string & !=""`, `""`, `""`, `must not be empty`},
		{"pattern", `string & =~"^[a-z]+$"`, `"Ab"`, `"Ab"`, `"Ab" does not match the pattern "^[a-z]+$"`},
		{"not pattern", `string & !~"^x"`, `"xy"`, `"xy"`, `"xy" must not match "^x"`},
		{"type", `bool`, `"yes"`, `"yes"`, `expected a boolean, got "yes"`},
		{"type int", `int`, `1.5`, `1.5`, `expected an integer, got 1.5`},
		{"default beside a general branch", `*0 | int & <=3`, `7`, `7`, `7 is out of range (must be <=3)`},
		{"disjunction of kinds", `string | int`, `true`, `true`, `expected an integer, got true; or expected a string, got true`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Translate(cueErr(t, c.schema, c.value), c.got); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
	if Translate(nil, "x") != "" {
		t.Errorf("nil error translates to a message")
	}
}

func TestErrorsPositionsAndPaths(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	text := "tools: [{\n\tname: \"bad name\"\n\tdescription: \"d\"\n\tparameters: type: \"object\"\n\texec: \"x\"\n}]\n"
	src := diag.NewSource("ext.cue", []byte(text))
	v := s.Context().CompileBytes(src.Text, cue.Filename(src.Name))
	var got []string
	for _, d := range Errors(s.Def("#Extension").Unify(v).Validate(cue.Concrete(true)), src) {
		l, c := d.Pos()
		got = append(got, fmt.Sprintf("%d:%d %s", l, c, d.Message))
	}
	want := []string{
		`2:8 tools[0].name: "bad name" does not match the pattern "^[A-Za-z][A-Za-z0-9_.:-]*$"`,
		`5:8 tools[0].exec: expected an array, got "x"`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// FuzzTranslate: whatever text a CUE error carries, Translate and cleanMsg never panic.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{
		"invalid value 5 (out of bound <=3)", `invalid value "x" (out of bound =~"^a")`, `invalid value "" (out of bound !="")`,
		"conflicting values 1 and string (mismatched types int and string)", "conflicting values a and b",
		"incomplete value string", "field not allowed", "3 errors in empty disjunction:", "#Def.a.b: x", "",
		`invalid value "a" (does not match =~"b")`, "invalid value (out of bound )",
	} {
		f.Add(s, "got")
	}
	f.Fuzz(func(t *testing.T, msg, got string) {
		_ = Translate(errors.New(msg), got)
		_ = cleanMsg(msg, got)
		_ = joinCUEPath([]string{msg, "0", got})
	})
}

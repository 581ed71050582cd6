package cuehelper_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/pigo-agent/pigo/internal/cuehelper"
	"github.com/pigo-agent/pigo/internal/cueschema"
	"github.com/pigo-agent/pigo/internal/cueschema/cuetest"
	"github.com/pigo-agent/pigo/internal/diag"
)

// TestMain makes this test binary the pigo-cue helper the tests run.
func TestMain(m *testing.M) { cuetest.Main(m) }

const tool = `tools: [{name: "t", description: "d", parameters: {type: "object"}}]` + "\n"

// TestEval runs the real helper process: a clean file comes back as its tree (with offsets
// into the source: a field's value at its field), a file with a syntax or schema error as diagnostics at their positions.
func TestEval(t *testing.T) {
	r, err := cuehelper.Eval("x.cue", []byte(tool))
	if err != nil {
		t.Fatal(err)
	}
	if r.Root == nil || len(r.Diags) > 0 || r.Root.Get("tools") == nil {
		t.Fatalf("clean file: %+v", r)
	}
	if name := r.Root.Get("tools").Elems[0].Get("name"); name == nil || name.Str != "t" || name.Start != strings.Index(tool, "name") {
		t.Errorf("tools[0].name: %+v (its field's offset, as the CUE walker gives)", name)
	}

	r, err = cuehelper.Eval("y.cue", []byte("tools: [\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Syntax || len(r.Diags) == 0 || r.Diags[0].Code != "syntax" {
		t.Errorf("syntax error: %+v", r)
	}

	src := []byte(`tools: [{name: "1t", description: "d", parameters: {type: "object"}}]` + "\n")
	r, err = cuehelper.Eval("z.cue", src)
	if err != nil {
		t.Fatal(err)
	}
	l := r.List(diag.NewSource("z.cue", src))
	if r.Root != nil || len(l) != 1 || l[0].Code != "schema" || !strings.Contains(l[0].Message, `"1t" does not match the pattern`) {
		t.Fatalf("schema error: %+v", l)
	}
	if line, col := l[0].Pos(); line != 1 || col != 16 {
		t.Errorf("position %d:%d", line, col)
	}
	// The same answer as evaluating in this process.
	if want := cueschema.Evaluate("z.cue", src); want.Diags[0] != r.Diags[0] {
		t.Errorf("helper %+v, in process %+v", r.Diags[0], want.Diags[0])
	}
}

// TestNotFound: without the helper the evaluation says how to install it.
func TestNotFound(t *testing.T) {
	t.Setenv(cuehelper.EnvPath, "/nonexistent/pigo-cue")
	_, err := cuehelper.Eval("x.cue", []byte(tool))
	if !errors.Is(err, cuehelper.ErrNotFound) || !strings.Contains(err.Error(), "go install github.com/pigo-agent/pigo/cmd/pigo-cue@latest") {
		t.Errorf("error %v", err)
	}
}

// TestUsage: the helper run by hand says what it is.
func TestUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := cuehelper.Main(nil, nil, &out, &errb, cueschema.Evaluate); code != 64 || !strings.Contains(errb.String(), "pigo's evaluator of CUE extension files") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

package schema

import (
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/errors"
)

// compile builds every embedded schema file as one CUE package.
func compile(t testing.TB) cue.Value {
	t.Helper()
	inst := build.NewContext().NewInstance("", nil)
	for _, name := range Files() {
		src, err := FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := inst.AddFile(name, src); err != nil {
			t.Fatalf("%s: %v", name, errors.Details(err, nil))
		}
	}
	v := cuecontext.New().BuildInstance(inst)
	if err := v.Err(); err != nil {
		t.Fatalf("schema does not compile:\n%s", errors.Details(err, nil))
	}
	if err := v.Validate(); err != nil {
		t.Fatalf("schema does not validate:\n%s", errors.Details(err, nil))
	}
	return v
}

func TestCompiles(t *testing.T) {
	compile(t)
}

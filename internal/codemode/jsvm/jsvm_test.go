package jsvm

import (
	"bytes"
	"flag"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/codemode/jswire"
	"modernc.org/quickjs"
)

// When pigo's end of stdin closes (pigo ended without killing the helper), a script spinning
// in JavaScript is interrupted and the engine exits.
func TestStdinClosedStopsVM(t *testing.T) {
	inR, inW := io.Pipe()
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- Serve(nil, inR, &out, &errOut) }()
	if err := jswire.Write(inW, &jswire.Message{T: "start", Mem: 1 << 40, S: []*string{jswire.Ptr("for (;;) {}"), jswire.Ptr("[]"), jswire.Ptr("{}")}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	inW.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the VM ran on after stdin closed")
	}
	r := jswire.NewReader(&out)
	if m, err := jswire.Read(r, 1<<20); err != nil || m.T != "ready" {
		t.Fatalf("%+v %v", m, err)
	}
	if m, err := jswire.Read(r, 1<<20); err != nil || m.T != "error" || m.Kind != "aborted" {
		t.Fatalf("%+v %v", m, err)
	}
}

// A VM and the prelude's compilation: what each codemode call pays in the helper beyond the
// process's start (in-process, the prelude was compiled once per pigo process).
func BenchmarkVMAndPrelude(b *testing.B) {
	for b.Loop() {
		vm, err := quickjs.NewVM()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := vm.Compile(preludeSource, quickjs.EvalGlobal); err != nil {
			b.Fatal(err)
		}
		vm.Close()
	}
}

var update = flag.Bool("update", false, "write prelude.bc and prelude.version")

// The stored bytecode is prelude.js compiled by the QuickJS linked now: a change to either
// (an edit of the prelude, a QuickJS update in go.mod) fails here until -update rewrites it.
// The helper also compiles the source itself when the versions differ.
func TestPreludeBytecode(t *testing.T) {
	vm, err := quickjs.NewVM()
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	bc, err := vm.Compile(preludeSource, quickjs.EvalGlobal)
	if err != nil {
		t.Fatal(err)
	}
	// The versions go.mod links (a test binary records none).
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Version}}", "modernc.org/libquickjs", "modernc.org/quickjs").Output()
	if err != nil {
		t.Fatal(err)
	}
	v := string(out)
	if *update {
		if err := os.WriteFile("prelude.bc", bc, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("prelude.version", []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(bc, preludeCode) || v != preludeVersion {
		t.Fatalf("prelude.bc is stale (built by %q, linked %q): go test ./internal/codemode/jsvm -run TestPreludeBytecode -update", preludeVersion, v)
	}
	if got, _ := prelude(vm); !bytes.Equal(got, preludeCode) {
		t.Fatal("the stored bytecode is not used")
	}
}

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedBwrapNotRun: bwrap runs outside the sandbox, so one a sandboxed command could
// write is never taken from $PATH. A command that may write a directory on pigo's $PATH
// (ahead of the real bwrap) plants a `bwrap` there; the next plan must still run the real
// one. Without the check the planted script is the next plan's bwrap and every later command
// runs unsandboxed.
func TestPlantedBwrapNotRun(t *testing.T) {
	needBwrap(t)
	real, err := FindBwrap("", HostEnviron())
	if err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t)
	bin, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := testEnvReal(t)
	env.Path = bin + string(os.PathListSeparator) + env.Path
	p := DefaultPolicy()
	p.ExtraWritablePaths = []string{bin}
	pl, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(bin, "bwrap")
	res, err := Run(t.Context(), pl, "printf '#!/bin/sh\\necho unsandboxed\\n' > "+planted+" && chmod 755 "+planted, Options{})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("plant: %v %+v", err, res)
	}
	if !isExecutable(planted) {
		t.Fatal("the command could not plant its bwrap: the test proves nothing")
	}
	next, err := NewPlan(p, ws, env)
	if err != nil {
		t.Fatal(err)
	}
	if next.Bwrap == planted || next.Bwrap != real {
		t.Errorf("next plan's bwrap = %s, want %s (not the planted %s)", next.Bwrap, real, planted)
	}
	// The same file where no sandboxed command of the policy can write is taken: the rule is
	// about who could have written it, not about $PATH order.
	p.ExtraWritablePaths = nil
	p.WritablePaths = []string{"."} // not /tmp, where the test's directories are
	if other, err := NewPlan(p, ws, env); err != nil || other.Bwrap != planted {
		t.Errorf("outside the writable paths: bwrap = %s, %v; want %s", other.Bwrap, err, planted)
	}
}

// TestTrustedBinary: the ownership and mode rules of a helper found on $PATH.
func TestTrustedBinary(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "bwrap")
	if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// t.TempDir's parents: / and /tmp (sticky) belong to root, the test's own directories to
	// this user.
	if !trustedBinary(f, nil, false) {
		t.Fatalf("%s: not trusted", f)
	}
	if trustedBinary(f, []string{dir}, false) || trustedBinary(f, []string{filepath.Dir(dir) + "/"}, false) {
		t.Error("a file under a writable path is trusted")
	}
	if !trustedBinary(f, []string{dir + "x", "/nonexistent"}, false) {
		t.Error("a writable path that only shares a prefix excludes the file")
	}
	link := filepath.Join(t.TempDir(), "bwrap")
	if err := os.Symlink(f, link); err != nil {
		t.Fatal(err)
	}
	if trustedBinary(link, []string{dir}, false) {
		t.Error("a link on $PATH to a file under a writable path is trusted")
	}
	if os.Geteuid() != 0 && trustedBinary(f, nil, true) {
		t.Error("root only: a file of pigo's user is trusted")
	}
	for _, c := range []struct {
		what       string
		file, dirM os.FileMode
		want       bool
	}{
		{"group-writable file", 0o775, 0o755, false},
		{"others-writable file", 0o757, 0o755, false},
		{"group-writable directory", 0o755, 0o775, false},
		{"others-writable directory", 0o755, 0o777, false},
		{"sticky others-writable directory", 0o755, os.ModeSticky | 0o777, true},
	} {
		if err := os.Chmod(f, c.file); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, c.dirM); err != nil {
			t.Fatal(err)
		}
		if got := trustedBinary(f, nil, false); got != c.want {
			t.Errorf("%s: trusted = %v, want %v", c.what, got, c.want)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// Another user's file (root can make one): not trusted, root only or not.
		if err := os.Chown(f, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f, 0o755); err != nil {
			t.Fatal(err)
		}
		if trustedBinary(f, nil, false) {
			t.Error("another user's file is trusted")
		}
	}
	// lookPath passes over an untrusted candidate for the next one.
	other := filepath.Join(t.TempDir(), "bwrap")
	if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := lookPath("bwrap", strings.Join([]string{dir, filepath.Dir(other)}, ":"), []string{dir}, false); got != other {
		t.Errorf("lookPath = %q, want %q", got, other)
	}
}

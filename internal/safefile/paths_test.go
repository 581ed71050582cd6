package safefile

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pathsTree makes a tree with every kind of link EvalSymlinks meets: relative and absolute
// links to directories and files, a chain, a dangling link, a loop, links to "." and "..".
func pathsTree(t *testing.T) string {
	root := t.TempDir()
	for _, d := range []string{"d/sub", "e"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"d/f", "d/sub/g", "f2"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ld": "d", "la": filepath.Join(root, "d"), "lf": "d/f", "dangling": "nowhere",
		"loop1": "loop2", "loop2": "loop1", "up": "..", "dot": ".", "chain": "ld",
		"d/back": "../e", "d/sub/abs": root, "e/tofile": "../f2",
	}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestPathsMatchEvalSymlinks: whatever order a load asks in, a memoised resolution answers
// what filepath.EvalSymlinks and filepath.Abs answer, errors included, for relative and
// absolute paths through every kind of link.
func TestPathsMatchEvalSymlinks(t *testing.T) {
	root := pathsTree(t)
	t.Chdir(filepath.Dir(root))
	names := []string{"d", "sub", "f", "g", "ld", "la", "lf", "dangling", "loop1", "up", "dot",
		"chain", "back", "abs", "tofile", "e", "f2", "missing", ".", ".."}
	var paths []string
	for _, prefix := range []string{root, filepath.Base(root), "./" + filepath.Base(root)} {
		paths = append(paths, prefix)
		for _, a := range names {
			paths = append(paths, prefix+"/"+a)
			for _, b := range names {
				paths = append(paths, prefix+"/"+a+"/"+b)
				for _, c := range []string{"f", "sub", "ld", "missing", ".."} {
					paths = append(paths, prefix+"/"+a+"/"+b+"/"+c)
				}
			}
		}
	}
	paths = append(paths, "", ".", "..", "/", "//", root+"/", root+"//d", "d")
	type answer struct{ path, err string }
	ask := func(f func(string) (string, error), p string) answer {
		r, err := f(p)
		if err != nil {
			return answer{r, err.Error()}
		}
		return answer{r, ""}
	}
	want := map[string]answer{}
	wantAbs := map[string]answer{}
	for _, p := range paths {
		want[p] = ask(filepath.EvalSymlinks, p)
		wantAbs[p] = ask(filepath.Abs, p)
	}
	resolved := 0
	for seed := range int64(3) {
		order := append([]string(nil), paths...)
		rand.New(rand.NewSource(seed)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		m := NewPaths()
		for _, p := range order {
			if got := ask(m.EvalSymlinks, p); got != want[p] {
				t.Fatalf("seed %d: EvalSymlinks(%q) = %+v; filepath.EvalSymlinks: %+v", seed, p, got, want[p])
			}
			if got := ask(m.Abs, p); got != wantAbs[p] {
				t.Fatalf("seed %d: Abs(%q) = %+v; filepath.Abs: %+v", seed, p, got, wantAbs[p])
			}
			if got, want := m.Real(p), Real(p); got != want {
				t.Fatalf("seed %d: Real(%q) = %q; want %q", seed, p, got, want)
			}
			// The memo answers again what it answered.
			if got := ask(m.EvalSymlinks, p); got != want[p] {
				t.Fatalf("seed %d: second EvalSymlinks(%q) = %+v", seed, p, got)
			}
		}
		if seed == 0 {
			for _, a := range want {
				if a.err == "" {
					resolved++
				}
			}
		}
	}
	if resolved < 300 {
		t.Fatalf("only %d of %d paths resolve: the tree is not what the test means", resolved, len(paths))
	}
	var nilPaths *Paths
	for _, p := range []string{root + "/ld/f", "missing", filepath.Base(root) + "/la"} {
		if got := ask(nilPaths.EvalSymlinks, p); got != want[p] && !strings.Contains(p, "missing") {
			t.Fatalf("nil Paths: EvalSymlinks(%q) = %+v; want %+v", p, got, want[p])
		}
	}
}

// TestCheckWithPathsConfines: a memoised Check refuses a link out of the directory as the plain
// one does, and reads what it reads.
func TestCheckWithPathsConfines(t *testing.T) {
	root := pathsTree(t)
	within := filepath.Join(root, "e")
	m := NewPaths()
	for _, p := range []string{"e/tofile", "d/f", "ld/f", "f2", "d/back/tofile"} {
		path := filepath.Join(root, p)
		_, plain := Check(path, Options{Within: Real(within), WithinName: "e"})
		_, memo := Check(path, Options{Within: m.Real(within), WithinName: "e", Paths: m})
		if (plain == nil) != (memo == nil) || plain != nil && plain.Error() != memo.Error() {
			t.Fatalf("Check(%s): plain %v, memoised %v", p, plain, memo)
		}
		if memo == nil {
			t.Fatalf("Check(%s) allowed a file outside %s", p, within)
		}
	}
}

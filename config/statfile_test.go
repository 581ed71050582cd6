package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pigo-agent/pigo/internal/safefile"
)

// statFileOld is addFile's check as it was: os.Stat, then os.Lstat for a missing optional file.
func statFileOld(path string, must bool) error {
	_, err := os.Stat(path)
	if err != nil && !must {
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := os.Lstat(path); lerr != nil {
				return errAbsent
			}
		}
	}
	return err
}

// TestStatFileAsStatThenLstat: statFile answers as os.Stat then os.Lstat did (absent, or the
// same error and message) for files, directories, links to both, dangling links, link loops,
// paths under a file and under a missing directory, optional or not.
func TestStatFileAsStatThenLstat(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	write("file.json")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link("file.json", "tofile.json")
	link("sub", "todir")
	link("missing.json", "dangling.json")
	link("loop1", "loop2")
	link("loop2", "loop1")
	link("dangling.json", "todangling.json")
	for _, name := range []string{"file.json", "sub", "tofile.json", "todir", "dangling.json", "loop1", "todangling.json",
		"missing.json", "file.json/x", "nodir/x.json", "todir/x.json", "tofile.json/x", "sub/../file.json"} {
		p := filepath.Join(dir, name)
		for _, must := range []bool{false, true} {
			got, want := statFile(p, must), statFileOld(p, must)
			if (got == nil) != (want == nil) || got != nil && (got.Error() != want.Error() || ioMessage(got) != ioMessage(want)) {
				t.Errorf("%s (must %v): statFile %v, Stat then Lstat %v", name, must, got, want)
			}
		}
	}
}

// TestReadDirOnce: during a load each directory is read once, and listDir gives the same
// entries and reports the same problems at each call as without the memo.
func TestReadDirOnce(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.md", "b.md", ".hidden.md", "node_modules"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	notDir := filepath.Join(dir, "a.md") // ReadDir fails: reported at each call
	run := func(memo bool) ([][]string, int) {
		c := &Config{paths: safefile.NewPaths()}
		if memo {
			c.dirs = map[string]dirListing{}
		}
		var lists [][]string
		for range 2 {
			lists = append(lists, c.listDir(dir, Global), c.listDir(notDir, Global), c.listDir(filepath.Join(dir, "none"), Global))
		}
		return lists, len(c.Files)
	}
	l1, n1 := run(true)
	l2, n2 := run(false)
	if !reflect.DeepEqual(l1, l2) || n1 != n2 || n1 != 2 {
		t.Fatalf("with the memo %v and %d problems, without %v and %d", l1, n1, l2, n2)
	}
	c := &Config{paths: safefile.NewPaths(), dirs: map[string]dirListing{}}
	c.listDir(dir, Global)
	if err := os.WriteFile(filepath.Join(dir, "c.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := c.listDir(dir, Global); len(got) != 2 {
		t.Errorf("the second listing read the directory again: %v", got)
	}
}

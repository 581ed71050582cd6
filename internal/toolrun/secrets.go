package toolrun

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/pigo-agent/pigo/internal/safefile"
	"github.com/pigo-agent/pigo/internal/sandbox"
)

// SearchCommand is the command that runs a tree-walking content search (ripgrep) over root,
// in dir. The file tools never open the agent dir's credential stores ([safefile.DenyReads]),
// but ripgrep opens files itself: when a credential store lies inside root, the search runs
// under bwrap with each such file covered by /dev/null, so its content can neither match nor
// be printed; without bwrap that one search is refused, naming the file. Root being a store
// itself is refused as a read is. Any other search runs the program as it is, at no cost.
// pi's grep searches the stores: a deliberate difference (docs/decisions/20-hostile-model.md).
func (s *Session) SearchCommand(ctx context.Context, dir, root, bin string, args []string) (*exec.Cmd, error) {
	if !filepath.IsAbs(root) {
		root = filepath.Join(dir, root)
	}
	hide, err := s.credentialsUnder(root)
	if err != nil {
		return nil, err
	}
	if len(hide) == 0 {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		return cmd, nil
	}
	bwrap, err := sandbox.FindBwrap(s.SandboxPolicy().BwrapPath, s.Environ)
	if err != nil {
		return nil, &Refusal{Kind: RefusedPolicy, Text: "Refusing to search " + root +
			": it contains pigo's credential store " + hide[0] +
			" (API keys and tokens), and bwrap, which hides it from the search, is not available. Search a narrower path."}
	}
	argv := []string{"--dev-bind", "/", "/"}
	for _, f := range hide {
		// --dev-bind: a plain bind is nodev, where opening /dev/null fails (EACCES) and
		// ripgrep would report an error; this one reads as empty.
		argv = append(argv, "--dev-bind", "/dev/null", f)
	}
	argv = append(append(argv, "--", bin), args...)
	cmd := exec.CommandContext(ctx, bwrap, argv...)
	cmd.Dir = dir
	return cmd, nil
}

// credentialsUnder lists the credential stores (real paths) a search of root would walk into.
func (s *Session) credentialsUnder(root string) ([]string, error) {
	rootKey := ReadKey(root)
	var hide []string
	for _, f := range sandbox.CredentialFiles(s.AgentDir) {
		real := ReadKey(f)
		if real == rootKey {
			return nil, safefile.CredentialRefusal(root)
		}
		if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() && within(rootKey, real) {
			hide = append(hide, real)
		}
	}
	return hide, nil
}

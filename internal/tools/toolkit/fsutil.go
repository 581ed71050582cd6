package toolkit

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/pigo-agent/pigo/internal/safefile"
	"golang.org/x/text/unicode/norm"
)

// nodeErrors are libuv's error descriptions, which pi's tools surface verbatim through
// Node's fs errors ("ENOENT: no such file or directory, access '/x'").
var nodeErrors = map[syscall.Errno][2]string{
	syscall.ENOENT:       {"ENOENT", "no such file or directory"},
	syscall.EACCES:       {"EACCES", "permission denied"},
	syscall.EISDIR:       {"EISDIR", "illegal operation on a directory"},
	syscall.ENOTDIR:      {"ENOTDIR", "not a directory"},
	syscall.ELOOP:        {"ELOOP", "too many symbolic links encountered"},
	syscall.ENAMETOOLONG: {"ENAMETOOLONG", "name too long"},
	syscall.EPERM:        {"EPERM", "operation not permitted"},
	syscall.EEXIST:       {"EEXIST", "file already exists"},
	syscall.EROFS:        {"EROFS", "read-only file system"},
	syscall.ENOSPC:       {"ENOSPC", "no space left on device"},
	syscall.EMFILE:       {"EMFILE", "too many open files"},
	syscall.EBUSY:        {"EBUSY", "resource busy or locked"},
	syscall.ETXTBSY:      {"ETXTBSY", "text file is busy"},
	syscall.EINVAL:       {"EINVAL", "invalid argument"},
	syscall.EIO:          {"EIO", "i/o error"},
}

// NodeError renders err as Node's fs error message for syscall on path ("" for calls
// without a path, such as read on a file handle).
func NodeError(err error, call, path string) error {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err
	}
	n, ok := nodeErrors[errno]
	if !ok {
		return err
	}
	msg := n[0] + ": " + n[1] + ", " + call
	if path != "" {
		msg += " '" + path + "'"
	}
	return errors.New(msg)
}

// FsError renders an error of the write path or of a read as Node's fs error text
// ("ENOENT: no such file or directory, open '/x'") when it is one with a known code; other
// errors (a refusal, a read-check text) are returned as they are.
func FsError(err error) error {
	var pe *os.PathError
	if !errors.As(err, &pe) {
		return err
	}
	var errno syscall.Errno
	if !errors.As(pe.Err, &errno) {
		return err
	}
	if _, ok := nodeErrors[errno]; !ok {
		return err
	}
	return NodeError(pe.Err, pe.Op, pe.Path)
}

// FsErrorAt is Node's text for err as the failure of call on path (err's own path and call
// are replaced: a stat of the path is reported as the open the tool did).
func FsErrorAt(err error, call, path string) error {
	var r *safefile.Refusal
	if errors.As(err, &r) {
		return err
	}
	return NodeError(err, call, path)
}

// NodeCode is the Node error code of err ("ENOENT"), "" when unknown.
func NodeCode(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return nodeErrors[errno][0]
	}
	return ""
}

func isUnicodeSpace(r rune) bool {
	return r == 0xa0 || (r >= 0x2000 && r <= 0x200a) || r == 0x202f || r == 0x205f || r == 0x3000
}

// ResolvePath is pi's resolveToCwd: unicode spaces become spaces, a leading @ is dropped,
// ~ is the home directory, file:// URLs are paths, and a relative path is joined to cwd.
func ResolvePath(p, cwd string) string {
	p = strings.Map(func(r rune) rune {
		if isUnicodeSpace(r) {
			return ' '
		}
		return r
	}, p)
	p = strings.TrimPrefix(p, "@")
	if home, err := os.UserHomeDir(); err == nil {
		if p == "~" {
			p = home
		} else if rest, ok := strings.CutPrefix(p, "~/"); ok {
			p = filepath.Join(home, rest)
		}
	}
	if strings.HasPrefix(p, "file://") {
		if u, err := url.Parse(p); err == nil && u.Path != "" {
			p = u.Path
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

func Exists(p string) bool {
	_, err := os.Lstat(p)
	if err == nil {
		return true
	}
	_, err = os.Stat(p)
	return err == nil
}

// ResolveReadPath is pi's resolveReadPath: the resolved path, or the first of its macOS
// variants that exists, in pi's order: narrow no-break space before AM/PM, the decomposed
// (NFD) form macOS file names use, curly apostrophe, NFD with curly apostrophe.
func ResolveReadPath(p, cwd string) string {
	r := ResolvePath(p, cwd)
	if Exists(r) {
		return r
	}
	var variants []string
	if v := amPM(r); v != r {
		variants = append(variants, v)
	}
	nfd := norm.NFD.String(r)
	if nfd != r {
		variants = append(variants, nfd)
	}
	if v := strings.ReplaceAll(r, "'", "\u2019"); v != r {
		variants = append(variants, v)
	}
	if v := strings.ReplaceAll(nfd, "'", "\u2019"); v != r {
		variants = append(variants, v)
	}
	for _, v := range variants {
		if Exists(v) {
			return v
		}
	}
	return r
}

func amPM(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == ' ' && i+3 < len(p) && (strings.EqualFold(p[i+1:i+3], "am") || strings.EqualFold(p[i+1:i+3], "pm")) && p[i+3] == '.' {
			b.WriteString("\u202f")
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// DecodeUTF8 is Node's buffer.toString("utf-8"): invalid sequences become U+FFFD (one per
// maximal invalid subpart, as the WHATWG decoder does); a BOM is kept.
func DecodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var out strings.Builder
	out.Grow(len(b) + 16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || n > 1 {
			out.Write(b[i : i+n])
			i += n
			continue
		}
		out.WriteRune(utf8.RuneError)
		i += invalidSubpart(b[i:])
	}
	return out.String()
}

// invalidSubpart is the length of the maximal prefix of b that starts a well-formed sequence
// (at least 1): the WHATWG decoder replaces that whole prefix with one U+FFFD.
func invalidSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xbf)
	switch {
	case c >= 0xc2 && c <= 0xdf:
		need = 1
	case c == 0xe0:
		need, lo = 2, 0xa0
	case c >= 0xe1 && c <= 0xec, c == 0xee, c == 0xef:
		need = 2
	case c == 0xed:
		need, hi = 2, 0x9f
	case c == 0xf0:
		need, lo = 3, 0x90
	case c >= 0xf1 && c <= 0xf3:
		need = 3
	case c == 0xf4:
		need, hi = 3, 0x8f
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xbf
		n++
	}
	return n
}

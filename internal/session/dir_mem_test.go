package session

import (
	"regexp"
	"strings"
	"testing"
)

// cwdDirNameRegexp is the regexp cwdDirName replaced (pi's `/[/\\:]/g`).
func cwdDirNameRegexp() *regexp.Regexp { return regexp.MustCompile(`[/\\:]`) }

func TestCwdDirNameMatchesRegexp(t *testing.T) {
	re := cwdDirNameRegexp()
	inputs := []string{
		"", "a", "/", `\`, ":", "home/user/proj", `C:\Users\me\proj`, "a::b//c\\\\d",
		"tmp/héllo/wörld", "x/\xff\xfe/y:z", "日本/語:\\", "no-separators-here", "---",
		strings.Repeat("ab/", 200), "\x00/\x7f:\x80",
	}
	for _, in := range inputs {
		if got, want := cwdDirName(in), re.ReplaceAllString(in, "-"); got != want {
			t.Errorf("cwdDirName(%q) = %q, the regexp gives %q", in, got, want)
		}
	}
}

func FuzzCwdDirName(f *testing.F) {
	for _, s := range []string{"home/user/proj", `C:\x`, "a:b", "\xff/"} {
		f.Add(s)
	}
	re := cwdDirNameRegexp()
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := cwdDirName(in), re.ReplaceAllString(in, "-"); got != want {
			t.Errorf("cwdDirName(%q) = %q, the regexp gives %q", in, got, want)
		}
	})
}

// The session folder's name is made without a regexp: the regexp's backtracker allocated a
// 32 KB bit state on every session's start (D25.44).
func TestDefaultDirAllocs(t *testing.T) {
	agentDir, cwd := "/home/u/.pi/agent", "/home/u/some/project:x"
	if got := DefaultDir(agentDir, cwd); got != "/home/u/.pi/agent/sessions/--home-u-some-project-x--" {
		t.Fatalf("DefaultDir = %q", got)
	}
	if n := testing.AllocsPerRun(20, func() { DefaultDir(agentDir, cwd) }); n > 3 {
		t.Errorf("DefaultDir: %v allocations a call, want at most 3 (the regexp made 6)", n)
	}
}

func TestJoinLinesMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`[\r\n]+`)
	for _, in := range []string{
		"", "a", "\n", "\r\n", "\n\n\r", "a\nb", "a\r\n\r\nb", "\nlead", "trail\r", "x\n\xffy\rz",
		"héllo\nwörld", "no newline", "a\n\nb\n\nc", "\r", "\r\r\ra",
	} {
		if got, want := joinLines(in), re.ReplaceAllString(in, " "); got != want {
			t.Errorf("joinLines(%q) = %q, the regexp gives %q", in, got, want)
		}
	}
}

func FuzzJoinLines(f *testing.F) {
	re := regexp.MustCompile(`[\r\n]+`)
	for _, s := range []string{"a\r\nb", "\n\n", "x\ry", "\xff\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := joinLines(in), re.ReplaceAllString(in, " "); got != want {
			t.Errorf("joinLines(%q) = %q, the regexp gives %q", in, got, want)
		}
	})
}

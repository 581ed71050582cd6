package sandbox

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// adversaryRules allow the commands the twins use, so that only the construct decides.
var adversaryRules = []Rule{
	allow("echo *"), allow("ls *"), allow("cat *"), allow("git status *"), allow("git log *"),
	allow("grep *"), allow("wc *"), allow("printf *"), allow("true"), allow("read *"),
	allow("export *"), allow("declare *"), allow("let *"), allow("set *"), allow("shopt *"),
	allow("bash *"), allow("sh *"), allow("trap *"), allow("command *"), allow("eval *"),
	allow("FOO=1 git status *"), allow("LANG=C git status *"), allow("PATH=/tmp/evil git status *"),
	allow("IFS=, git status *"), allow("GIT_DIR=/tmp/x git status *"), allow("LD_PRELOAD=/tmp/x.so git status *"),
	allow("[[ *"), allow("(( *"), allow("unset *"), allow("xargs *"), allow("find *"), allow("su *"),
	allow("source *"), allow("env *"),
	deny("git push *"), deny("rm -rf *"), deny("curl *"),
}

// TestApprovalTwins: per construct class, an unsafe line (never allow) and its safe twin
// (stays allow), so that the fix is not "ask for everything".
func TestApprovalTwins(t *testing.T) {
	rs := CompileRules(adversaryRules)
	for _, tc := range []struct{ class, unsafe, safe string }{
		{"comment ending in a backslash", "git status # \\\ngit push origin main", "git status # fine\ngit log"},
		{"comment ending in a backslash, CRLF", "git status # \\\r\ngit push origin main", "git status # ok"},
		{"carriage return outside quotes", "echo a \\\r\ngit push", "echo \"a\rb\""},
		{"carriage return as a separator", "git status\rgit push", "echo 'x\ry'"},
		{"CRLF inside a quoted nested script", "eval 'sh -c '\\''echo hi >&2'\\''\r\ngit status'", "eval 'sh -c '\\''echo hi >&2'\\''\ngit status'"},
		{"prefix assignment to PATH", "PATH=/tmp/evil git status", "FOO=1 git status"},
		{"prefix assignment to IFS", "IFS=, git status", "LANG=C git status"},
		{"prefix assignment to GIT_*", "GIT_DIR=/tmp/x git status", "FOO=1 git status"},
		{"prefix assignment to LD_*", "LD_PRELOAD=/tmp/x.so git status", "git status"},
		{"assignment-only statement to PATH", "PATH=/tmp/evil; git status", "x=1; git status"},
		{"assignment-only statement to HOME", "HOME=/tmp/h && git status", "y=/tmp/h && git status"},
		{"assignment to BASH_ENV then a shell", "BASH_ENV=/tmp/x; bash -c 'true'", "bash -c 'true'"},
		{"export of PATH", "export PATH=/tmp/evil; git status", "export FOO=1; git status"},
		{"declare of a non-literal name", `declare "$v"; git status`, "declare -x FOO=1; git status"},
		{"name reference", "declare -n r=PATH; r=/tmp; git status", "declare -x FOO=1; git status"},
		{"read into IFS", "read IFS < f; git status", "read line < f; git status"},
		{"printf -v PATH", "printf -v PATH /tmp; git status", "printf '%s\\n' hi"},
		{"arithmetic expansion of a variable the line sets", "x='a[$(touch /tmp/p)]'; echo $((x))", "echo $((1+2))"},
		{"arithmetic on an unset variable is the user's", "echo $((y)); read y", "echo $((y))"},
		{"arithmetic on a counter", "n=$1; echo $((n+1))", "n=0; n=$((n+1)); echo $n"},
		{"arithmetic on the last argument", "echo 'a[$(touch /tmp/p)]'; echo $((_))", "echo $((LINENO))"},
		{"arithmetic on a quoted word", `let 'x=a[$(touch /tmp/p)]'`, "let 1+2"},
		{"integer attribute", "declare -i x; x=$y", "declare -x y=1"},
		{"C-style for", "for ((i=$1; i<3; i++)); do echo $i; done", "for ((i=0; i<3; i++)); do echo $i; done"},
		{"arithmetic expansion of $var", "read x; echo $(( $x + 1 ))", "echo $(( 2 * 3 ))"},
		{"arithmetic command on a variable", "for x in $(cat f); do (( x > 1 )); done", "for x in 1 2; do (( x > 1 )); done"},
		{"let on a variable", "y=$(cat f); let x=y+1", "y=2; let x=y+1"},
		{"[[ -eq ]] on a variable", "x=$(cat f); [[ $x -eq 1 ]]", "[[ 1 -eq 1 ]]"},
		{"[[ -lt ]] on a bare name", "IFS= read -r x; [[ x -lt 2 ]]", `[[ $x == y ]]`},
		{"[[ -v ]] with a variable subscript", "[[ -v a[$x] ]]", "[[ -v a[1] ]]"},
		{"prompt expansion", "echo ${x@P}", "echo ${x@Q}"},
		{"indirect expansion", "echo ${!x}", "echo ${x}"},
		{"subscript on a variable", "i=$(cat f); echo ${a[$i]}", "echo ${a[0]}"},
		{"slice on a variable", "echo ${s:$1}", "echo ${s:1:2}"},
		{"array assignment subscript", "i=$(cat f); a[$i]=1; echo x", "a[1]=1; echo x"},
		{"input from /dev/tcp", "cat < /dev/tcp/127.0.0.1/80", "cat < in.txt"},
		{"input from /dev/udp", "cat </dev/udp/127.0.0.1/53", "cat <in.txt"},
		{"input from a word that could be /dev/tcp", `cat < "$f"`, `cat < "in.txt"`},
		{"eval of a non-literal", `eval "$cmd"`, `eval "echo hi"`},
		{"eval of a literal denied command", "eval 'git push origin'", "eval 'git status'"},
		{"bash -c of a non-literal", `bash -c "$cmd"`, `bash -c "echo hi"`},
		{"sh -c of a literal denied command", "sh -c 'rm -rf /'", "sh -c 'ls -la'"},
		{"a shell reading its script from stdin", "echo 'git push' | bash", "echo hi | bash -c 'cat'"},
		{"a shell reading a heredoc", "bash <<EOF\ngit push\nEOF", "cat <<EOF\ngit push\nEOF"},
		{"trap runs code", "trap 'git push origin' EXIT", "trap 'echo bye' EXIT"},
		{"wrapper runs eval", `command eval "$x"`, "command eval 'echo hi'"},
		{"variable as command name", "$c status", "echo $c"},
		{"variable could complete a denied command", "git $sub origin main", "git status $x"},
		{"brace expansion as command", "{rm,-rf,/tmp/x}", "echo {a,b}"},
		{"glob in command name", "/bin/r? -rf /tmp/x", "ls /bin/r?"},
		{"ANSI-C quoted command name", `$'\x72m' -rf /tmp/x`, `echo $'\x72m'`},
		{"set -o posix enables aliases", "set -o posix; git status", "set -e; git status"},
		{"shopt expand_aliases", "shopt -s expand_aliases; git status", "shopt -s nullglob; git status"},
		{"NUL byte", "echo a\x00; git push", "echo a"},
		{"vertical tab between words", "git\vpush", "echo 'a\vb'"},
		{"form feed after a command", "git status\f; echo", "echo \"a\fb\""},
		{"xargs completes a denied command", "echo push | xargs git", "ls | xargs echo"},
		{"find -exec runs a denied command", `find . -exec git push \;`, "find . -name x"},
		{"su -c runs a script", "su root -c 'git push origin'", "su root -c 'git status'"},
		{"source of stdin", "source /dev/stdin <<< 'git push'", "source ./env.sh"},
		{"bash of stdin", "bash /dev/stdin <<< 'git push'", "bash -c 'ls'"},
		{"env sets a risky variable", "env PATH=/tmp git status", "env FOO=1 git status"},
		{"env sets BASH_ENV for a shell", "env BASH_ENV=/tmp/x bash -c 'ls'", "env FOO=1 bash -c 'ls'"},
		{"IFS splices a word", "git${IFS}push", "git status ${x}"},
		{"heredoc body runs a substitution", "cat <<EOF\n$(rm -rf /tmp/x)\nEOF", "cat <<'EOF'\n$(rm -rf /tmp/x)\nEOF"},
	} {
		if got := rs.Evaluate(tc.unsafe); got.Decision == Allow {
			t.Errorf("%s: unsafe %q was allowed", tc.class, tc.unsafe)
		}
		if got := rs.Evaluate(tc.safe); got.Decision != Allow {
			t.Errorf("%s: safe twin %q → %s (%+v, %v, %s)", tc.class, tc.safe, got.Decision, got.Commands, got.Unsafe, got.Error)
		}
	}
}

// TestApprovalBounded: deciding is linear and the output bounded, however deep the nesting.
func TestApprovalBounded(t *testing.T) {
	rs := CompileRules(adversaryRules)
	for _, line := range []string{
		strings.Repeat("echo $(", 5000) + "x" + strings.Repeat(")", 5000),
		strings.Repeat("echo `", 1) + strings.Repeat("echo $(echo ", 3000) + strings.Repeat(")", 3000) + "`",
		strings.Repeat("echo a; ", 20000),
		strings.Repeat("(", 3000) + "echo" + strings.Repeat(")", 3000),
		strings.Repeat("echo 'a\rb'; ", 20000) + "\r", // many quoted carriage returns, one outside
	} {
		start := time.Now()
		a := rs.Evaluate(line)
		took := time.Since(start)
		size := 0
		for _, c := range a.Commands {
			size += len(c.Text)
		}
		if a.Decision == Allow {
			t.Errorf("%d-byte nest allowed", len(line))
		}
		if size > maxTextBytes(len(line)) {
			t.Errorf("%d-byte line: %d bytes of command text", len(line), size)
		}
		t.Logf("%d bytes: %s in %v, %d commands, %d text bytes", len(line), a.Decision, took, len(a.Commands), size)
	}
}

// TestNoSuggestionForDenied: "allow forever" is never offered for a denied command.
func TestNoSuggestionForDenied(t *testing.T) {
	rs := CompileRules([]Rule{deny("git push *")})
	for _, line := range []string{"git push origin", "sudo git push", "git push; git push"} {
		if a := rs.Evaluate(line); len(a.Suggestions) != 0 {
			t.Errorf("%q: suggestions %s", line, strconv.Quote(strings.Join(a.Suggestions, "|")))
		}
	}
}

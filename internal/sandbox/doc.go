// Package sandbox turns an effective sandbox policy (sandbox.json, already merged by the
// caller) into a bubblewrap command line, runs commands under it, validates network
// allowlist entries, and decides whether a shell command line may run unsandboxed according
// to the policy's approval rules.
//
// # Planning
//
// [NewPlan] resolves every path once: a leading "~", "$HOME" or "${HOME}" becomes $HOME
// (no other variable is expanded; check warns), exactly "." becomes the workspace, and
// existing paths are replaced by their real path (bwrap refuses symlinked mount targets).
// Decision on relative paths (the reference passes them to bwrap unresolved, where they
// would silently resolve against pigo's own working directory): every other relative path
// is resolved against the workspace, so "build/out" in writablePaths means
// "<workspace>/build/out". A denyPaths entry is mounted by what it is, not how it is
// written: a directory gets a tmpfs, a file /dev/null (the reference mounts /dev/null over a
// directory written without "/", which makes bwrap fail every command). One that does not
// exist is skipped and listed in [Plan.Skipped]: it hides nothing. Build a plan per command
// (it is cheap) so that paths created in between are covered.
//
// The argv order is the reference one: bwrap's fixed namespace flags, writable binds, extra
// writable binds, the pinned directories, deny mounts, the hidden socket directories, --unshare-net (network
// "block"), the protected paths, --seccomp 3, extraArgs, /dev, /proc, then
// "-- /bin/bash -lc COMMAND". When both axes are "allow-all" nothing is sandboxed and the
// shell runs directly. The environment is always exactly five variables (HOME, SHELL, TERM,
// LANG, PATH); an unset HOME refuses to plan. bwrap itself runs outside the sandbox, so the
// plan never takes one a sandboxed command could have written ([trustedBinary]).
//
// # pigo's own policy is never writable from inside
//
// A sandboxed command must not be able to change what the next command runs under. The
// protected paths are the one protected list ([ProtectedList], which the file tools also
// ask about, [WriteProtected]): the workspace's .pi, .agent and .git, what a .git file
// points to (gitdir and commondir: a worktree's hooks and config), nested .git entries when
// the workspace has none, and the agent dir (global sandbox.json, settings, trust.json),
// given as [Policy.AgentDir] (made absolute: a relative --agent-dir never reaches the argv
// as a relative bind); and, when a writable bind covers them, the existing shell startup
// files and git config in $HOME (.bashrc, .profile, .zshrc, .gitconfig, ...), which the next
// unsandboxed "bash -lc" or git reads. fs "allow-all" drops the workspace's .pi, .agent and
// .git, as the reference does ("完全可写 … 不做 .pi / .agent / .git 保护绑定"); the agent dir
// and the startup files stay protected in every sandboxed mode, a deliberate addition (with
// the network still blocked, a command could otherwise rewrite the global sandbox.json and
// open the network for the next one). Otherwise they are protected whatever writablePaths
// says ("~" or "/" included):
//   - an existing path (file or directory) gets a read-only bind of its real path: nothing
//     inside can be written, and the mount point cannot be renamed or removed (EBUSY);
//   - the workspace and every directory above a protected path that lies in a writable bind
//     are bound onto themselves ([Plan.Pinned], as writable as before): renaming a directory
//     that only contains a mount point is allowed, so "mv ~/.pi ~/.pi.old; mkdir -p
//     ~/.pi/agent" would otherwise replace the agent dir; renaming a mount point is not;
//   - a missing one, when a writable bind would let the command create it, gets an empty
//     read-only tmpfs at its first missing component. bwrap needs a mount point on the host,
//     so [Run] creates it first as a placeholder directory (mode 0500 and sticky: readable,
//     and unlike anything a user makes), under a shared flock on its parent; after the run,
//     the last run holding the parent removes the placeholder if it is still an empty
//     placeholder. A placeholder left by a killed pigo is an empty directory, never a policy.
//     When the agent dir exists, is read-only in the sandbox and lies on the placeholders'
//     device, the placeholder directories are kept between runs in
//     <agent dir>/.sandbox-placeholders and renamed in and out instead of made and removed
//     (pool.go: an rmdir frees a block, which ext4 mounted with discard discards at once);
//     only an empty placeholder of pigo's user is ever taken from it or put back;
//   - a symbolic link cannot be covered (mounts follow links): its target is protected as
//     above, and [Run] checks the link after the run; when the command replaced or removed
//     it, the link is restored, what stood in its place is kept beside it
//     ("<path>.pigo-replaced-<time>") and [Result.Restored] says so. While that command runs,
//     a concurrent reader could see the replacement: the one window left, and only for
//     protected paths that are links.
//
// # A process limit
//
// One sandboxed command may have at most [MaxProcesses] tasks (1024, threads included): a
// wrapper shell that pigo runs before bwrap (nothing of the command in it yet) sets
// RLIMIT_NPROC and, where pigo may make one, joins a fresh pids cgroup with pids.max set,
// then becomes bwrap with exec, so every process of the sandbox is inside from its first
// fork. RLIMIT_NPROC is counted per user namespace and binds every user but root; the pids
// cgroup (cgroup v1's pids hierarchy, or v2 when pids is enabled below pigo's cgroup) binds
// root too. The cgroup is removed after the run; empty ones a killed pigo left are swept.
//
// # Unix sockets
//
// A network namespace does not isolate Unix sockets bound in the filesystem: with network
// "block" a sandboxed "tmux run-shell" or a docker socket would run code outside. In "block"
// and "limited" modes bwrap therefore gets a seccomp filter (--seccomp, see seccomp.go) that
// refuses socket(AF_UNIX), io_uring_setup and every system call of a foreign ABI with EPERM,
// and the directories where host sockets live (/run, /var/run, $XDG_RUNTIME_DIR,
// /tmp/tmux-*, /tmp/ssh-*, /tmp/dbus-*, /tmp/.X11-unix, ~/.docker/run) are hidden behind an
// empty tmpfs, except one that holds the workspace or a writable path. socketpair stays
// allowed: an anonymous pair reaches nothing outside. network.allowUnixSockets names sockets
// to bind back in; naming any lets the sandbox create Unix sockets again, so sockets outside
// the hidden directories become reachable too (said in the schema). On an architecture other
// than amd64 and arm64, [NewPlan] refuses rather than sandbox without the filter.
//
// # Network "limited"
//
// A limited network is validated (every allowlist entry, see [ValidateAllowlistEntry]) and
// planned: the argv gets the reference prefix "nsenter -U -n --preserve-credentials -t
// <HOLDER_PID> --" and no --unshare-net. Running it needs mihomo and slirp4netns; when either
// is missing, [Run] fails closed with the reference install message. pigo does not implement
// the per-command network stack (holder namespace, slirp4netns, mihomo DNS/proxy rules) yet,
// so even with both binaries present [Run] refuses a limited plan with [ErrLimitedNotImplemented]:
// nothing runs with a network the allowlist does not actually enforce.
//
// # What is enforced
//
// Enforced by bwrap: the read-only root, the writable binds, the protected paths, deny
// mounts, the hidden socket directories, the seccomp filter, a private PID namespace, a new
// session (no terminal injection), no network in "block" mode, and death with the parent.
// Enforced by [Run]: the clean environment, the placeholders and the link check, a process
// group killed with SIGKILL on timeout or cancellation, exit code 124 on timeout, and a
// bwrap set-up failure reported as [*SetupError] (the command did not run), never as the
// command's own failure. bwrap itself adds PWD to the five variables. A denied file is
// /dev/null mounted nodev, so reading it fails with "Permission denied" rather than reading
// empty. Not enforced: resource limits.
//
// Unsandboxed (both axes allow-all), there is no PID namespace: [Run] starts the shell
// through a helper, the running binary re-executed (see reaper.go), that is a child
// subreaper, so a grandchild that called setsid is still killed on timeout, on cancellation
// and when the shell ends. [Plan.OffNotice] is the line every caller prints once before
// running commands unsandboxed: the sandbox off is never silent.
//
// # Approval rules
//
// [Rules.Evaluate] parses a command line with mvdan.cc/sh (bash dialect) and flattens every
// simple command, parent before child: pipelines, && || ; chains, subshells, brace groups,
// control structures, functions, $(...), backticks, process substitutions, and words inside
// redirections and heredocs. Declarations (export, local, declare), [[ ]], (( )) and let count
// as commands too. Each command's raw source text is matched against every rule ("*" any run
// of characters, "?" one character, a trailing " *" optional, anchored, newlines included);
// the last matching rule decides for that command. Any deny → deny; otherwise a file-output
// redirection anywhere (> >> >| &> &>> <> and >&FILE; not 2>&1, not <) → ask; otherwise allow
// only when every command was allowed. A parse failure or a line with no command → ask.
//
// Decisions beyond the reference, all towards caution (codex's execpolicy is the bar: what
// cannot be analysed is asked, never allowed):
//   - Where the parser and bash could disagree, the line asks ([Approval.Unsafe]): a carriage
//     return outside quotes, a comment ending in a backslash (bash ends the comment at the
//     newline; mvdan.cc/sh joins the next line into it, so "git status # \⏎git push" looked
//     like one allowed command), a CRLF anywhere (the parser drops the CR even inside
//     quotes, so a quoted eval or sh -c script differs), a NUL byte, invalid UTF-8.
//   - Code that runs without being a command asks: arithmetic ($((x)), ((x)), let, for ((…)),
//     [[ $x -eq 1 ]], ${a[$i]}, ${s:$n}, a[$i]=…) on a variable the line itself may give a
//     non-numeric value (an assignment, read, for-in, mapfile, ${x:=…}, source, or one bash
//     sets from the line such as $_ or $PWD), or on a substitution, a parameter ($1) or a
//     quoted word: bash evaluates the value again and "a[$(cmd)]" runs cmd. A variable the
//     line does not set comes from the clean environment, the user's, and a counter
//     ("i=0; i=$((i+1))") stays allowed. Also ${x@P}, ${!x}, declare -i, a redirection that
//     is or could be /dev/tcp or /dev/udp, a shell reading its script from stdin.
//   - Assignments that change what later commands run ask, as a prefix, a statement or a
//     declaration (export, declare, read, printf -v, a name reference): PATH, HOME, IFS, ENV,
//     BASH_ENV, SHELLOPTS, PS4, LD_*, GIT_*, PYTHON*, NODE_OPTIONS, *PATH, … ("FOO=1" and
//     "LANG=C" do not); so do set -o posix and shopt -s expand_aliases (aliases).
//   - A command with a word pigo cannot read ("git $sub", "$c", "{rm,-rf,x}", a glob) is
//     never allowed when some expansion could make it match a deny rule.
//   - Deny rules also look through wrappers: "sudo git push", "env git push", "xargs git
//     push", "command git push" and "find . -exec git push \;" are denied by "git push *"
//     (the reference asks); "xargs git" asks, since its words come from stdin, and so does
//     "env PATH=/tmp git status".
//   - eval, trap's action, "sh -c" and "su -c" (also behind a wrapper) are analysed
//     recursively; "source /dev/stdin", "bash /dev/stdin" and a shell fed by a pipe ask.
//   - [[ -v a[$x] ]] asks (the subscript is arithmetic).
//   - Deciding is linear in the line: at most 1000 commands and 4× the line (plus 64 KiB) of
//     command text; past that the line asks. A 5,000-deep $(…) nest is decided in
//     milliseconds.
//   - "Allow forever" is suggested only for commands left undecided, never for a denied or
//     unreadable one.
//   - Nested scripts: the argument of eval (all arguments joined by spaces) and the -c string
//     of bash, sh, dash, zsh and ksh are parsed as scripts and their commands flattened after
//     the outer command. When the script is not a literal (it contains an expansion) or does
//     not parse, the outer command is marked opaque and can never be allowed (ask).
//   - Allow matches the raw text only. Deny also matches a normalised text: assignments
//     dropped, quotes and backslashes removed from literal words, line continuations and
//     repeated blanks collapsed, a command path reduced to its base name. So "A=1 git push",
//     `g"i"t push`, "git \<newline> push" and "/usr/bin/git push" are all denied by
//     "git push *", while "git *" allows none of them except "git push" written plainly.
//   - Allow rules match the wrapper as written: "sudo git status" needs a rule for sudo.
//   - A command whose name is not a plain literal ("$X", "$(echo rm) -rf /") is matched as
//     written; only a pattern such as "*" can allow it.
//
// Suggestions for "allow forever" follow the reference BashArity table ([Suggest]).
package sandbox

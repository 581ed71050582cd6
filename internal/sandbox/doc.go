// Package sandbox turns an effective sandbox policy (sandbox.json, already merged by the
// caller) into a bubblewrap command line, runs commands under it, validates network
// allowlist entries, and decides whether a shell command line may run unsandboxed according
// to the policy's approval rules.
//
// # Planning
//
// [NewPlan] resolves every path once: a leading "~" becomes $HOME, exactly "." becomes the
// workspace, and existing paths are replaced by their real path (bwrap refuses symlinked
// mount targets). Decision on relative paths (the reference passes them to bwrap unresolved,
// where they would silently resolve against pigo's own working directory): every other
// relative path is resolved against the workspace, so "build/out" in writablePaths means
// "<workspace>/build/out". A denyPaths entry that does not exist when the plan is made is
// skipped and listed in [Plan.Skipped]: bwrap cannot mount over a missing target inside a
// read-only root, and inside a writable one it would create the path on the host. Build a
// plan per command (it is cheap) so that paths created in between are covered.
//
// The argv order is the reference one: bwrap's fixed namespace flags, writable binds, extra
// writable binds, deny mounts, --unshare-net (network "block"), read-only binds over the
// protected paths (.pi, .agent and .git — the workspace's own .git when it exists, else
// nested .git entries found by a bounded scan), extraArgs, /dev, /proc, then
// "-- /bin/bash -lc COMMAND". When both axes are "allow-all" nothing is sandboxed and the
// shell runs directly. The environment is always exactly five variables (HOME, SHELL, TERM,
// LANG, PATH); an unset HOME refuses to plan.
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
// Enforced by bwrap: the read-only root, the writable binds, the read-only protected paths,
// deny mounts (a tmpfs over directories, /dev/null over files), a private PID namespace, a
// new session (no terminal injection), no network in "block" mode, and death with the parent.
// Enforced by [Run]: the clean environment, a process group killed with SIGKILL on timeout or
// cancellation, exit code 124 on timeout. bwrap itself adds PWD to the five variables. A denied
// file is /dev/null mounted nodev, so reading it fails with "Permission denied" rather than
// reading empty: the content never shows either way. Not enforced: a protected path that does not exist
// yet (.pi, .agent) can be created by a sandboxed command in "workspace-write" mode, as in the
// reference; resource limits; seccomp.
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
// Decisions beyond the reference, all towards caution:
//   - Nested scripts: the argument of eval (all arguments joined by spaces) and the -c string
//     of bash, sh, dash, zsh and ksh are parsed as scripts and their commands flattened after
//     the outer command. When the script is not a literal (it contains an expansion) or does
//     not parse, the outer command is marked opaque and can never be allowed (ask).
//   - Allow matches the raw text only. Deny also matches a normalised text: assignments
//     dropped, quotes and backslashes removed from literal words, line continuations and
//     repeated blanks collapsed, a command path reduced to its base name. So "A=1 git push",
//     `g"i"t push`, "git \<newline> push" and "/usr/bin/git push" are all denied by
//     "git push *", while "git *" allows none of them except "git push" written plainly.
//   - Wrappers (sudo, env, xargs, nohup) are not unwrapped (time and coproc are shell syntax and are): "sudo git push"
//     is not denied by "git push *" — it asks, unless a rule allows "sudo *".
//   - A command whose name is not a plain literal ("$X", "$(echo rm) -rf /") is matched as
//     written; only a pattern such as "*" can allow it.
//
// Suggestions for "allow forever" follow the reference BashArity table ([Suggest]).
package sandbox

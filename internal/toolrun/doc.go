// Package toolrun is the one execution path for tool calls (spec D16): the agent loop, `pigo
// tool run` and codemode all call [Runner.Run], so every caller gets the same lookup,
// argument handling, bookkeeping and texts.
//
// # Binding
//
// Declarations come from the resolved registry ([engine.Result]); implementations are bound
// to them by toolset and name through [Impls] (package tools registers them: pi's `read`,
// opencode's `read` and claude-code's `Read` are three implementations). [ToolsetOf] maps a
// registry source onto the namespace: "builtin" → "pi", "toolset:X" → "X"; a declarative
// extension tool (no namespace) runs through [Impls.Exec] when it declares an `exec` argv
// template. Only tools in state active or codemode-only are callable. [Runner.LLMTools] is the
// model-visible list: the active tools in order, with their declared schemas.
//
// # One call
//
// [Runner.Run] does what pi's agent loop does before and around execute:
//  1. look the name up (`Tool <name> not found`);
//  2. the implementation's Prepare (pi's prepareArguments, e.g. edit's legacy shapes);
//  3. pi-ai's validateToolArguments: optional nulls dropped, TypeBox Value.Convert coercion
//     ("5" → 5), then validation against the declared JSON Schema with TypeBox's messages and
//     pi's text (`Validation failed for tool "<name>":\n  - <path>: <msg>\n\nReceived
//     arguments:\n<the prepared arguments as JSON.stringify(args, null, 2)>`), see [Schema];
//  4. the implementation's Execute with the context (cancel it to abort) and a progress
//     callback (pi's onUpdate). A returned error is a result with the error's message as its
//     only text and empty details, as pi makes of a thrown error; a panic is recovered into
//     the same kind of result, so a tool never takes the process down.
//
// codemode makes its nested calls on the same Runner ([Invocation.Runner]) over
// [Runner.CodemodeCallable]; an [Impl.Describe] computes its description from the bound
// registry; [WithApprover] makes a context's calls answer dialogs with codemode's refusal.
//
// The agent loop runs pi's steps one by one (prepare, its beforeToolCall hook, execute), so
// Run is also available in two halves: [Runner.PrepareCall] and [Runner.ExecutePrepared].
//
// Arguments are kept as an order-preserving [Value] until validation passes, so the echo of
// received arguments keeps the model's key order, then handed to the implementation as JSON
// ([Invocation.Decode]).
//
// # Session state
//
// [Session] is what the tools share: the workspace, agent dir, headless flag, sandbox policy
// and approval rules, the [Approver] (the chat implements the dialogs; headless refuses with
// the reference texts), the [LSP] hook, pi's shell settings and PI_* environment, and:
//   - the per-file mutation queue ([Session.WithFile]), keyed like the read state, so writers
//     of one file run one after another and different files in parallel;
//   - the read-before-write state, one [Reads] per toolset (reference §1.4): sha256 of the
//     whole file keyed by [ReadKey] (the real path a write would land on), the strict and
//     lenient checks with the exact texts, the `details.reads` entry each recording tool
//     returns, and [Session.Replay] from a branch's toolResult messages;
//   - the one write path ([Session.WriteFile], spec D27): every tool that writes a file calls
//     it. Under the file's lock it resolves the target from directory handles, component by
//     component ([safefile.Resolve]: a dangling link is judged by where it leads, a link
//     swapped in afterwards cannot redirect the write), reads the old content (regular files
//     only, at most [MaxWholeFile]), runs the read check, computes the new content, runs the
//     write guard, the [WriteHook]s /rewind uses, the atomic write (mode kept) and the LSP
//     hook. [Session.PrepareAll] prepares several files before writing any (lsp-rename);
//   - the write guard (reference §1.5): free inside the workspace or /tmp, decided on the
//     real target — a symlink inside the workspace that points outside is outside, a
//     deliberate tightening of the seed, which compares the paths as written — and off the
//     protected list (the workspace's .pi, .agent and .git, the agent dir, trust.json;
//     [sandbox.WriteProtected], the list bash is kept away from). Otherwise a person is
//     asked: headless refuses with `Path "<abs>" is outside workspace. No UI available for
//     approval.` (or `is protected (<why>)`), a typed [Refusal]; the dialog shows [Preview],
//     a unified diff (2 context lines, at most 100 lines, fenced longer than any backtick
//     run inside), and the real target when a link leads elsewhere. The read check and the
//     new content come first, so a match or read error surfaces before any dialog.
package toolrun

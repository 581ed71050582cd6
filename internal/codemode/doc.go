// Package codemode is the seed's codemode (spec D21, reference runtime-behaviour §3): the
// model writes the body of an async JavaScript function, the script calls the structured
// tools through `call(name, args)`, and only what it prints or returns enters the context.
//
// # Engine
//
// Every run gets a fresh modernc.org/quickjs VM (pure Go QuickJS) in a pigo-engines helper
// process of its own (the `js` engine, internal/codemode/jsvm; D25.22): pigo does not link
// QuickJS, whose package initialisation cost every pigo start. The helper is the counterpart
// of the seed's worker thread: a 64 MiB VM heap (an allocation loop ends as
// `InternalError: out of memory` with the host alive), QuickJS's default stack limit (deep
// recursion is `InternalError: stack overflow`), an address-space limit behind both, and an
// empty environment. Abort or the `timeout_ms` option kills the helper, so even
// `while(true){}` stops, and [Run] returns only after every nested call it started has
// returned. The protocol (internal/codemode/jswire) carries the script, its tool calls and
// their answers, its output and its outcome; tool dispatch, the store, discovery and every
// text stay in pigo. The VM has no host APIs: no modules, timers, fs or network; the one host
// function, the bridge, is taken off the global object by the prelude (jsvm/prelude.js) and
// kept in its closure. The script is wrapped as `(async () => {<code>\n})`, the prefix on
// line 1, so reported line numbers are the user's.
//
// The prelude defines the seed's script API: `call`, `CallFailedError`, `ALL_TOOLS`,
// `fs.read`/`fs.write` (bridged calls named "fs.read"/"fs.write"), `text`, `image`, `exit`,
// `console.*`, `store.get/set/list` (256 KiB per value, 1 MiB in all) and `sleep(seconds)`.
// Arguments and results cross the bridge as JSON text. After the job queue drains, a
// script that has not finished and has no call or sleep pending has stalled and ends with
// the seed's text.
//
// # The tool
//
// [Tool] is the codemode tool on top of the engine: the `// @options:` header ([ParseSource]),
// the callable set (the runner's codemode-callable tools; anything else is refused with the
// seed's text), the description rendered from the tools' schemas ([Describe]), the output
// budget with head/tail cut and spill file, `details.calls|store|reads`, the failure texts,
// and the store, replayed from the codemode results of the branch. Nested calls go through
// the same [toolrun.Runner] as direct ones (same validation, read state, write guard and
// sandbox); a call that would open a dialog fails instead, since nobody can be asked from
// inside a script (the seed README's choice).
package codemode

// Package approve is every question a person answers during a session (spec D27): a write
// outside the workspace or into a protected path, a command that asks to leave the sandbox,
// and the model's own questions (AskUserQuestion, question). One [Request] type goes in, one
// [Decision] comes out, and one interface, [Approver], answers it — the chat implements it
// with its dialogs, and that is all a front end implements.
//
// What is not a person's answer is a decorator around an Approver, composed in one place
// ([New]) in this order, outermost first:
//
//   - [Headless]: nobody can be asked (`pigo -p`, `pigo tool run`, no terminal); every request
//     is refused with the reference text its caller put in [Request.NoUI], as a [Refusal];
//   - [Remember]: "for this session" — a write path or a command allowed for the session is
//     not asked again until the session ends (kept in memory only, never written);
//   - the persistence hook: the "always allow" patterns a person ticked are handed to a save
//     function the application supplies (it writes sandbox.json), on the tool's goroutine,
//     never in a UI's event loop, and added to the running [Rules] under their lock.
//
// [Nested] is the decorator for calls a codemode script makes: writes and commands are
// refused with codemode's text (nobody can be asked from inside a script), questions go on.
//
// [Rules] holds the running approval rules (sandbox.json approvalRules) that every command
// escalation evaluates; [Rules.Add] swaps them under a lock while tool calls read them.
//
// The texts a model sees are the callers' (reference texts, byte for byte): a refusal's
// error text is exactly what the caller put in the request, and the callers turn a choice into
// their own texts. This package has no I/O of its own.
package approve

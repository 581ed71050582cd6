// Package app is a running session as one object (spec D27): a [Session] owns the agent,
// the tool runner and its tool session, the session file, the language servers, talk and the
// approvals. `pigo -p`, the chat and `pigo tool run` all drive it; the command line only turns
// flags into [Options] and results into output and exit codes.
//
// # Opening
//
// The command line loads the configuration (package config, the only one that links CUE) and
// hands the session values: [Setup] (the resolved registry and commands, the model's facts,
// the sandbox policy, the settings, the system prompt, lsp.json, describe_image's model,
// spawn-agent's roster) and a [Config] to read the files again (/reload, /model, saving an
// "always allow" rule). [Open] then opens the session file the flags name ([SessionSpec]),
// resolves the model and thinking level, binds the tools, starts talk when a talk tool is
// active and builds the agent. A front end passes a [Frontend] (the agent's events and the
// session's notices) and, when a person can answer, an approve.Approver (the dialogs); without
// one every question is refused with the reference texts (`pigo -p`).
//
// # Driving
//
//   - [Session.Prompt] handles one input as pi's prompt() does: a dispatcher command, else an
//     extension command / `/skill:` / prompt template, else a model turn;
//   - [Session.Steer], [Session.FollowUp] and [Session.Abort] act on the running prompt from
//     any goroutine;
//   - [Session.Run] runs a command by name, [Session.Pick] computes its selector,
//     [Session.Lookup] tells whether it exists and whether it needs a person;
//   - [Session.NewSession], [Session.Fork], [Session.Resume], [Session.Navigate],
//     [Session.SwitchModel], [Session.Compact], [Session.Reload], [Session.UserBash] are the
//     operations behind pi's commands, callable directly;
//   - [Session.RunTool] is one tool call through the one execution path (`pigo tool run`);
//   - [Session.Close] waits for background work and closes the file, talk and LSP.
//
// Every change of session file, leaf, model, settings or system prompt rebuilds the agent in
// one place (the agent reads the conversation from the session file); the first error writing
// the file is kept ([Session.StoreErr]) across rebuilds.
//
// # Adding a command
//
// Commands live in one list, builtinCommands in commands.go, one [Command] value each: a
// name, whether it needs a person ([Command.Interactive]: pi's built-ins, which `pigo -p` sends
// to the model as text), an optional availability test, an optional selector ([Command.Pick],
// opened by the chat when the command is typed without an argument) and Run, which gets the
// Session and the argument text and returns a [Result] (a status text, text for the editor,
// and whether the conversation must be redrawn). Put a family of commands in its own file
// (host.go has pi's session commands; talk's are built from talkCommands) and add it to that
// list; both the chat and `pigo -p` see it at once.
//
// # Approvals
//
// The tools ask through package approve: the session composes its Approver once (headless
// refusal, "for this session" memory, the "always allow" hook that saves through
// [Config.SaveAllow] on the asking tool's goroutine and adds the rule to the running rules
// under their lock) and gives it to the tool session; a front end implements the one method
// of approve.Approver and does no I/O for it.
//
// This package links no CUE (a test checks the import graph).
package app

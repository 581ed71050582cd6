// Package lsp plans and runs the language servers that lsp.json declares.
//
// It has two halves. Planning (ParseConfig, Config.Plan) is pure apart from
// the few commands the config asks to run ({sh: [...]} env values and
// initializationOptionsCommand): it decides, for one file, which servers
// handle it, where their root is, how they are spawned and with what
// environment and options. The client half (Diagnostics, Client) speaks
// JSON-RPC 2.0 over stdio with Content-Length framing to a real server,
// opens the file and collects the diagnostics it publishes.
//
// # Trust and the sandbox
//
// Language servers run outside the sandbox, as in the seed: they read the
// whole workspace, keep caches in the user's home and download modules, which
// the sandbox forbids; and they are the user's configuration, not the
// model's. What keeps the model from choosing what runs there: a project's
// lsp.json applies only when the project is trusted, a sandboxed command can
// never write .pi (see package sandbox), and bin discovery looks in the
// project (node_modules/.bin, .venv/bin, venv/bin, a relative bin, PATH
// entries inside it) only when Config.ProjectTrusted is set. `pigo lsp plan`
// plans with Config.DeferCommands: it runs neither {sh} env values nor
// initializationOptionsCommand, only lists them.
//
// The caller hands over the already merged lsp.json (global and project,
// comments removed); merging and position-aware reporting belong to the
// config loader and `pigo check`, which can call the pure checks exported
// here (ValidateDuration, CheckExclusive, CheckEnabled).
package lsp

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
// The caller hands over the already merged lsp.json (global and project,
// comments removed); merging and position-aware reporting belong to the
// config loader and `pigo check`, which can call the pure checks exported
// here (ValidateDuration, CheckExclusive, CheckEnabled).
package lsp

// Package aft runs AFT (agent-file-tools, github.com/cortexkit/aft), the code-aware engine
// behind the seed's read-only aft_outline, aft_zoom, aft_callgraph and aft_search tools.
//
// Three concerns, one file each:
//   - find.go: the binary, looked for in the seed bridge's order (the cache its GitHub-release
//     download fills, the npm platform package @cortexkit/aft-<os>-<arch>, PATH, cargo's bin
//     folder). pigo never downloads it: a missing binary is a session-start warning.
//   - config.go: the user-level aft.jsonc (~/.config/cortexkit/aft.jsonc, else the older
//     <agent dir>/aft.jsonc): its `enabled` switch and the gate of aft_search (semantic_search
//     with an external embedding backend).
//   - client.go: one resident `aft` process per session, spoken to in its NDJSON protocol
//     (one JSON request per line on stdin, `{"id","command",...}`; responses carry the same id
//     and `success`; lines without an id are pushed frames). The process starts on the first
//     call, is configured for the session's workspace, writes its log to
//     <agent dir>/tmp/<session id>/aft-plugin.log and ends with the session.
//
// The package knows the protocol, not the tools: internal/tools turns a tool's arguments into
// a `tool_call` request and its response into a result.
package aft

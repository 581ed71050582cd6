package toolrun

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"sort"

	"github.com/pigo-agent/pigo/internal/lazy"
)

//go:generate env UPDATE_GOLDEN=1 go test -run TestShippedModelSchemasFresh .

// modelSchemasTSV is every shipped parameters schema with its model rendering (typeboxOrder's,
// see Tool.modelSchema), one line each, sorted by the declared bytes: DECLARED \t MODEL, MODEL
// empty when it is the declared bytes (compact JSON has no tabs or newlines). Generated from
// the catalogue at `go generate` time; TestShippedModelSchemasFresh renders it again and
// compares. One embedded file, so that the lookups touch a few contiguous pages (the same
// table as Go string constants was spread over the binary's strings, sorted by length: its
// page faults cost ~0.1 ms of the first request).
//
//go:embed modelschemas.tsv
var modelSchemasTSV []byte

// modelEntry is one line of modelSchemasTSV, sliced from it.
type modelEntry struct{ declared, model []byte }

// shippedModels indexes modelSchemasTSV (built on first use: one pass over ~45 KB).
var shippedModels = lazy.Value[[]modelEntry]{New: func() []modelEntry {
	out := make([]modelEntry, 0, bytes.Count(modelSchemasTSV, []byte("\n")))
	for rest := modelSchemasTSV; len(rest) > 0; {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		d, m, _ := bytes.Cut(line, []byte("\t"))
		if len(m) == 0 {
			m = d
		}
		// Capped at their length: a caller's append cannot reach the next line.
		out = append(out, modelEntry{d[:len(d):len(d)], m[:len(m):len(m)]})
	}
	return out
}}

// shippedModelSchema is the model schema of a declared parameters schema that is one of the
// shipped toolsets' (modelSchemasTSV): a session's first request offers ~20 such tools, and
// parsing, reordering and writing their schemas again was ~0.3-0.4 ms of it (the request did
// it itself when warmTools' goroutine had not started yet). The rendering is a pure function
// of the declared bytes, so any schema equal to a shipped one, whoever declares it, gets the
// same bytes; any other is rendered as before. The result is the table's bytes, read-only as
// the declared schemas are (the catalogue's are slices of its embedded schemas.tsv too).
func shippedModelSchema(declared []byte) (json.RawMessage, bool) {
	if len(declared) == 0 {
		return nil, false
	}
	ms := shippedModels.Get()
	i := sort.Search(len(ms), func(i int) bool { return bytes.Compare(ms[i].declared, declared) >= 0 })
	if i == len(ms) || !bytes.Equal(ms[i].declared, declared) {
		return nil, false
	}
	return ms[i].model, true
}

// Package session reads and writes pi's session files: JSONL version 3, one header line and
// then a tree of entries (8-hex ids, parentId links), appended one fsync'd line at a time.
// It knows entries, the tree, pi's directory layout and how the LLM context is built from the
// current branch; it knows nothing about the agent loop.
//
// Files pigo writes open in pi and pi's files open here: field names and their order are pi's
// (core/session-manager.js, core/messages.js), and lines read from a file are written back
// byte for byte when pi itself would rewrite the file.
package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Version is the session file format version pi 0.84 writes.
const Version = 3

// Entry types.
const (
	TypeSession             = "session"
	TypeMessage             = "message"
	TypeModelChange         = "model_change"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
)

// Header is a session file's first line. It is not part of the tree.
type Header struct {
	Type      string `json:"type"`
	Version   int    `json:"version"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Cwd       string `json:"cwd"`
	// ParentSession is the path of the session this one was forked from.
	ParentSession string `json:"parentSession,omitempty"`

	raw []byte
}

// Entry is one tree entry. Type says which of the type-specific fields are set. ParentID is
// "" for a root (written as null).
//
// The fields of the entry types other than message are in EntryData, behind a pointer: a
// long session is nearly all message entries, and those fields made every entry 368 bytes
// (112 now; a loaded session kept 2.32× its file). EntryData is nil only on a message entry
// that has none of them (reading one of its fields there panics: check Type first, as every
// reader does); every other entry read from a file or appended has one.
type Entry struct {
	Type      string
	ID        string
	ParentID  string
	Timestamp string

	// message
	Message *Message

	*EntryData

	// rawp and rawn are the line as read from the file, what gets written back (raw): its
	// start and length, without a slice's capacity, so that an entry is 96 bytes and an
	// LLM message entry one 416-byte allocation (D25.23).
	rawp *byte
	rawn uint32
	// parent is the position plus one, in its session's entries, of the entry ParentID
	// names (0: none), resolved when the entry is indexed, so that a walk up the tree
	// follows positions instead of looking each id up (Session.stale says when they must
	// be resolved again).
	parent uint32
}

// raw is the line the entry was read from (nil: none, the entry is encoded).
func (e *Entry) raw() []byte {
	if e.rawp == nil {
		return nil
	}
	return unsafe.Slice(e.rawp, e.rawn)
}

// setRaw makes b the entry's line. Lines are bounded by MaxLineBytes; one of 4 GiB or more
// cannot be held.
func (e *Entry) setRaw(b []byte) {
	if len(b) > math.MaxUint32 {
		panic("session: an entry line of 4 GiB or more")
	}
	e.rawp, e.rawn = unsafe.SliceData(b), uint32(len(b))
}

// EntryData holds the fields of the entry types other than message.
type EntryData struct {
	// model_change
	Provider string
	ModelID  string

	// thinking_level_change
	ThinkingLevel string

	// compaction and branch_summary
	Summary string
	// FirstKeptEntryID is where a compaction's kept history starts.
	FirstKeptEntryID string
	TokensBefore     int
	// FromID is the leaf a branch summary came back from ("root" when there was none).
	FromID string
	// Details, Usage: free-form JSON (compaction details are {readFiles, modifiedFiles}).
	Details  json.RawMessage
	Usage    json.RawMessage
	FromHook *bool

	// custom and custom_message
	CustomType string
	// Data is a custom entry's payload (not part of the context).
	Data json.RawMessage
	// Content is a custom_message's content: a JSON string or an array of text/image blocks.
	Content json.RawMessage
	Display bool

	// label
	TargetID string
	// Label is the label text; nil clears the target's label.
	Label *string

	// session_info
	Name string
}

// noData is what data returns for an entry without EntryData: only read.
var noData EntryData

// data is the entry's type-specific fields for reading (zero when it has none).
func (e *Entry) data() *EntryData {
	if e.EntryData != nil {
		return e.EntryData
	}
	return &noData
}

// fields is the entry's type-specific fields for writing, made when it has none.
func (e *Entry) fields() *EntryData {
	if e.EntryData == nil {
		e.EntryData = new(EntryData)
	}
	return e.EntryData
}

// Timestamp returns t as JavaScript's Date.toISOString does (UTC, milliseconds, "Z").
func Timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// ParseTimestamp parses an ISO timestamp as pi writes it (also accepting any RFC 3339 form).
func ParseTimestamp(s string) (time.Time, error) {
	return time.Parse(time.RFC3339Nano, s)
}

// appendLLMMessage appends a message entry holding an LLM message, as MarshalJSON's struct
// for it writes the envelope (type, id, parentId, timestamp, message) and
// llm.AppendMessageJSON the message: the session's most frequent line, written without
// encoding/json's reflection on the turn's path.
func (e *Entry) appendLLMMessage(b []byte) ([]byte, error) {
	b = append(e.appendEnvelope(b), `,"message":`...)
	b, err := llm.AppendMessageJSON(b, e.Message.LLM)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendEnvelope appends the keys every entry starts with, as MarshalJSON's structs write
// them: {"type":…,"id":…,"parentId":… or null,"timestamp":… (no closing brace).
func (e *Entry) appendEnvelope(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = llm.AppendJSString(b, e.Type)
	b = append(b, `,"id":`...)
	b = llm.AppendJSString(b, e.ID)
	b = append(b, `,"parentId":`...)
	if e.ParentID == "" {
		b = append(b, "null"...)
	} else {
		b = llm.AppendJSString(b, e.ParentID)
	}
	b = append(b, `,"timestamp":`...)
	return llm.AppendJSString(b, e.Timestamp)
}

// nullable writes "" as JSON null.
type nullable string

func (n nullable) MarshalJSON() ([]byte, error) {
	if n == "" {
		return []byte("null"), nil
	}
	return marshal(string(n))
}

// MarshalJSON writes the entry with pi's field order (the order of the object literals in
// session-manager.js), or the bytes it was read from.
func (e *Entry) MarshalJSON() ([]byte, error) {
	if raw := e.raw(); raw != nil {
		return raw, nil
	}
	p := nullable(e.ParentID)
	var v any
	d := e.data()
	switch e.Type {
	case TypeMessage:
		if e.Message != nil && e.Message.raw == nil && e.Message.LLM != nil {
			return e.appendLLMMessage(nil)
		}
		v = struct {
			Type      string   `json:"type"`
			ID        string   `json:"id"`
			ParentID  nullable `json:"parentId"`
			Timestamp string   `json:"timestamp"`
			Message   *Message `json:"message"`
		}{e.Type, e.ID, p, e.Timestamp, e.Message}
	case TypeModelChange:
		b := append(e.appendEnvelope(nil), `,"provider":`...)
		b = llm.AppendJSString(b, d.Provider)
		b = append(b, `,"modelId":`...)
		return append(llm.AppendJSString(b, d.ModelID), '}'), nil
	case TypeThinkingLevelChange:
		b := append(e.appendEnvelope(nil), `,"thinkingLevel":`...)
		return append(llm.AppendJSString(b, d.ThinkingLevel), '}'), nil
	case TypeCompaction:
		v = struct {
			Type             string          `json:"type"`
			ID               string          `json:"id"`
			ParentID         nullable        `json:"parentId"`
			Timestamp        string          `json:"timestamp"`
			Summary          string          `json:"summary"`
			FirstKeptEntryID string          `json:"firstKeptEntryId"`
			TokensBefore     int             `json:"tokensBefore"`
			Details          json.RawMessage `json:"details,omitempty"`
			Usage            json.RawMessage `json:"usage,omitempty"`
			FromHook         *bool           `json:"fromHook,omitempty"`
		}{e.Type, e.ID, p, e.Timestamp, d.Summary, d.FirstKeptEntryID, d.TokensBefore, d.Details, d.Usage, d.FromHook}
	case TypeBranchSummary:
		v = struct {
			Type      string          `json:"type"`
			ID        string          `json:"id"`
			ParentID  nullable        `json:"parentId"`
			Timestamp string          `json:"timestamp"`
			FromID    string          `json:"fromId"`
			Summary   string          `json:"summary"`
			Details   json.RawMessage `json:"details,omitempty"`
			Usage     json.RawMessage `json:"usage,omitempty"`
			FromHook  *bool           `json:"fromHook,omitempty"`
		}{e.Type, e.ID, p, e.Timestamp, d.FromID, d.Summary, d.Details, d.Usage, d.FromHook}
	case TypeCustom:
		v = struct {
			Type       string          `json:"type"`
			CustomType string          `json:"customType"`
			Data       json.RawMessage `json:"data,omitempty"`
			ID         string          `json:"id"`
			ParentID   nullable        `json:"parentId"`
			Timestamp  string          `json:"timestamp"`
		}{e.Type, d.CustomType, d.Data, e.ID, p, e.Timestamp}
	case TypeCustomMessage:
		content := d.Content
		if len(content) == 0 {
			content = json.RawMessage("[]")
		}
		v = struct {
			Type       string          `json:"type"`
			CustomType string          `json:"customType"`
			Content    json.RawMessage `json:"content"`
			Display    bool            `json:"display"`
			Details    json.RawMessage `json:"details,omitempty"`
			ID         string          `json:"id"`
			ParentID   nullable        `json:"parentId"`
			Timestamp  string          `json:"timestamp"`
		}{e.Type, d.CustomType, content, d.Display, d.Details, e.ID, p, e.Timestamp}
	case TypeLabel:
		v = struct {
			Type      string   `json:"type"`
			ID        string   `json:"id"`
			ParentID  nullable `json:"parentId"`
			Timestamp string   `json:"timestamp"`
			TargetID  string   `json:"targetId"`
			Label     *string  `json:"label,omitempty"`
		}{e.Type, e.ID, p, e.Timestamp, d.TargetID, d.Label}
	case TypeSessionInfo:
		v = struct {
			Type      string   `json:"type"`
			ID        string   `json:"id"`
			ParentID  nullable `json:"parentId"`
			Timestamp string   `json:"timestamp"`
			Name      string   `json:"name"`
		}{e.Type, e.ID, p, e.Timestamp, d.Name}
	default:
		return nil, fmt.Errorf("session: cannot write an entry of unknown type %q", e.Type)
	}
	return marshal(v)
}

// UnmarshalJSON reads any entry; unknown types are kept (and written back) as they are.
func (e *Entry) UnmarshalJSON(b []byte) error {
	d, err := decodeEntry(append([]byte(nil), b...))
	if err != nil {
		return err
	}
	*e = *d
	return nil
}

// marshal encodes like JSON.stringify: no HTML escaping, U+2028 and U+2029 left as they are.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return unescapeLineSeparators(b), nil
}

// unescapeLineSeparators turns Go's \u2028 and \u2029 escapes back into the characters, as
// JSON.stringify writes them. An escaped backslash before "u2028" is left alone.
func unescapeLineSeparators(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u202`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+1 < len(b) {
			if b[i+1] == 'u' && i+5 < len(b) && string(b[i+2:i+5]) == "202" && (b[i+5] == '8' || b[i+5] == '9') {
				if b[i+5] == '8' {
					out = append(out, "\u2028"...)
				} else {
					out = append(out, "\u2029"...)
				}
				i += 5
				continue
			}
			out = append(out, b[i], b[i+1])
			i++
			continue
		}
		out = append(out, b[i])
	}
	return out
}

// MarshalJSON writes the header as pi does, or the bytes it was read from.
func (h *Header) MarshalJSON() ([]byte, error) {
	if h.raw != nil {
		return h.raw, nil
	}
	// Written directly, as the struct's fields would be (the first line of every new file).
	b := append([]byte(`{"type":`), llm.AppendJSString(nil, h.Type)...)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(h.Version), 10)
	b = append(b, `,"id":`...)
	b = llm.AppendJSString(b, h.ID)
	b = append(b, `,"timestamp":`...)
	b = llm.AppendJSString(b, h.Timestamp)
	b = append(b, `,"cwd":`...)
	b = llm.AppendJSString(b, h.Cwd)
	if h.ParentSession != "" {
		b = append(b, `,"parentSession":`...)
		b = llm.AppendJSString(b, h.ParentSession)
	}
	return append(b, '}'), nil
}

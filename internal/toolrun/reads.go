package toolrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"

	"github.com/pigo-agent/pigo/internal/jsonesc"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/safefile"
)

// The read-before-write refusals (reference §1.4), byte for byte.
const (
	TextNotRead  = "File has not been read yet. Read it first before writing to it."
	TextModified = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
	textBinary   = "Cannot edit or overwrite a binary file with a text tool: "
)

// Snapshot is what a read recorded about a file: the sha256 of all its bytes and whether a
// text tool may rewrite it (an image read is not text-editable).
type Snapshot struct {
	Digest       string `json:"digest"`
	TextEditable bool   `json:"textEditable"`
}

// Reads is one toolset's read-before-write state, keyed by ReadKey.
type Reads struct {
	mu sync.Mutex
	m  map[string]Snapshot
}

// Digest is the hex sha256 of b.
func Digest(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// ReadKey is the state key of path: the real path a write to it would land on
// ([safefile.Resolve]: links resolved component by component, a dangling link followed to
// where it leads, the missing rest joined as written), so the key is the same before and
// after the file is created, through symlinked directories and through links.
func ReadKey(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	return safefile.ResolvePath(abs)
}

// Record stores a snapshot of content for path and returns the `details.reads` entry the
// recording tool puts in its result.
func (r *Reads) Record(path string, content []byte, textEditable bool) map[string]Snapshot {
	return r.record(ReadKey(path), content, textEditable)
}

func (r *Reads) record(key string, content []byte, textEditable bool) map[string]Snapshot {
	snap := Snapshot{Digest: Digest(content), TextEditable: textEditable}
	r.mu.Lock()
	r.m[key] = snap
	r.mu.Unlock()
	return map[string]Snapshot{key: snap}
}

// Get returns the snapshot recorded for path.
func (r *Reads) Get(path string) (Snapshot, bool) { return r.get(ReadKey(path)) }

func (r *Reads) get(key string) (Snapshot, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.m[key]
	return s, ok
}

// Len is the number of recorded files.
func (r *Reads) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}

// Clear forgets every read.
func (r *Reads) Clear() {
	r.mu.Lock()
	r.m = map[string]Snapshot{}
	r.mu.Unlock()
}

// CheckStrict is the strict check (claude-code Edit and Write, opencode edit, codemode
// fs.write on an existing file) against current, the file's bytes on disk now. A file that
// does not exist needs no read.
func (r *Reads) CheckStrict(path string, current []byte, exists bool) error {
	return r.checkStrict(ReadKey(path), path, current, exists)
}

func (r *Reads) checkStrict(key, path string, current []byte, exists bool) error {
	if !exists {
		return nil
	}
	snap, ok := r.get(key)
	switch {
	case !ok:
		return errors.New(TextNotRead)
	case !snap.TextEditable:
		return errors.New(textBinary + path)
	case snap.Digest != Digest(current):
		return errors.New(TextModified)
	}
	return nil
}

// CheckLenient is opencode write's check: an unread file may be written; a read one must be
// unchanged and still exist.
func (r *Reads) CheckLenient(path string, current []byte, exists bool) error {
	return r.checkLenient(ReadKey(path), current, exists)
}

func (r *Reads) checkLenient(key string, current []byte, exists bool) error {
	snap, ok := r.get(key)
	if !ok {
		return nil
	}
	if !exists || snap.Digest != Digest(current) {
		return errors.New(TextModified)
	}
	return nil
}

// replayTools maps the recording tools' names onto their toolset; lsp-rename records into
// the session's file toolset.
var replayTools = map[string]string{
	"Read": "claude-code", "Edit": "claude-code", "Write": "claude-code",
	"read": "opencode", "edit": "opencode", "write": "opencode",
}

// Replay clears every toolset's read state and rebuilds it from the toolResult messages of
// a branch (oldest first), as the seed does on session_start and session_tree. Entries of
// the wrong shape are dropped. It and its hooks (OnReplay) read only the messages
// ReplayInput takes: msgs may be just those.
func (s *Session) Replay(msgs []*llm.Message) {
	for _, ts := range []string{"claude-code", "opencode"} {
		s.Reads(ts).Clear()
	}
	for _, m := range msgs {
		if m.Role != llm.RoleToolResult || len(m.Details) == 0 {
			continue
		}
		ts, ok := replayTools[m.ToolName]
		if m.ToolName == "lsp-rename" || m.ToolName == "codemode" { // both record in the file toolset
			ts, ok = s.FileIO, s.FileIO != ""
		}
		if !ok {
			continue
		}
		if !mayHoldReads(m.Details) {
			continue
		}
		var d struct {
			Reads map[string]json.RawMessage `json:"reads"`
		}
		if json.Unmarshal(m.Details, &d) != nil {
			continue
		}
		r := s.Reads(ts)
		for key, raw := range d.Reads {
			var snap struct {
				Digest       *string `json:"digest"`
				TextEditable *bool   `json:"textEditable"`
			}
			if json.Unmarshal(raw, &snap) != nil || snap.Digest == nil || snap.TextEditable == nil ||
				len(*snap.Digest) != 64 || !filepath.IsAbs(key) {
				continue
			}
			if _, err := hex.DecodeString(*snap.Digest); err != nil {
				continue
			}
			r.mu.Lock()
			r.m[key] = Snapshot{Digest: *snap.Digest, TextEditable: *snap.TextEditable}
			r.mu.Unlock()
		}
	}
	replayMu.Lock()
	hooks := append([]func(*Session, []*llm.Message){}, replayHooks...)
	replayMu.Unlock()
	for _, fn := range hooks {
		fn(s, msgs)
	}
}

// ReplayInput reports whether Replay reads m: a tool result with details. The others can be
// left out of what it is given (a long session's branch is mostly other messages: at 64 MB
// ~60,000 messages, 10,000 of them results with details, each a cache miss away).
func ReplayInput(m *llm.Message) bool {
	return m.Role == llm.RoleToolResult && len(m.Details) > 0
}

// mayHoldReads reports whether details may have a top-level key encoding/json matches to
// "reads" (bytes.EqualFold after decoding its escapes: "READS", "r\u0065ads" and "read\u017f"
// all match). Only the object's keys are read: values are skipped unread, so a tool result
// whose details are a long diff (an edit's) is not decoded at every start for nothing — the
// check before looked for the five letters or any escape anywhere, and every diff has a \n.
// Anything it does not follow (not an object, a cut or odd document) is left to encoding/json.
func mayHoldReads(d []byte) bool {
	i := skipSpace(d, 0)
	if i >= len(d) || d[i] != '{' {
		return true
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		return false
	}
	var key []byte
	for {
		if i >= len(d) || d[i] != '"' {
			return true
		}
		var ok bool
		if key, i, ok = readKey(key[:0], d, i+1); !ok || bytes.EqualFold(key, []byte("reads")) {
			return true
		}
		if i = skipSpace(d, i); i >= len(d) || d[i] != ':' {
			return true
		}
		if i, ok = skipValue(d, skipSpace(d, i+1)); !ok {
			return true
		}
		switch i = skipSpace(d, i); {
		case i < len(d) && d[i] == ',':
			i = skipSpace(d, i+1)
		case i < len(d) && d[i] == '}':
			return false
		default:
			return true
		}
	}
}

func skipSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
}

// readKey decodes the string whose contents start at d[i] onto key; it returns the index
// after the closing quote.
func readKey(key, d []byte, i int) ([]byte, int, bool) {
	for i < len(d) {
		switch c := d[i]; {
		case c == '"':
			return key, i + 1, true
		case c == '\\':
			var ok bool
			if key, i, ok = jsonesc.AppendEscape(key, d, i); !ok {
				return key, i, false
			}
		case c < 0x20:
			return key, i, false
		default:
			key = append(key, c)
			i++
		}
	}
	return key, i, false
}

// skipValue returns the index after the value that starts at d[i]: a string, an object or
// array (strings inside skipped whole, brackets counted), or a literal or number.
func skipValue(d []byte, i int) (int, bool) {
	depth := 0
	for i < len(d) {
		switch c := d[i]; c {
		case '"':
			j := i + 1
			for {
				k := bytes.IndexByte(d[j:], '"')
				if k < 0 {
					return i, false
				}
				j += k
				n := 0
				for n < j-i-1 && d[j-1-n] == '\\' {
					n++
				}
				j++
				if n%2 == 0 {
					break
				}
			}
			i = j
			if depth == 0 {
				return i, true
			}
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i, true // a literal or number just ended
			}
			depth--
			i++
			if depth == 0 {
				return i, true
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return i, true
			}
			i++
		default:
			i++
		}
	}
	return i, depth == 0
}

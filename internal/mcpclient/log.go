package mcpclient

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// MaxLogBytes is the size past which mcp.log moves to mcp.log.1 (pi's 5 MB).
const MaxLogBytes = 5 << 20

// Log appends the log notifications servers send (notifications/message) to mcp.log in the
// agent dir, one line per message as pi writes them: `<time> [<server>] <level> <logger>:
// <message>`, continuation lines indented. Several processes may write the same file, so each
// message is one append; write errors are ignored (logging must not break tools).
type Log struct {
	path string
	now  func() time.Time

	mu   sync.Mutex
	size int64 // -1 until known
}

// NewLog returns the log at path.
func NewLog(path string) *Log { return &Log{path: path, now: time.Now, size: -1} }

// FormatLogLine is pi's formatMcpLogMessage.
func FormatLogLine(server string, params json.RawMessage, now time.Time) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		m = map[string]json.RawMessage{"data": params}
	}
	level := "info"
	if raw, ok := m["level"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			level = s
		}
	}
	logger := ""
	if raw, ok := m["logger"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			logger = " " + s + ":"
		}
	}
	text := ""
	if raw, ok := m["data"]; ok {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = s
		} else {
			text = compactJSON(raw)
		}
	} else {
		text = "undefined"
	}
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\n    ")
	return now.UTC().Format("2006-01-02T15:04:05.000Z") + " [" + server + "] " + level + logger + " " + text + "\n"
}

// compactJSON re-encodes a value without spaces, as JSON.stringify does.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// Write appends one server message.
func (l *Log) Write(server string, params json.RawMessage) {
	line := FormatLogLine(server, params, l.now())
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.size < 0 {
		_ = os.MkdirAll(filepath.Dir(l.path), 0o700)
		l.size = l.currentSize()
	}
	if l.size > MaxLogBytes {
		// Another process may have rotated it already; look before renaming.
		if l.currentSize() > MaxLogBytes {
			_ = os.Rename(l.path, l.path+".1")
		}
		l.size = l.currentSize()
	}
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	n, _ := f.WriteString(line)
	f.Close()
	l.size += int64(n)
}

func (l *Log) currentSize() int64 {
	fi, err := os.Stat(l.path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

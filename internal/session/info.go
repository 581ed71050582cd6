package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// Info describes one session file for listings.
type Info struct {
	ID            string    `json:"id"`
	Path          string    `json:"path"`
	Cwd           string    `json:"cwd"`
	Name          string    `json:"name"`
	ParentSession string    `json:"parent_session,omitempty"`
	Created       time.Time `json:"created"`
	Modified      time.Time `json:"modified"`
	// Messages counts every message entry of the file, on every branch (pi's picker).
	Messages int `json:"messages"`
	// FirstMessage is the text of the first user message ("(no messages)" when none).
	FirstMessage string `json:"first_message"`
}

// Info returns the listing facts of the open session (ReadInfo's, without reading the file
// again). Modified is the newest user or assistant message time, else the header's
// timestamp, else the file's mtime (pi's buildSessionInfo).
func (s *Session) Info() *Info {
	s.mu.Lock()
	h := s.header
	in := &Info{ID: h.ID, Path: s.path, Cwd: h.Cwd, ParentSession: h.ParentSession}
	var last int64
	for _, e := range s.entries {
		if e.Type == TypeMessage {
			in.Messages++ // pi's buildSessionInfo counts every message entry, abandoned branches too
		}
		switch {
		case e.Type == TypeSessionInfo:
			in.Name = e.Name
		case e.Type != TypeMessage || e.Message == nil || e.Message.LLM == nil:
		case e.Message.Role == llm.RoleUser || e.Message.Role == llm.RoleAssistant:
			m := e.Message.LLM
			last = max(last, messageTime(m.Timestamp, e.Timestamp))
			if in.FirstMessage == "" && m.Role == llm.RoleUser {
				in.FirstMessage = joinText(m)
			}
		}
	}
	s.mu.Unlock()
	in.Name = trimSpace(in.Name)
	in.finish(last, h.Timestamp, s.path)
	return in
}

// messageTime is a message's time for Modified: its own timestamp, else its entry's.
func messageTime(ms int64, entryTS string) int64 {
	if ms == 0 {
		return millis(entryTS)
	}
	return ms
}

// finish sets Created and Modified and the placeholder first message.
func (in *Info) finish(last int64, headerTS, path string) {
	created, cerr := ParseTimestamp(headerTS)
	in.Created = created
	switch {
	case last > 0:
		in.Modified = time.UnixMilli(last).UTC()
	case cerr == nil:
		in.Modified = created
	default:
		if fi, err := os.Stat(path); err == nil {
			in.Modified = fi.ModTime().UTC()
		}
	}
	if in.FirstMessage == "" {
		in.FirstMessage = "(no messages)"
	}
}

// joinText is pi's extractTextContent: text blocks joined by spaces.
func joinText(m *llm.Message) string {
	var parts []string
	for _, c := range m.Content {
		if c.Type == llm.TypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, " ")
}

// ReadInfo reads one session file's listing facts (Session.Info's) without decoding the whole
// file: each line is skimmed for its type and, for messages, role and time; only the header,
// the first user message and session names are decoded. A listing of a thousand
// sessions reads at the speed of the disk. Files of versions 1 and 2 are skimmed the same way:
// pi's migrations (ids and parents, compaction indexes to ids, hookMessage to custom) change
// nothing a listing reads, so they are not run (TestReadInfoMatchesInfo's v1 and v2 cases).
func ReadInfo(path string) (*Info, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lr := newLineReader(f, path, fi.Size())
	lr.reuse = true
	var (
		h      Header
		header bool
		in     = &Info{Path: path}
		last   int64
	)
	for {
		l, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		t := bytes.TrimSpace(l.b)
		if len(t) == 0 {
			continue
		}
		if !header {
			h, err = decodeHeader(t)
			if errors.Is(err, errSyntax) {
				continue
			}
			if err != nil || h.Type != TypeSession || h.ID == "" {
				return nil, fmt.Errorf("Session file is %w: %s", ErrNotSession, path)
			}
			// The lines' memory is reused (lr.reuse) and decoded strings point into it: what
			// outlives the line is copied.
			h.ID, h.Cwd, h.ParentSession, h.Timestamp = strings.Clone(h.ID), strings.Clone(h.Cwd), strings.Clone(h.ParentSession), strings.Clone(h.Timestamp)
			header = true
			continue
		}
		sk, ok := skimEntry(t, in.FirstMessage == "")
		if !ok || sk.typ == TypeSession {
			continue
		}
		switch sk.typ {
		case TypeSessionInfo:
			in.Name = strings.Clone(sk.name)
		case TypeMessage:
			in.Messages++
			if sk.role == llm.RoleUser || sk.role == llm.RoleAssistant {
				last = max(last, messageTime(sk.msgTime, sk.timestamp))
				if in.FirstMessage == "" && sk.role == llm.RoleUser {
					in.FirstMessage = strings.Clone(sk.text)
				}
			}
		}
	}
	if !header {
		return nil, fmt.Errorf("Session file is %w: %s", ErrNotSession, path)
	}
	in.ID, in.Cwd, in.ParentSession = h.ID, h.Cwd, h.ParentSession
	in.Name = trimSpace(in.Name)
	in.finish(last, h.Timestamp, path)
	return in, nil
}

// skim is what a listing needs of one entry.
type skim struct {
	typ, timestamp, name string
	role                 string
	msgTime              int64
	// text is a user message's text blocks joined (only when asked for).
	text string
}

// skimEntry reads the listing fields of one line, skipping everything else unread; with
// wantText it also joins a user message's text. ok is false for a line that is not JSON.
func skimEntry(b []byte, wantText bool) (sk skim, ok bool) {
	r := jreader{b: b}
	if !r.object("") {
		return sk, false
	}
	first := true
	for {
		k, ok := r.member(&first)
		if !ok {
			break
		}
		switch string(k) {
		case "type":
			sk.typ = r.str("type")
		case "timestamp":
			sk.timestamp = r.str("timestamp")
		case "name":
			sk.name = r.str("name")
		case "message":
			r.skimMessage(&sk, wantText)
		default:
			r.skip()
		}
	}
	return sk, r.end() == nil
}

func (r *jreader) skimMessage(sk *skim, wantText bool) {
	if !r.object("message") {
		return
	}
	var content []byte
	first := true
	for {
		k, ok := r.member(&first)
		if !ok {
			break
		}
		switch string(k) {
		case "role":
			sk.role = r.str("role")
		case "timestamp":
			sk.msgTime = r.integer("timestamp")
		case "content":
			r.ws()
			start := r.i
			r.skip()
			if wantText {
				content = r.b[start:r.i]
			}
		default:
			r.skip()
		}
	}
	if wantText && sk.role == llm.RoleUser && content != nil && r.err == nil {
		cr := jreader{b: content}
		c := cr.content()
		if cr.err == nil {
			sk.text = joinText(&llm.Message{Content: c.blocks})
		}
	}
}

// ReadCwd returns the working directory in a session file's header, reading no further than
// the header line ("" when the file has none): what is checked before a session is opened,
// without reading the file a second time.
func ReadCwd(path string) (string, error) {
	f, fi, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	lr := newLineReader(f, path, min(fi.Size(), 64<<10))
	lr.reuse = true
	for {
		l, ok, err := lr.next()
		if err != nil || !ok {
			return "", err
		}
		t := bytes.TrimSpace(l.b)
		if len(t) == 0 {
			continue
		}
		h, err := decodeHeader(t)
		if errors.Is(err, errSyntax) {
			continue
		}
		if err != nil || h.Type != TypeSession || h.ID == "" {
			return "", fmt.Errorf("Session file is %w: %s", ErrNotSession, path)
		}
		return strings.Clone(h.Cwd), nil
	}
}

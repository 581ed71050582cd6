package talk

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// Statuses a record carries (what talk-list-agents shows for a live agent).
const (
	StatusIdle    = "idle"
	StatusWorking = "working"
	StatusWaiting = "waiting-talk-message"
)

// Record is one agent's registry entry (the seed's AgentRecord): it outlives the process,
// so mail to a stopped session waits on disk.
type Record struct {
	Addr       string `json:"addr"`
	AgentID    string `json:"agentId"`
	Name       string `json:"name"`
	Alias      string `json:"alias,omitempty"`
	Cwd        string `json:"cwd"`
	Pid        int    `json:"pid"`
	PidStart   *int64 `json:"pidStart,omitempty"`
	StartedAt  int64  `json:"startedAt"`
	LastSeenAt int64  `json:"lastSeenAt"`
	Status     string `json:"status"`
	Offline    bool   `json:"offline,omitempty"`
}

// Sweep thresholds: a quiet dead record is kept a day, one with undelivered mail 30 days.
const (
	sweepOfflineGrace = 24 * time.Hour
	sweepMailKeep     = 30 * 24 * time.Hour
)

var addrPattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-f0-9]{12}$`) }}

const recordsNS = "records"

// DeriveAddr is an agent's mailbox address: the first 12 hex digits of sha256(cwd + agentId),
// so a resumed session answers to the same address.
func DeriveAddr(cwd, agentID string) string {
	h := sha256.Sum256([]byte(cwd + agentID))
	return hex.EncodeToString(h[:])[:12]
}

func checkAddr(addr string) error {
	if !addrPattern.Get().MatchString(addr) {
		return fmt.Errorf("Invalid talk address: %s", addr)
	}
	return nil
}

func inboxNS(addr string) string { return "inbox/" + addr }
func asksNS(addr string) string  { return "asks/" + addr }

func writeRecord(s *Store, r Record) error {
	if err := checkAddr(r.Addr); err != nil {
		return err
	}
	return s.WriteJSON(recordsNS, r.Addr+".json", r)
}

// legacyRecord accepts records written before the seed renamed sessionId to agentId.
type legacyRecord struct {
	Record
	SessionID *string `json:"sessionId"`
}

func readRecord(s *Store, addr string) (*Record, error) {
	var raw json.RawMessage
	ok, err := s.ReadJSON(recordsNS, addr+".json", &raw)
	if !ok || err != nil {
		return nil, err
	}
	return decodeRecord(raw), nil
}

// decodeRecord checks and decodes one stored record; nil when it is not a valid one.
func decodeRecord(raw json.RawMessage) *Record {
	var lr legacyRecord
	if !strictDecode(raw, &lr, "addr", "name", "cwd", "pid", "startedAt", "lastSeenAt", "status") {
		return nil
	}
	if !hasField(raw, "agentId") {
		if lr.SessionID == nil {
			return nil
		}
		lr.AgentID = *lr.SessionID
	}
	if !validStatus(lr.Status) {
		return nil
	}
	r := lr.Record
	return &r
}

func validStatus(s string) bool {
	return s == StatusIdle || s == StatusWorking || s == StatusWaiting
}

// listRecords lists every valid record, oldest start first. It has no side effects.
func listRecords(s *Store) ([]Record, error) {
	keys, values, err := s.Values(recordsNS)
	if err != nil {
		return nil, err
	}
	var out []Record
	for i, k := range keys {
		addr := strings.TrimSuffix(k, ".json")
		if !addrPattern.Get().MatchString(addr) {
			continue
		}
		if r := decodeRecord(values[i]); r != nil {
			out = append(out, *r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartedAt < out[j].StartedAt })
	return out, nil
}

// ReadStartTime is field 22 of /proc/<pid>/stat (the process start time in clock ticks),
// which rules out a reused pid; false off Linux or when unreadable.
func ReadStartTime(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 > len(b) {
		return 0, false
	}
	fields := strings.Split(string(b[i+2:]), " ")
	if len(fields) < 20 {
		return 0, false
	}
	v, err := strconv.ParseInt(fields[19], 10, 64)
	return v, err == nil
}

func pidAlive(pid int, pidStart *int64) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if pidStart == nil {
		return true
	}
	start, ok := ReadStartTime(pid)
	return !ok || start == *pidStart
}

// Live reports the record's presence: not flagged offline and its process (pid and start
// time) still running.
func Live(r Record) bool { return !r.Offline && pidAlive(r.Pid, r.PidStart) }

// sweep reclaims dead agents' data; mail outranks tidiness. It runs at every session start,
// over every record of the last day: a record is first read for its liveness fields only,
// and checked whole only when it may be reclaimed (a live or recent one is left alone
// either way, valid or not).
func sweep(s *Store, now int64) error {
	keys, values, err := s.Values(recordsNS)
	if err != nil {
		return err
	}
	for i, k := range keys {
		if !addrPattern.Get().MatchString(strings.TrimSuffix(k, ".json")) {
			continue
		}
		var l struct {
			Pid        int    `json:"pid"`
			PidStart   *int64 `json:"pidStart"`
			LastSeenAt int64  `json:"lastSeenAt"`
		}
		if json.Unmarshal(values[i], &l) == nil && (time.Duration(now-l.LastSeenAt)*time.Millisecond < sweepOfflineGrace || pidAlive(l.Pid, l.PidStart)) {
			continue
		}
		r := decodeRecord(values[i])
		if r == nil || pidAlive(r.Pid, r.PidStart) {
			continue
		}
		quiet := time.Duration(now-r.LastSeenAt) * time.Millisecond
		if quiet < sweepOfflineGrace {
			continue
		}
		inbox, _ := s.HasKeys(inboxNS(r.Addr))
		asks, _ := s.HasKeys(asksNS(r.Addr))
		if (inbox || asks) && quiet < sweepMailKeep {
			continue
		}
		if err := s.RemoveNamespace(inboxNS(r.Addr)); err != nil {
			return err
		}
		if err := s.RemoveNamespace(asksNS(r.Addr)); err != nil {
			return err
		}
		if _, err := s.RemoveKey(recordsNS, r.Addr+".json"); err != nil {
			return err
		}
	}
	return nil
}

// strictDecode decodes raw into v and checks the required fields are present with the right
// JSON types (what the seed's TypeBox check does: a foreign value is rejected, not cast).
func strictDecode(raw json.RawMessage, v any, required ...string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	for _, f := range required {
		if _, ok := m[f]; !ok {
			return false
		}
	}
	return json.Unmarshal(raw, v) == nil
}

func hasField(raw json.RawMessage, f string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	_, ok := m[f]
	return ok
}

// marshal is JSON.stringify: no HTML escaping, no trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

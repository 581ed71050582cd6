package talk

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/pigo-agent/pigo/internal/lazy"
)

// Letter kinds.
const (
	KindMessage = "message"
	KindAsk     = "ask"
	KindReply   = "reply"
	KindCancel  = "cancel"
)

// Sender is a letter's from field.
type Sender struct {
	Addr    string `json:"addr"`
	Name    string `json:"name"`
	Cwd     string `json:"cwd"`
	AgentID string `json:"agentId"`
}

// Letter is one message in an inbox, stored as JSON under inbox/<addr>/<ts>-<id>.json.
type Letter struct {
	ID      string `json:"id"`
	From    Sender `json:"from"`
	Kind    string `json:"kind"`
	Body    string `json:"body"`
	ReplyTo string `json:"replyTo,omitempty"`
	Ts      int64  `json:"ts"`
}

// outAsk tracks our own pending ask (asks/<addr>/out-<id>.json).
type outAsk struct {
	AskID  string `json:"askId"`
	ToAddr string `json:"toAddr"`
	Body   string `json:"body"`
	Ts     int64  `json:"ts"`
}

type auditRecord struct {
	Ts        int64  `json:"ts"`
	Event     string `json:"event"`
	Kind      string `json:"kind"`
	From      string `json:"from"`
	To        string `json:"to"`
	MessageID string `json:"messageId"`
	Preview   string `json:"preview"`
}

var messageIDPattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}$`) }}

func newMessageID() string { return uuid.NewString() }

func letterKey(l Letter) (string, error) {
	if !messageIDPattern.Get().MatchString(l.ID) {
		return "", fmt.Errorf("Invalid talk message id: %s", l.ID)
	}
	if l.Ts < 0 {
		return "", fmt.Errorf("Invalid talk letter timestamp: %d", l.Ts)
	}
	return fmt.Sprintf("%d-%s.json", l.Ts, l.ID), nil
}

// decodeLetter validates a stored letter (and migrates the pre-rename from.sessionId).
func decodeLetter(raw json.RawMessage) (Letter, bool) {
	var l Letter
	if !strictDecode(raw, &l, "id", "from", "kind", "body", "ts") {
		return l, false
	}
	var f struct {
		From map[string]json.RawMessage `json:"from"`
	}
	_ = json.Unmarshal(raw, &f)
	for _, k := range []string{"addr", "name", "cwd"} {
		if _, ok := f.From[k]; !ok {
			return l, false
		}
	}
	if _, ok := f.From["agentId"]; !ok {
		var sid string
		if json.Unmarshal(f.From["sessionId"], &sid) != nil {
			return l, false
		}
		l.From.AgentID = sid
	}
	switch l.Kind {
	case KindMessage, KindAsk, KindReply, KindCancel:
	default:
		return l, false
	}
	if _, err := letterKey(l); err != nil {
		return l, false
	}
	return l, true
}

type inboxItem struct {
	key    string
	letter Letter
}

func deposit(s *Store, to string, l Letter) error {
	if err := checkAddr(to); err != nil {
		return err
	}
	key, err := letterKey(l)
	if err != nil {
		return err
	}
	if err := s.WriteJSON(inboxNS(to), key, l); err != nil {
		return err
	}
	appendAudit(s, auditRecord{Ts: time.Now().UnixMilli(), Event: "deposit", Kind: l.Kind, From: l.From.Addr, To: to, MessageID: l.ID, Preview: previewBody(l.Body)})
	return nil
}

// listInbox reads the inbox oldest first without removing anything; corrupt letters are
// skipped.
func listInbox(s *Store, addr string) ([]inboxItem, error) {
	if err := checkAddr(addr); err != nil {
		return nil, err
	}
	keys, err := s.ListKeys(inboxNS(addr))
	if err != nil {
		return nil, err
	}
	var out []inboxItem
	for _, k := range keys {
		var raw json.RawMessage
		ok, err := s.ReadJSON(inboxNS(addr), k, &raw)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if l, ok := decodeLetter(raw); ok {
			out = append(out, inboxItem{k, l})
		}
	}
	return out, nil
}

func unreadCount(s *Store, addr string) (int, error) {
	keys, err := s.ListKeys(inboxNS(addr))
	return len(keys), err
}

// awaitReceipt waits up to timeout for a letter deposited to a live target to leave its
// inbox: under deliver-then-remove, that means the target handed it to its agent.
func awaitReceipt(s *Store, to string, l Letter, timeout time.Duration) bool {
	key, _ := letterKey(l)
	deadline := time.Now().Add(timeout)
	for {
		var raw json.RawMessage
		ok, err := s.ReadJSON(inboxNS(to), key, &raw)
		if err == nil && !ok {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func trackIncomingAsk(s *Store, addr string, l Letter) error {
	return s.WriteJSON(asksNS(addr), l.ID+".json", l)
}

func trackOutgoingAsk(s *Store, addr string, o outAsk) error {
	return s.WriteJSON(asksNS(addr), "out-"+o.AskID+".json", o)
}

func readOutgoingAsk(s *Store, addr, id string) (*outAsk, error) {
	var raw json.RawMessage
	ok, err := s.ReadJSON(asksNS(addr), "out-"+id+".json", &raw)
	if !ok || err != nil {
		return nil, err
	}
	var o outAsk
	if !strictDecode(raw, &o, "askId", "toAddr", "body", "ts") {
		return nil, nil
	}
	return &o, nil
}

func clearAsk(s *Store, addr, id string) {
	_, _ = s.RemoveKey(asksNS(addr), id+".json")
	_, _ = s.RemoveKey(asksNS(addr), "out-"+id+".json")
}

func pendingAsks(s *Store, addr string) ([]Letter, error) {
	keys, err := s.ListKeys(asksNS(addr))
	if err != nil {
		return nil, err
	}
	var out []Letter
	for _, k := range keys {
		if strings.HasPrefix(k, "out-") {
			continue
		}
		var raw json.RawMessage
		if ok, _ := s.ReadJSON(asksNS(addr), k, &raw); !ok {
			continue
		}
		if l, ok := decodeLetter(raw); ok {
			out = append(out, l)
		}
	}
	return out, nil
}

func outgoingAskIDs(s *Store, addr string) ([]string, error) {
	keys, err := s.ListKeys(asksNS(addr))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, k := range keys {
		if strings.HasPrefix(k, "out-") && strings.HasSuffix(k, ".json") {
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(k, "out-"), ".json"))
		}
	}
	return out, nil
}

// resolveAskByRef finds a pending ask by its id or a unique suffix (the random part).
func resolveAskByRef(s *Store, addr, ref string) (*Letter, error) {
	if ref == "" {
		return nil, nil
	}
	asks, err := pendingAsks(s, addr)
	if err != nil {
		return nil, err
	}
	for _, a := range asks {
		if a.ID == ref || strings.HasSuffix(a.ID, ref) {
			return &a, nil
		}
	}
	return nil, nil
}

var (
	ansiPattern  = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile("\x1b\\[[0-9;?]*[a-zA-Z]|\x1b.") }}
	spacePattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\s+`) }}
)

// previewBody is the audit log's 80-character, whitespace-collapsed preview (never a body).
func previewBody(body string) string {
	s := strings.TrimSpace(spacePattern.Get().ReplaceAllString(ansiPattern.Get().ReplaceAllString(body, ""), " "))
	return jsSlice(s, 80)
}

// jsSlice is String.prototype.slice(0, n): n UTF-16 code units.
func jsSlice(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}

// appendAudit is best-effort: the audit never breaks the mail path.
func appendAudit(s *Store, r auditRecord) {
	if b, err := marshal(r); err == nil {
		_ = s.AppendLog("audit", string(b))
	}
}

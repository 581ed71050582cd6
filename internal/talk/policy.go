package talk

import (
	"fmt"
	"sync"
	"time"
	"unicode/utf16"
)

// The seed's loop-breaking limits, enforced at the transport whatever the models decide.
const (
	MaxBodyChars = 32 * 1024
	DedupWindow  = 10 * time.Second
	RateLimitMax = 8
	RateWindow   = 30 * time.Second
	BacklogCap   = 50
)

// policy gates outbound letters: size, backlog, identical-body dedup per peer, and rate.
type policy struct {
	mu     sync.Mutex
	now    func() time.Time
	sentAt []time.Time
	recent map[string]time.Time
}

// jsLen is a string's length as JavaScript counts it (UTF-16 code units), which is what the
// seed's 32 KB cap measures.
func jsLen(s string) int { return len(utf16.Encode([]rune(s))) }

func (p *policy) check(body string, backlog int, target string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := jsLen(body); n > MaxBodyChars {
		return fmt.Sprintf("Message is %d chars; cap is %d. Send a summary and a path, not a payload.", n, MaxBodyChars), false
	}
	if backlog >= BacklogCap {
		return fmt.Sprintf("Peer has %d unread messages (cap %d); wait for it to drain.", backlog, BacklogCap), false
	}
	now := p.now()
	if last, ok := p.recent[body+"\x00"+target]; ok && now.Sub(last) < DedupWindow {
		return "Identical message to the same peer less than 10s ago — dropped to break loops.", false
	}
	start := now.Add(-RateWindow)
	for len(p.sentAt) > 0 && p.sentAt[0].Before(start) {
		p.sentAt = p.sentAt[1:]
	}
	if len(p.sentAt) >= RateLimitMax {
		return fmt.Sprintf("Rate limited: %d messages per %ds per agent.", RateLimitMax, int(RateWindow/time.Second)), false
	}
	return "", true
}

func (p *policy) record(body, target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	p.sentAt = append(p.sentAt, now)
	if p.recent == nil {
		p.recent = map[string]time.Time{}
	}
	p.recent[body+"\x00"+target] = now
	if len(p.recent) > 200 {
		for k, t := range p.recent {
			if now.Sub(t) > DedupWindow {
				delete(p.recent, k)
			}
		}
	}
}

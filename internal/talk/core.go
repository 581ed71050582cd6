package talk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Queue is the agent loop's side of delivery: *agent.Agent implements it. Steer interrupts
// a running turn after its tool calls (and wakes the loop); FollowUp waits until the agent
// would otherwise stop.
type Queue interface {
	Steer(text string)
	FollowUp(text string)
}

// Delivery modes (settings.json talk.deliver).
const (
	DeliverQueue = "queue"
	DeliverSteer = "steer"
)

// The seed's timings.
const (
	inboxPoll         = 3 * time.Second
	deliveryBackoff   = 5 * time.Second
	initialDrain      = 1200 * time.Millisecond
	sweepInterval     = 30 * time.Minute
	receiptWait       = 3 * time.Second
	DefaultAskTimeout = 30 * time.Minute
)

// Options configure a session's talk core.
type Options struct {
	Store *Store
	// AgentID is the session id; Cwd the session's working directory; Name its display name
	// ("" = "Unnamed agent").
	AgentID, Cwd, Name string
	// Deliver is DeliverQueue (default) or DeliverSteer.
	Deliver string
	// RefuseInbound is PI_TALK_INBOUND=refuse: the inbox is never drained.
	RefuseInbound bool
	// Pid is the process registered as the agent's (default os.Getpid()).
	Pid int
	// Poll is the inbox poll interval (default 3 s, the seed's); InitialDelay the first
	// drain's delay (default 1.2 s).
	Poll, InitialDelay time.Duration
	// ReceiptWait is how long a send to a live agent waits for the receipt (default 3 s).
	ReceiptWait time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

type askOutcome struct {
	replied bool
	body    string
	reason  string
}

// Core is one session's talk endpoint: its registry record, the inbox poll that hands
// letters to the loop, and the tool and command actions.
type Core struct {
	store   *Store
	opts    Options
	now     func() time.Time
	policy  policy
	mu      sync.Mutex
	self    Record
	dead    bool
	queue   Queue
	waiters map[string]chan askOutcome
	// delivered are ids handed to the loop whose removal failed: only remove them again.
	delivered   map[string]bool
	lastFailure time.Time
	checkMu     sync.Mutex
	stop        chan struct{}
	done        sync.WaitGroup
}

// Start registers the session in the store, sweeps dead records and starts the inbox poll.
// Letters wait in the inbox until Attach gives the core a queue.
func Start(opts Options) (*Core, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Poll <= 0 {
		opts.Poll = inboxPoll
	}
	if opts.InitialDelay <= 0 {
		opts.InitialDelay = initialDrain
	}
	if opts.ReceiptWait <= 0 {
		opts.ReceiptWait = receiptWait
	}
	if opts.Pid == 0 {
		opts.Pid = os.Getpid()
	}
	if opts.Name == "" {
		opts.Name = "Unnamed agent"
	}
	if opts.Deliver == "" {
		opts.Deliver = DeliverQueue
	}
	c := &Core{store: opts.Store, opts: opts, now: opts.Now, waiters: map[string]chan askOutcome{}, delivered: map[string]bool{}, stop: make(chan struct{})}
	c.policy.now = opts.Now
	now := opts.Now().UnixMilli()
	c.self = Record{Addr: DeriveAddr(opts.Cwd, opts.AgentID), AgentID: opts.AgentID, Name: opts.Name, Cwd: opts.Cwd, Pid: opts.Pid, StartedAt: now, LastSeenAt: now, Status: StatusIdle}
	if st, ok := ReadStartTime(opts.Pid); ok {
		c.self.PidStart = &st
	}
	if err := writeRecord(c.store, c.self); err != nil {
		return nil, err
	}
	_ = sweep(c.store, now)
	c.done.Add(1)
	go c.poll()
	return c, nil
}

func (c *Core) poll() {
	defer c.done.Done()
	first := time.NewTimer(c.opts.InitialDelay)
	defer first.Stop()
	tick := time.NewTicker(c.opts.Poll)
	defer tick.Stop()
	sw := time.NewTicker(sweepInterval)
	defer sw.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-first.C:
			c.CheckInbox()
		case <-tick.C:
			c.CheckInbox()
		case <-sw.C:
			_ = sweep(c.store, c.now().UnixMilli())
		}
	}
}

// Attach gives the core the loop's queues; deliveries start with the next poll.
func (c *Core) Attach(q Queue) {
	c.mu.Lock()
	c.queue = q
	c.mu.Unlock()
}

// Addr is the session's mailbox address.
func (c *Core) Addr() string { return c.self.Addr }

// Stop ends the poll and marks the record offline (idle).
func (c *Core) Stop() {
	select {
	case <-c.stop:
		return
	default:
	}
	close(c.stop)
	c.done.Wait()
	c.writeSelf(func(r *Record) { r.Status = StatusIdle; r.Offline = true })
}

// SetWorking, SetIdle and SetName follow the agent's lifecycle into the record.
func (c *Core) SetWorking()         { c.writeSelf(func(r *Record) { r.Status = StatusWorking }) }
func (c *Core) SetIdle()            { c.writeSelf(func(r *Record) { r.Status = StatusIdle }) }
func (c *Core) setWaiting()         { c.writeSelf(func(r *Record) { r.Status = StatusWaiting }) }
func (c *Core) SetName(name string) { c.writeSelf(func(r *Record) { r.Name = name }) }

func (c *Core) writeSelf(patch func(*Record)) {
	c.mu.Lock()
	patch(&c.self)
	c.self.LastSeenAt = c.now().UnixMilli()
	if c.dead {
		c.self.LastSeenAt = 0
	}
	r := c.self
	c.mu.Unlock()
	_ = writeRecord(c.store, r)
}

func (c *Core) selfRecord() Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.self
}

// CheckInbox drains the inbox once: each letter is removed only after the loop took it, so a
// failed delivery stays queued for the next poll.
func (c *Core) CheckInbox() {
	c.checkMu.Lock()
	defer c.checkMu.Unlock()
	if c.now().Sub(c.lastFailure) < deliveryBackoff || c.opts.RefuseInbound {
		return
	}
	c.mu.Lock()
	q := c.queue
	c.mu.Unlock()
	items, err := listInbox(c.store, c.self.Addr)
	if err != nil {
		return
	}
	for _, it := range items {
		if c.delivered[it.letter.ID] {
			if ok, _ := c.store.RemoveKey(inboxNS(c.self.Addr), it.key); ok {
				delete(c.delivered, it.letter.ID)
			}
			continue
		}
		if q == nil && (it.letter.Kind != KindReply && it.letter.Kind != KindCancel) {
			continue // no loop yet: the letter waits (replies still reach a waiting ask)
		}
		toModel := c.processIncoming(it.letter)
		if toModel && q == nil {
			continue
		}
		if toModel {
			text := FormatDelivery(it.letter, c.now().UnixMilli())
			if c.opts.Deliver == DeliverSteer {
				q.Steer(text)
			} else {
				q.FollowUp(text)
			}
		}
		c.audit("deliver", it.letter)
		c.delivered[it.letter.ID] = true
		if ok, _ := c.store.RemoveKey(inboxNS(c.self.Addr), it.key); ok {
			delete(c.delivered, it.letter.ID)
		}
	}
}

func (c *Core) audit(event string, l Letter) {
	appendAudit(c.store, auditRecord{Ts: c.now().UnixMilli(), Event: event, Kind: l.Kind, From: l.From.Addr, To: c.self.Addr, MessageID: l.ID, Preview: previewBody(l.Body)})
}

// processIncoming routes replies and cancels to a waiting talk-ask, and arbitrates mutual
// asks; false when the letter was consumed here and must not reach the model.
func (c *Core) processIncoming(l Letter) bool {
	if (l.Kind == KindReply || l.Kind == KindCancel) && l.ReplyTo != "" {
		c.mu.Lock()
		w, ok := c.waiters[l.ReplyTo]
		delete(c.waiters, l.ReplyTo)
		c.mu.Unlock()
		clearAsk(c.store, c.self.Addr, l.ReplyTo)
		if ok {
			if l.Kind == KindReply {
				w <- askOutcome{replied: true, body: l.Body}
			} else {
				w <- askOutcome{reason: "cancelled by " + l.From.Name}
			}
			return false
		}
	}
	if l.Kind == KindAsk {
		c.resolveInterlock(l)
		_ = trackIncomingAsk(c.store, c.self.Addr, l)
	}
	return true
}

// PeerAskedFirst is the mutual-ask arbitration both sides compute on the same pair of
// letters: the earlier ask wins; on the same millisecond cwd+"\0"+agentId breaks the tie.
func PeerAskedFirst(peerTs int64, peerCwd, peerID string, selfTs int64, selfCwd, selfID string) bool {
	return peerTs < selfTs || (peerTs == selfTs && peerCwd+"\x00"+peerID < selfCwd+"\x00"+selfID)
}

func (c *Core) resolveInterlock(l Letter) {
	ids, _ := outgoingAskIDs(c.store, c.self.Addr)
	var mine *outAsk
	for _, id := range ids {
		if o, _ := readOutgoingAsk(c.store, c.self.Addr, id); o != nil && o.ToAddr == l.From.Addr {
			mine = o
			break
		}
	}
	if mine == nil {
		return
	}
	c.mu.Lock()
	w, ok := c.waiters[mine.AskID]
	if !ok || !PeerAskedFirst(l.Ts, l.From.Cwd, l.From.AgentID, mine.Ts, c.self.Cwd, c.self.AgentID) {
		c.mu.Unlock()
		return
	}
	delete(c.waiters, mine.AskID)
	c.mu.Unlock()
	w <- askOutcome{reason: fmt.Sprintf("peer asked first (their ask id %s) — answer it with talk-reply before re-asking", last8(l.ID))}
	clearAsk(c.store, c.self.Addr, mine.AskID)
}

func last8(id string) string { return id[max(0, len(id)-8):] }

func (c *Core) memberIDs() map[string]bool {
	g, _ := groupForAgent(c.store, c.self.AgentID)
	if g == nil {
		return nil
	}
	m := map[string]bool{}
	for _, id := range g.Members {
		m[id] = true
	}
	return m
}

func (c *Core) peers() []Record {
	recs, _ := listRecords(c.store)
	members := c.memberIDs()
	var out []Record
	for _, r := range recs {
		if r.Addr != c.self.Addr && members[r.AgentID] {
			out = append(out, r)
		}
	}
	return out
}

func (c *Core) resolveTarget(to string) (Record, string) {
	for _, r := range c.peers() {
		if r.AgentID == to {
			return r, ""
		}
	}
	return Record{}, refusalUnknown(to)
}

// List is talk-list-agents: the visible agents (self included unless marked dead) as JSON;
// cwd != "" keeps those in that directory.
func (c *Core) List(cwd string) string {
	recs, _ := listRecords(c.store)
	members := c.memberIDs()
	self := c.selfRecord()
	c.mu.Lock()
	dead := c.dead
	c.mu.Unlock()
	var out []Record
	for _, r := range recs {
		if cwd != "" && r.Cwd != cwd {
			continue
		}
		if r.Addr == self.Addr {
			if !dead {
				out = append(out, r)
			}
		} else if members[r.AgentID] {
			out = append(out, r)
		}
	}
	return formatListing(out, self.Addr)
}

func (c *Core) sendLetter(target Record, kind, body, replyTo string) (Letter, string, string) {
	return c.sendLetterID(target, kind, body, replyTo, newMessageID(), c.now().UnixMilli())
}

func (c *Core) sendLetterID(target Record, kind, body, replyTo, id string, ts int64) (Letter, string, string) {
	live := Live(target)
	backlog := 0
	if !live || target.Status != StatusIdle {
		backlog, _ = unreadCount(c.store, target.Addr)
	}
	if reason, ok := c.policy.check(body, backlog, target.Addr); !ok {
		return Letter{}, "", reason
	}
	self := c.selfRecord()
	l := Letter{ID: id, From: Sender{Addr: self.Addr, Name: self.Name, Cwd: self.Cwd, AgentID: self.AgentID}, Kind: kind, Body: body, ReplyTo: replyTo, Ts: ts}
	if err := deposit(c.store, target.Addr, l); err != nil {
		return Letter{}, "", err.Error()
	}
	c.policy.record(body, target.Addr)
	if !live {
		return l, "queued (target is offline — waits on disk)", ""
	}
	if awaitReceipt(c.store, target.Addr, l, c.opts.ReceiptWait) {
		return l, "delivered", ""
	}
	return l, "queued (waits on disk until the agent resumes)", ""
}

// Send is talk-send.
func (c *Core) Send(to, body string) string {
	if to == "" {
		return `send requires "to".`
	}
	if body == "" {
		return `send requires "message".`
	}
	if to == "*" || to == "cwd" {
		return "send requires a single agent id; broadcasting is disabled."
	}
	t, refusal := c.resolveTarget(to)
	if refusal != "" {
		return refusal
	}
	l, verdict, refusal := c.sendLetter(t, KindMessage, body, "")
	if refusal != "" {
		return refusal
	}
	return fmt.Sprintf("Sent to \"%s\" (%s) [id %s]: %s.", t.Name, shortAddr(t.Addr), last8(l.ID), verdict)
}

// Ask is talk-ask: it sends an ask and blocks until the reply, a cancel, the peer winning
// the mutual-ask arbitration, the timeout or ctx's end.
func (c *Core) Ask(ctx context.Context, to, body string, timeout time.Duration) string {
	if to == "" {
		return `ask requires "to".`
	}
	if body == "" {
		return `ask requires "message".`
	}
	if to == "*" || to == "cwd" {
		return "ask is 1:1 and cannot broadcast."
	}
	t, refusal := c.resolveTarget(to)
	if refusal != "" {
		return refusal
	}
	inbox, _ := listInbox(c.store, c.self.Addr)
	n := 0
	for _, it := range inbox {
		if it.letter.From.Addr == t.Addr {
			n++
		}
	}
	if n > 0 {
		return fmt.Sprintf("You have %d unread message(s) from \"%s\" — reply before asking.", n, t.Name)
	}
	// The waiter exists before the letter leaves, so a fast reply is never missed.
	ch := make(chan askOutcome, 1)
	l, _, refusal := c.sendLetterWaiting(t, body, ch)
	if refusal != "" {
		return refusal
	}
	c.setWaiting()
	defer c.SetWorking()
	wait := max(time.Second, timeout)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var out askOutcome
	select {
	case out = <-ch:
	case <-timer.C:
		out = askOutcome{reason: fmt.Sprintf("no reply within %ds", jsRound(float64(timeout.Milliseconds())/1000))}
	case <-ctx.Done():
		out = askOutcome{reason: "aborted"}
	}
	c.mu.Lock()
	delete(c.waiters, l.ID)
	c.mu.Unlock()
	clearAsk(c.store, c.self.Addr, l.ID)
	if !out.replied {
		return fmt.Sprintf("Ask %s to \"%s\": %s.", last8(l.ID), t.Name, out.reason)
	}
	return fmt.Sprintf("\"%s\" replied:\n\n%s", t.Name, out.body)
}

// sendLetterWaiting deposits an ask with its waiter and outgoing-ask record in place first.
func (c *Core) sendLetterWaiting(t Record, body string, ch chan askOutcome) (Letter, string, string) {
	id := newMessageID()
	c.mu.Lock()
	c.waiters[id] = ch
	c.mu.Unlock()
	// The outgoing record carries the letter's own ts: both sides arbitrate on it.
	ts := c.now().UnixMilli()
	_ = trackOutgoingAsk(c.store, c.self.Addr, outAsk{AskID: id, ToAddr: t.Addr, Body: body, Ts: ts})
	l, verdict, refusal := c.sendLetterID(t, KindAsk, body, "", id, ts)
	if refusal != "" {
		c.mu.Lock()
		delete(c.waiters, id)
		c.mu.Unlock()
		clearAsk(c.store, c.self.Addr, id)
		return l, "", refusal
	}
	return l, verdict, ""
}

// Reply is talk-reply: it answers a pending ask by id or unique id suffix.
func (c *Core) Reply(replyTo, body string) string {
	if body == "" {
		return "reply requires 'message'."
	}
	if replyTo == "" {
		return "reply requires 'replyTo' (the ask/message id, shown in the delivered message)."
	}
	ask, _ := resolveAskByRef(c.store, c.self.Addr, replyTo)
	if ask == nil {
		return fmt.Sprintf("No pending ask matches '%s'.", replyTo)
	}
	target := Record{Addr: ask.From.Addr, AgentID: ask.From.AgentID, Name: ask.From.Name, Cwd: ask.From.Cwd, StartedAt: ask.Ts, LastSeenAt: ask.Ts, Status: StatusIdle}
	recs, _ := listRecords(c.store)
	for _, r := range recs {
		if r.Addr == ask.From.Addr {
			target = r
		}
	}
	_, verdict, refusal := c.sendLetter(target, KindReply, body, ask.ID)
	if refusal != "" {
		return refusal
	}
	clearAsk(c.store, c.self.Addr, ask.ID)
	return fmt.Sprintf("Replied to \"%s\" (ask %s): %s.", target.Name, last8(ask.ID), verdict)
}

// MarkDead is /talk-dead: target "" marks this session.
func (c *Core) MarkDead(target string) string {
	if target == "" {
		c.mu.Lock()
		c.dead = true
		c.mu.Unlock()
		c.writeSelf(func(r *Record) { r.Offline = true })
		return "Marked this agent as dead."
	}
	t, refusal := c.resolveTarget(target)
	if refusal != "" {
		return refusal
	}
	t.LastSeenAt, t.Offline = 0, true
	_ = writeRecord(c.store, t)
	return fmt.Sprintf("Marked \"%s\" as dead.", t.Name)
}

// MarkAllDead is /talk-dead --all.
func (c *Core) MarkAllDead() string {
	ps := c.peers()
	for _, p := range ps {
		p.LastSeenAt, p.Offline = 0, true
		_ = writeRecord(c.store, p)
	}
	return fmt.Sprintf("Marked %d agent(s) as dead.", len(ps))
}

func (c *Core) leaveCurrent() {
	g, _ := groupForAgent(c.store, c.self.AgentID)
	if g == nil {
		return
	}
	others := without(g.Members, c.self.AgentID)
	if len(others) == 0 {
		_ = deleteGroup(c.store, g.ID)
		return
	}
	g.Members, g.UpdatedAt = others, c.now().UnixMilli()
	_ = writeGroup(c.store, *g)
}

func without(ids []string, id string) []string {
	out := []string{}
	for _, m := range ids {
		if m != id {
			out = append(out, m)
		}
	}
	return out
}

// GroupJoin is /talk-group-join: join (or create) name, "" for a fresh uuid; alias != ""
// also sets the display name.
func (c *Core) GroupJoin(name, alias string) string {
	name = strings.TrimSpace(name)
	if name == "" {
		name = uuid.NewString()
	}
	if !validGroupName(name) {
		return fmt.Sprintf("Invalid group name '%s'. Allowed: letters, digits, '-' and '_' (max 64 chars).", name)
	}
	note := ""
	if alias != "" {
		c.writeSelf(func(r *Record) { r.Name, r.Alias = alias, alias })
		note = fmt.Sprintf(" You are visible as \"%s\".", alias)
	}
	g, _ := readGroup(c.store, name)
	if g != nil {
		for _, m := range g.Members {
			if m == c.self.AgentID {
				return fmt.Sprintf("Already in group %s (%d member(s)).%s", name, len(g.Members), note)
			}
		}
	}
	c.leaveCurrent()
	if g != nil {
		g, _ = readGroup(c.store, name)
	}
	now := c.now().UnixMilli()
	if g != nil {
		g.Members, g.UpdatedAt = append(g.Members, c.self.AgentID), now
		_ = writeGroup(c.store, *g)
		return fmt.Sprintf("Joined group %s (%d member(s)). You now see only co-members.%s", name, len(g.Members), note)
	}
	_ = writeGroup(c.store, Group{ID: name, Members: []string{c.self.AgentID}, CreatedAt: now, UpdatedAt: now})
	return fmt.Sprintf("Created group %s.%s Other agents join it with /talk-group-join %s.", name, note, name)
}

// GroupJoinLast is /talk-group-join-last.
func (c *Core) GroupJoinLast(alias string) string {
	gs, _ := listGroups(c.store)
	if len(gs) == 0 {
		return "No groups. Create one with /talk-group-join."
	}
	latest := gs[0]
	for _, g := range gs[1:] {
		if g.CreatedAt > latest.CreatedAt {
			latest = g
		}
	}
	return c.GroupJoin(latest.ID, alias)
}

// GroupLeave is /talk-group-leave.
func (c *Core) GroupLeave() string {
	g, _ := groupForAgent(c.store, c.self.AgentID)
	if g == nil {
		return "Not in any group."
	}
	others := without(g.Members, c.self.AgentID)
	if len(others) == 0 {
		_ = deleteGroup(c.store, g.ID)
		return fmt.Sprintf("Left group %s (deleted — it was empty).", g.ID)
	}
	g.Members, g.UpdatedAt = others, c.now().UnixMilli()
	_ = writeGroup(c.store, *g)
	return fmt.Sprintf("Left group %s (%d member(s) remain).", g.ID, len(others))
}

// GroupDelete is /talk-group-del.
func (c *Core) GroupDelete(name string) string {
	name = strings.TrimSpace(name)
	if !validGroupName(name) {
		return fmt.Sprintf("Invalid group name '%s'.", name)
	}
	g, _ := readGroup(c.store, name)
	if g == nil {
		return fmt.Sprintf("Unknown group '%s'. Run /talk-group-list to see groups.", name)
	}
	_ = deleteGroup(c.store, name)
	return fmt.Sprintf("Deleted group %s (%d member(s)).", name, len(g.Members))
}

// GroupClear is /talk-group-clear.
func (c *Core) GroupClear() string {
	gs, _ := listGroups(c.store)
	for _, g := range gs {
		_ = deleteGroup(c.store, g.ID)
	}
	if len(gs) == 0 {
		return "No groups."
	}
	return fmt.Sprintf("Deleted %d group(s).", len(gs))
}

// GroupList is /talk-group-list: every group, newest first.
func (c *Core) GroupList() string {
	gs, _ := listGroups(c.store)
	if len(gs) == 0 {
		return "No groups."
	}
	recs, _ := listRecords(c.store)
	label := func(id string) string {
		short := id
		if len(id) > 8 {
			short = id[:8] + "…"
		}
		for _, r := range recs {
			if r.AgentID == id {
				return fmt.Sprintf("%s (%s)", r.Name, short)
			}
		}
		return fmt.Sprintf("unknown agent (%s)", short)
	}
	sort.SliceStable(gs, func(i, j int) bool { return gs[i].CreatedAt > gs[j].CreatedAt })
	now := c.now().UnixMilli()
	lines := make([]string, len(gs))
	for i, g := range gs {
		ms := make([]string, len(g.Members))
		for j, m := range g.Members {
			ms[j] = label(m)
			if m == c.self.AgentID {
				ms[j] += " ← you"
			}
		}
		lines[i] = fmt.Sprintf("- %s (created %s): %s", g.ID, age(g.CreatedAt, now), strings.Join(ms, ", "))
	}
	return fmt.Sprintf("Groups (%d):\n%s", len(gs), strings.Join(lines, "\n"))
}

// Settings is settings.json "talk".
type Settings struct {
	DBPath  string `json:"db_path"`
	Deliver string `json:"deliver"`
}

// DBPath is where the mailbox lives: env PI_TALK_DB, else talk.db_path (~ expanded, relative
// to agentDir), else <agentDir>/talk.db.
func DBPath(agentDir, envValue, setting string) string {
	p := envValue
	if p == "" {
		p = setting
	}
	if p == "" {
		return filepath.Join(agentDir, "talk.db")
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, _ := os.UserHomeDir()
		return filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		return filepath.Join(agentDir, p)
	}
	return p
}

package talk

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pigo-agent/pigo/internal/engines/allengines"
	"github.com/pigo-agent/pigo/internal/engines/enginestest"
)

// chanQueue is a loop's queues as channels.
type chanQueue struct{ steer, follow chan string }

func newChanQueue() *chanQueue {
	return &chanQueue{steer: make(chan string, 2000), follow: make(chan string, 2000)}
}
func (q *chanQueue) Steer(t string)    { q.steer <- t }
func (q *chanQueue) FollowUp(t string) { q.follow <- t }

func startCore(t testing.TB, db, id string, mod func(*Options)) *Core {
	t.Helper()
	st, err := OpenStore(db)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Store: st, AgentID: id, Cwd: "/work/" + id, Name: "agent " + id, Poll: 20 * time.Millisecond, InitialDelay: time.Millisecond, ReceiptWait: 300 * time.Millisecond}
	if mod != nil {
		mod(&o)
	}
	c, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Stop(); st.Close() })
	return c
}

var idLine = regexp.MustCompile(`_id ([0-9a-f-]{36}) · ask`)

// TestMain lets the test binary act as a second pigo process talking through the same file:
// TALK_PEER=<db> runs a peer that answers every ask with "pong: <question>", echoes every
// message back to its sender, and exits when told "bye".
func TestMain(m *testing.M) {
	if db := os.Getenv("TALK_PEER"); db != "" {
		os.Exit(runPeer(db, os.Getenv("TALK_PEER_GROUP")))
	}
	// The store's SQLite file is served by the pigo-engines helper: this test binary.
	enginestest.Main(m, allengines.Servers)
}

func runPeer(db, group string) int {
	st, err := OpenStore(db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c, err := Start(Options{Store: st, AgentID: "peer-b", Cwd: "/work/b", Name: "bob", Poll: 10 * time.Millisecond, InitialDelay: time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Stop()
	c.GroupJoin(group, "")
	q := newChanQueue()
	c.Attach(q)
	fmt.Println("ready")
	count := 0
	for text := range q.follow {
		body := strings.SplitN(strings.SplitN(text, ":\n\n", 2)[1], "\n\n_id ", 2)[0]
		if m := idLine.FindStringSubmatch(text); m != nil {
			fmt.Println(c.Reply(m[1], "pong: "+body))
			continue
		}
		if body == "bye" {
			fmt.Println("received", count)
			return 0
		}
		count++
	}
	return 0
}

func startPeer(t testing.TB, db, group string) (*exec.Cmd, *strings.Builder) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TALK_PEER="+db, "TALK_PEER_GROUP="+group)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd, out
}

func waitFor(t testing.TB, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Two processes on one SQLite file: a message is delivered with a receipt, an ask blocks
// until the other process replies, and the peer's presence shows as live.
func TestTwoProcesses(t *testing.T) {
	db := filepath.Join(t.TempDir(), "talk.db")
	a := startCore(t, db, "peer-a", nil)
	a.GroupJoin("team", "")
	q := newChanQueue()
	a.Attach(q)
	cmd, out := startPeer(t, db, "team")
	waitFor(t, "the peer in the listing", func() bool { return strings.Contains(a.List(""), `"id": "peer-b"`) })
	if got := a.List(""); !strings.Contains(got, `"status": "idle",
    "work_dir": "/work/b",
    "id": "peer-b",
    "name": "bob"`) {
		t.Fatalf("listing:\n%s", got)
	}
	got := a.Send("peer-b", "hello")
	if !regexp.MustCompile(`^Sent to "bob" \([0-9a-f]{6}\) \[id [0-9a-f-]{8}\]: delivered\.$`).MatchString(got) {
		t.Fatalf("send: %q", got)
	}
	got = a.Ask(context.Background(), "peer-b", "ping?", time.Minute)
	if got != "\"bob\" replied:\n\npong: ping?" {
		t.Fatalf("ask: %q", got)
	}
	if got := a.Send("peer-b", "bye"); !strings.HasSuffix(got, ": delivered.") {
		t.Fatalf("send bye: %q", got)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("peer: %v\n%s", err, out)
	}
	if !strings.Contains(out.String(), "received 1") || !regexp.MustCompile(`Replied to "agent peer-a" \(ask [0-9a-f-]{8}\): delivered\.`).MatchString(out.String()) {
		t.Fatalf("peer output:\n%s", out)
	}
	// The peer stopped: its record is offline, and mail to it now waits on disk.
	if got := a.Send("peer-b", "later"); !strings.HasSuffix(got, ": queued (target is offline — waits on disk).") {
		t.Fatalf("send offline: %q", got)
	}
	if !strings.Contains(a.List(""), `"status": "offline"`) {
		t.Fatalf("listing after exit:\n%s", a.List(""))
	}
}

// Delivery text and mode: queue → FollowUp, steer → Steer, the seed's delivery text.
func TestDeliveryModes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "talk.db")
	a := startCore(t, db, "a", nil)
	b := startCore(t, db, "b", func(o *Options) { o.Deliver = DeliverSteer })
	a.GroupJoin("g1", "")
	b.GroupJoin("g1", "")
	qa, qb := newChanQueue(), newChanQueue()
	a.Attach(qa)
	b.Attach(qb)
	if got := a.Send("b", "to b"); !strings.HasSuffix(got, "delivered.") {
		t.Fatal(got)
	}
	text := <-qb.steer
	want := regexp.MustCompile("^This came from another pi agent, not from the user\\.\n\nFrom pi agent a \\(/work/a\\) — \"agent a\":\n\nto b\n\n_id [0-9a-f-]{36} · message · sent 0s ago_$")
	if !want.MatchString(text) {
		t.Fatalf("delivery: %q", text)
	}
	if got := b.Send("a", "to a"); !strings.HasSuffix(got, "delivered.") {
		t.Fatal(got)
	}
	if text := <-qa.follow; !strings.Contains(text, "\n\nto a\n\n") {
		t.Fatalf("follow-up: %q", text)
	}
}

// A letter sent before the loop attaches waits in the inbox (no receipt), then arrives.
func TestQueuedUntilAttached(t *testing.T) {
	db := filepath.Join(t.TempDir(), "talk.db")
	a := startCore(t, db, "a", nil)
	b := startCore(t, db, "b", nil)
	a.GroupJoin("g", "")
	b.GroupJoin("g", "")
	if got := a.Send("b", "early"); !strings.HasSuffix(got, ": queued (waits on disk until the agent resumes).") {
		t.Fatal(got)
	}
	q := newChanQueue()
	b.Attach(q)
	if text := <-q.follow; !strings.Contains(text, "\n\nearly\n\n") {
		t.Fatal(text)
	}
}

func TestRefuseInbound(t *testing.T) {
	db := filepath.Join(t.TempDir(), "talk.db")
	a := startCore(t, db, "a", nil)
	b := startCore(t, db, "b", func(o *Options) { o.RefuseInbound = true })
	a.GroupJoin("g", "")
	b.GroupJoin("g", "")
	b.Attach(newChanQueue())
	if got := a.Send("b", "x"); !strings.HasSuffix(got, "queued (waits on disk until the agent resumes).") {
		t.Fatal(got)
	}
	if n, _ := unreadCount(a.store, b.Addr()); n != 1 {
		t.Fatalf("unread %d", n)
	}
}

// The seed's limits and their texts, on a fixed clock.
func TestLimits(t *testing.T) {
	db := filepath.Join(t.TempDir(), "talk.db")
	var mu sync.Mutex
	clock := time.UnixMilli(1_000_000)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	a := startCore(t, db, "a", func(o *Options) { o.Now = now })
	b := startCore(t, db, "b", func(o *Options) { o.Now = now })
	a.GroupJoin("g", "")
	b.GroupJoin("g", "")
	// b has no loop: every send waits on disk and the backlog grows.
	b.Stop()
	if got := a.Send("b", strings.Repeat("x", MaxBodyChars+1)); got != "Message is 32769 chars; cap is 32768. Send a summary and a path, not a payload." {
		t.Fatal(got)
	}
	if got := a.Send("b", strings.Repeat("é", MaxBodyChars)); strings.HasPrefix(got, "Message is") {
		t.Fatalf("32768 UTF-16 units are allowed: %s", got)
	}
	if got := a.Send("b", strings.Repeat("😀", MaxBodyChars/2+1)); got != "Message is 32770 chars; cap is 32768. Send a summary and a path, not a payload." {
		t.Fatal(got)
	}
	if got := a.Send("b", "same"); !strings.HasSuffix(got, "queued (target is offline — waits on disk).") {
		t.Fatal(got)
	}
	if got := a.Send("b", "same"); got != "Identical message to the same peer less than 10s ago — dropped to break loops." {
		t.Fatal(got)
	}
	for i := 2; i < 8; i++ {
		if got := a.Send("b", fmt.Sprint("m", i)); !strings.Contains(got, "queued") {
			t.Fatal(i, got)
		}
	}
	if got := a.Send("b", "ninth"); got != "Rate limited: 8 messages per 30s per agent." {
		t.Fatal(got)
	}
	mu.Lock()
	clock = clock.Add(31 * time.Second)
	mu.Unlock()
	if got := a.Send("b", "same"); !strings.Contains(got, "queued") {
		t.Fatal("dedup and rate windows passed:", got)
	}
	// Backlog: fill b's inbox to 50 directly, as other peers would.
	for i := 0; i < BacklogCap; i++ {
		l := Letter{ID: newMessageID(), From: Sender{Addr: "aaaaaaaaaaaa", Name: "x", Cwd: "/", AgentID: "x"}, Kind: KindMessage, Body: "b", Ts: int64(i)}
		if err := deposit(a.store, b.Addr(), l); err != nil {
			t.Fatal(err)
		}
	}
	if got := a.Send("b", "over"); got != "Peer has 59 unread messages (cap 50); wait for it to drain." {
		t.Fatal(got)
	}
}

func TestRefusalsAndGroups(t *testing.T) {
	db := filepath.Join(t.TempDir(), "talk.db")
	var mu sync.Mutex
	clock := time.UnixMilli(5_000_000)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	a := startCore(t, db, "a", func(o *Options) { o.Now = now })
	b := startCore(t, db, "b0123456789", func(o *Options) { o.Now = now })
	cases := []struct{ got, want string }{
		{a.Send("b0123456789", "x"), "Unknown agent id 'b0123456789'. Get agent ids with talk-list-agents."},
		{a.Send("", "x"), `send requires "to".`},
		{a.Send("b", ""), `send requires "message".`},
		{a.Send("*", "x"), "send requires a single agent id; broadcasting is disabled."},
		{a.Ask(context.Background(), "cwd", "x", time.Second), "ask is 1:1 and cannot broadcast."},
		{a.Ask(context.Background(), "", "x", time.Second), `ask requires "to".`},
		{a.Reply("", "x"), "reply requires 'replyTo' (the ask/message id, shown in the delivered message)."},
		{a.Reply("x", ""), "reply requires 'message'."},
		{a.Reply("nope", "x"), "No pending ask matches 'nope'."},
		{a.GroupLeave(), "Not in any group."},
		{a.GroupJoinLast(""), "No groups. Create one with /talk-group-join."},
		{a.GroupList(), "No groups."},
		{a.GroupClear(), "No groups."},
		{a.GroupJoin("bad name", ""), "Invalid group name 'bad name'. Allowed: letters, digits, '-' and '_' (max 64 chars)."},
		// Typed as a command, the whole name is validated, never its first word.
		{a.Command("talk-group-join", "my team"), "Invalid group name 'my team'. Allowed: letters, digits, '-' and '_' (max 64 chars)."},
		{a.Command("talk-group-del", "my team"), "Invalid group name 'my team'."},
		{a.GroupDelete("nope"), "Unknown group 'nope'. Run /talk-group-list to see groups."},
		{a.GroupDelete("a/b"), "Invalid group name 'a/b'."},
		{a.GroupJoin("team", "alice"), `Created group team. You are visible as "alice". Other agents join it with /talk-group-join team.`},
		{a.GroupJoin("team", ""), "Already in group team (1 member(s))."},
		{b.GroupJoinLast(""), "Joined group team (2 member(s)). You now see only co-members."},
		{b.GroupList(), "Groups (1):\n- team (created 0s ago): alice (a), agent b0123456789 (b0123456…) ← you"},
		{a.MarkDead("b0123456789"), `Marked "agent b0123456789" as dead.`},
		{a.MarkAllDead(), "Marked 1 agent(s) as dead."},
		{b.GroupLeave(), "Left group team (1 member(s) remain)."},
		{a.GroupLeave(), "Left group team (deleted — it was empty)."},
		{a.GroupJoin("x1", ""), "Created group x1. Other agents join it with /talk-group-join x1."},
		{a.GroupDelete("x1"), "Deleted group x1 (1 member(s))."},
		{a.MarkDead(""), "Marked this agent as dead."},
		{a.List(""), "[]"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("%d: got %q\nwant %q", i, c.got, c.want)
		}
	}
	if got := b.List(""); !strings.Contains(got, `"self": true`) {
		t.Fatal(got)
	}
}

func TestAskTimeoutAndAbort(t *testing.T) {
	db := filepath.Join(t.TempDir(), "talk.db")
	a := startCore(t, db, "a", nil)
	b := startCore(t, db, "b", nil)
	a.GroupJoin("g", "")
	b.GroupJoin("g", "")
	b.Attach(newChanQueue())
	got := a.Ask(context.Background(), "b", "q", 1000*time.Millisecond)
	if !regexp.MustCompile(`^Ask [0-9a-f-]{8} to "agent b": no reply within 1s\.$`).MatchString(got) {
		t.Fatal(got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	got = a.Ask(ctx, "b", "q2", time.Minute)
	if !strings.HasSuffix(got, `to "agent b": aborted.`) {
		t.Fatal(got)
	}
	// b has our asks in its context; asking b back is refused until a replies.
	if got := b.Send("a", "note"); !strings.Contains(got, "queued") {
		t.Fatal(got)
	}
	if got := a.Ask(context.Background(), "b", "q3", time.Second); got != `You have 1 unread message(s) from "agent b" — reply before asking.` {
		t.Fatal(got)
	}
}

// Mutual asks: an ask from the peer arriving while ours waits, and written earlier than ours,
// makes ours yield with the seed's text (the earlier asker keeps waiting).
func TestMutualAskArbitration(t *testing.T) {
	if !PeerAskedFirst(1, "/b", "b", 2, "/a", "a") || PeerAskedFirst(2, "/b", "b", 1, "/a", "a") {
		t.Fatal("ts order")
	}
	if !PeerAskedFirst(1, "/a", "a", 1, "/b", "b") || PeerAskedFirst(1, "/b", "b", 1, "/a", "a") {
		t.Fatal("tie break")
	}
	db := filepath.Join(t.TempDir(), "talk.db")
	slow := func(o *Options) { o.Poll, o.InitialDelay = time.Hour, time.Hour }
	a := startCore(t, db, "a", slow)
	b := startCore(t, db, "b", slow)
	a.GroupJoin("g", "")
	b.GroupJoin("g", "")
	b.Attach(newChanQueue())
	res := make(chan string, 1)
	go func() { res <- b.Ask(context.Background(), "a", "from b", time.Minute) }()
	waitFor(t, "b's outgoing ask", func() bool { ids, _ := outgoingAskIDs(b.store, b.Addr()); return len(ids) == 1 })
	waitFor(t, "b's waiter", func() bool { b.mu.Lock(); defer b.mu.Unlock(); return len(b.waiters) == 1 })
	self := a.selfRecord()
	peerAsk := Letter{ID: newMessageID(), From: Sender{Addr: self.Addr, Name: self.Name, Cwd: self.Cwd, AgentID: self.AgentID}, Kind: KindAsk, Body: "from a", Ts: 1}
	if err := deposit(a.store, b.Addr(), peerAsk); err != nil {
		t.Fatal(err)
	}
	b.CheckInbox()
	got := <-res
	want := fmt.Sprintf(`to "agent a": peer asked first (their ask id %s) — answer it with talk-reply before re-asking.`, last8(peerAsk.ID))
	if !strings.HasPrefix(got, "Ask ") || !strings.HasSuffix(got, want) {
		t.Fatalf("got %q", got)
	}
	// a's ask is now pending at b: b answers it by id suffix.
	if r := b.Reply(last8(peerAsk.ID), "answer"); !strings.HasPrefix(r, `Replied to "agent a" (ask `) {
		t.Fatal(r)
	}
}

func TestCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "talk.db")
	a := startCore(t, db, "a", nil)
	b := startCore(t, db, "b", nil)
	for _, c := range []struct {
		core             *Core
		name, args, want string
	}{
		{a, "talk-group-join", "crew --name alice", `Created group crew. You are visible as "alice". Other agents join it with /talk-group-join crew.`},
		{b, "talk-group-join-last", "-n bob", `Joined group crew (2 member(s)). You now see only co-members. You are visible as "bob".`},
		{a, "talk-dead", "--all b", "--all cannot be combined with an agent id.\nTry '/talk-dead --help' for usage."},
		{a, "talk-dead", "-a", "Marked 1 agent(s) as dead."},
		{a, "talk-group-del", "crew", "Deleted group crew (2 member(s))."},
		{a, "talk-group-clear", "", "No groups."},
	} {
		if got := c.core.Command(c.name, c.args); got != c.want {
			t.Errorf("/%s %s: got %q want %q", c.name, c.args, got, c.want)
		}
	}
}

// A session's start sweeps the registry: a dead agent quiet for a day loses its record, one
// with undelivered mail keeps it for 30 days; a live agent, a recent one and a record that is
// not valid are left alone (the sweep reads liveness first and checks a record whole only
// when it may go).
func TestSweepReclaimsOnlyOldDeadRecords(t *testing.T) {
	st, err := OpenStore(filepath.Join(t.TempDir(), "talk.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UnixMilli()
	day := int64(24 * time.Hour / time.Millisecond)
	dead := 1 << 22 // above pid_max's default: no such process
	rec := func(id string, pid int, lastSeen int64) Record {
		return Record{Addr: DeriveAddr("/w", id), AgentID: id, Name: id, Cwd: "/w", Pid: pid, StartedAt: lastSeen - 10, LastSeenAt: lastSeen, Status: StatusIdle}
	}
	old, recent, live, mailed := rec("old", dead, now-2*day), rec("recent", dead, now-1000), rec("live", os.Getpid(), now-2*day), rec("mailed", dead, now-2*day)
	for _, r := range []Record{old, recent, live, mailed} {
		if err := writeRecord(st, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.WriteJSON(inboxNS(mailed.Addr), "m1.json", map[string]string{"body": "hi"}); err != nil {
		t.Fatal(err)
	}
	invalid := DeriveAddr("/w", "invalid") // no status: not a record the registry lists
	if err := st.WriteJSON(recordsNS, invalid+".json", map[string]any{"addr": invalid, "pid": dead, "lastSeenAt": now - 2*day}); err != nil {
		t.Fatal(err)
	}
	if err := sweep(st, now); err != nil {
		t.Fatal(err)
	}
	keys, err := st.ListKeys(recordsNS)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(keys, " ")
	for _, r := range []Record{recent, live, mailed} {
		if !strings.Contains(got, r.Addr) {
			t.Errorf("%s's record was swept: %s", r.AgentID, got)
		}
	}
	if !strings.Contains(got, invalid) {
		t.Errorf("an invalid record was swept: %s", got)
	}
	if strings.Contains(got, old.Addr) {
		t.Errorf("the day-old dead record was kept: %s", got)
	}
}

package talk

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkThousandMessages sends 1,000 letters from this process to a peer process through
// one SQLite file; the peer drains its inbox (deliver, then remove) until it has them all.
// Policy limits are per session, so the letters go through the mailbox layer directly.
func BenchmarkThousandMessages(b *testing.B) {
	for i := 0; i < b.N; i++ {
		db := filepath.Join(b.TempDir(), "talk.db")
		st, err := OpenStore(db)
		if err != nil {
			b.Fatal(err)
		}
		to := DeriveAddr("/b", "bench-b")
		cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^$")
		cmd.Env = append(os.Environ(), "TALK_DRAIN="+db, "TALK_DRAIN_N=1000")
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		from := Sender{Addr: DeriveAddr("/a", "bench-a"), Name: "a", Cwd: "/a", AgentID: "bench-a"}
		for j := 0; j < 1000; j++ {
			l := Letter{ID: newMessageID(), From: from, Kind: KindMessage, Body: fmt.Sprint("message ", j), Ts: time.Now().UnixMilli()}
			if err := deposit(st, to, l); err != nil {
				b.Fatal(err)
			}
		}
		if err := cmd.Wait(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		st.Close()
	}
}

func init() {
	db := os.Getenv("TALK_DRAIN")
	if db == "" {
		return
	}
	n, _ := strconv.Atoi(os.Getenv("TALK_DRAIN_N"))
	st, err := OpenStore(db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	addr := DeriveAddr("/b", "bench-b")
	got := 0
	for got < n {
		items, err := listInbox(st, addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, it := range items {
			if _, err := st.RemoveKey(inboxNS(addr), it.key); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			got++
		}
		if len(items) == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	os.Exit(0)
}

// BenchmarkStart100Records is a session's talk start (its record written, the registry swept)
// with 100 records of sessions that ended within the day, what a user who runs `pigo -p` from
// a script accumulates: the records are kept a day, so a start reads every one of them.
func BenchmarkStart100Records(b *testing.B) {
	st, err := OpenStore(filepath.Join(b.TempDir(), "talk.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UnixMilli()
	for i := 0; i < 100; i++ {
		id := fmt.Sprint("ended-", i)
		r := Record{Addr: DeriveAddr("/w", id), AgentID: id, Name: "Unnamed agent", Cwd: "/w", Pid: 1 << 22, StartedAt: now - 1000, LastSeenAt: now - 500, Status: StatusIdle, Offline: true}
		if err := writeRecord(st, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := Start(Options{Store: st, AgentID: "bench", Cwd: "/w", InitialDelay: time.Hour, Poll: time.Hour})
		if err != nil {
			b.Fatal(err)
		}
		c.Stop()
	}
}

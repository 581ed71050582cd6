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

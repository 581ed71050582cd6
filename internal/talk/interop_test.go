package talk

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pySeed writes the database the way the seed's SqliteTalkStorage does (another SQLite
// implementation: CPython's sqlite3 module): WAL, the two tables, a pi agent's record, a group
// holding it and pigo, and a letter from pi waiting in pigo's inbox.
const pySeed = `
import json, sqlite3, sys, time
db, pigo_addr = sys.argv[1], sys.argv[2]
c = sqlite3.connect(db)
c.execute("PRAGMA journal_mode = WAL")
c.execute("PRAGMA busy_timeout = 5000")
c.execute("CREATE TABLE IF NOT EXISTS talk_kv (namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (namespace, key))")
c.execute("CREATE TABLE IF NOT EXISTS talk_log (name TEXT NOT NULL, seq INTEGER PRIMARY KEY AUTOINCREMENT, line TEXT NOT NULL)")
rec = {"addr": "0123456789ab", "agentId": "pi-agent", "name": "pi side", "cwd": "/srv/pi", "pid": 999999999, "startedAt": 1, "lastSeenAt": int(time.time() * 1000), "status": "idle"}
c.execute("INSERT OR REPLACE INTO talk_kv VALUES (?,?,?)", ("records", "0123456789ab.json", json.dumps(rec, separators=(",", ":"))))
grp = {"id": "mixed", "members": ["pi-agent", "pigo-agent"], "createdAt": 5, "updatedAt": 5}
c.execute("INSERT OR REPLACE INTO talk_kv VALUES (?,?,?)", ("groups", "mixed.json", json.dumps(grp)))
letter = {"id": "11111111-2222-3333-4444-555555555555", "from": {"addr": "0123456789ab", "name": "pi side", "cwd": "/srv/pi", "agentId": "pi-agent"}, "kind": "message", "body": "hello from pi", "ts": 10}
c.execute("INSERT OR REPLACE INTO talk_kv VALUES (?,?,?)", ("inbox/" + pigo_addr, "10-" + letter["id"] + ".json", json.dumps(letter)))
c.commit()
`

// pyRead prints what a pi session would read back: the journal mode, and its inbox.
const pyRead = `
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
print(c.execute("PRAGMA journal_mode").fetchone()[0])
for (v,) in c.execute("SELECT value FROM talk_kv WHERE namespace = 'inbox/0123456789ab' ORDER BY key"):
    print(v)
`

func python(t *testing.T) string {
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	if exec.Command(p, "-c", "import sqlite3").Run() != nil {
		t.Skip("python3 has no sqlite3 module")
	}
	return p
}

func TestFileFormatWithPythonSQLite(t *testing.T) {
	py := python(t)
	db := filepath.Join(t.TempDir(), "talk.db")
	addr := DeriveAddr("/work/pigo", "pigo-agent")
	if out, err := exec.Command(py, "-c", pySeed, db, addr).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	c := startCore(t, db, "pigo-agent", func(o *Options) { o.Cwd = "/work/pigo" })
	want := `[
  {
    "status": "offline",
    "work_dir": "/srv/pi",
    "id": "pi-agent",
    "name": "pi side"
  },
  {
    "status": "idle",
    "work_dir": "/work/pigo",
    "id": "pigo-agent",
    "name": "agent pigo-agent",
    "self": true
  }
]`
	if got := c.List(""); got != want {
		t.Fatalf("listing:\n%s", got)
	}
	q := newChanQueue()
	c.Attach(q)
	if text := <-q.follow; !strings.HasPrefix(text, "This came from another pi agent, not from the user.\n\nFrom pi agent pi-agent (/srv/pi) — \"pi side\":\n\nhello from pi\n\n_id 11111111-2222-3333-4444-555555555555 · message · sent ") {
		t.Fatalf("delivery: %q", text)
	}
	if got := c.Send("pi-agent", "hello from <pigo> & co"); !strings.HasSuffix(got, "queued (target is offline — waits on disk).") {
		t.Fatal(got)
	}
	out, err := exec.Command(py, "-c", pyRead, db).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || lines[0] != "wal" {
		t.Fatalf("python read:\n%s", out)
	}
	var l map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &l); err != nil {
		t.Fatal(err)
	}
	from := l["from"].(map[string]any)
	if l["body"] != "hello from <pigo> & co" || l["kind"] != "message" || from["agentId"] != "pigo-agent" || from["addr"] != addr || from["cwd"] != "/work/pigo" {
		t.Fatalf("letter: %s", lines[1])
	}
	if strings.Contains(lines[1], `\u003c`) {
		t.Fatalf("HTML-escaped JSON (JSON.stringify does not escape): %s", lines[1])
	}
}

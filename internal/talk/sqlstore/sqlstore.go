// Package sqlstore is talk's SQLite mailbox file, served in the pigo-engines helper
// (`pigo-engines store PATH`): pigo does not link the SQLite driver (modernc's, pure Go, with its
// C runtime: their initialisation cost every pigo start ~1 ms; internal/engines). The client is
// internal/talk's Store; the protocol is internal/talk/storewire. The file's schema and values
// are the seed's (pi's node:sqlite writes the same file).
package sqlstore

import (
	"bufio"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver: no cgo, the same file format as pi's node:sqlite

	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/talk/storewire"
)

// Memory bounds the helper's address space beyond its start: SQLite's page cache and one
// answer (storewire.MaxFrame) fit many times over. No CPU limit: the store lives as long as
// the session.
var Memory = uint64(1 << 30)

// Serve is the engine's server: it opens the file, answers the opening, then one answer per
// request until stdin ends (pigo closed it, or pigo is gone).
func Serve(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintf(stderr, "usage: %s store PATH (talk's SQLite mailbox; pigo runs it)\n", engines.Name)
		return 64
	}
	if err := engines.SetLimits(0, Memory); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	in, out := bufio.NewReader(stdin), bufio.NewWriter(stdout)
	db, err := open(args[0])
	if err != nil {
		if storewire.WriteStrings(out, storewire.StatusFail, err.Error()) != nil {
			return 1
		}
		return 0
	}
	defer db.Close()
	if storewire.WriteStrings(out, storewire.StatusOK) != nil {
		return 1
	}
	for {
		req, err := storewire.Read(in)
		if err == io.EOF {
			return 0
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		res, err := serve(db, req)
		if err != nil {
			err = storewire.WriteStrings(out, storewire.StatusFail, err.Error())
		} else {
			err = storewire.Write(out, append([][]byte{[]byte(storewire.StatusOK)}, res...)...)
		}
		if err != nil {
			return 1
		}
	}
}

// open opens (creating when missing) the database at path. busy_timeout is set in the DSN
// before journal_mode: two sessions opening a fresh file at once otherwise fail with "database
// is locked" while one of them switches the journal to WAL.
func open(path string) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS talk_kv (
        namespace TEXT NOT NULL,
        key       TEXT NOT NULL,
        value     TEXT NOT NULL,
        PRIMARY KEY (namespace, key)
      )`,
		`CREATE TABLE IF NOT EXISTS talk_log (
        name TEXT NOT NULL,
        seq  INTEGER PRIMARY KEY AUTOINCREMENT,
        line TEXT NOT NULL
      )`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return db, nil
}

// arity is each operation's number of arguments.
var arity = map[string]int{
	storewire.OpKeys: 1, storewire.OpValues: 1, storewire.OpGet: 2, storewire.OpPut: 3,
	storewire.OpDelete: 2, storewire.OpHas: 1, storewire.OpDropNS: 1, storewire.OpAppend: 2,
	storewire.OpLog: 1,
}

func serve(db *sql.DB, req [][]byte) ([][]byte, error) {
	if len(req) == 0 {
		return nil, errors.New("empty request")
	}
	op := string(req[0])
	n, ok := arity[op]
	if !ok || len(req)-1 != n {
		return nil, fmt.Errorf("bad request %q with %d arguments", op, len(req)-1)
	}
	a := make([]string, n)
	for i := range a {
		a[i] = string(req[i+1])
	}
	switch op {
	case storewire.OpKeys:
		return column(db, "SELECT key FROM talk_kv WHERE namespace = ? ORDER BY key", a[0])
	case storewire.OpValues:
		return rows(db, "SELECT key, value FROM talk_kv WHERE namespace = ? ORDER BY key", 2, a[0])
	case storewire.OpGet:
		var v []byte
		err := db.QueryRow("SELECT value FROM talk_kv WHERE namespace = ? AND key = ?", a[0], a[1]).Scan(&v)
		if err == sql.ErrNoRows {
			return nil, nil
		}
		return [][]byte{v}, err
	case storewire.OpPut:
		_, err := db.Exec("INSERT OR REPLACE INTO talk_kv (namespace, key, value) VALUES (?, ?, ?)", a[0], a[1], a[2])
		return nil, err
	case storewire.OpDelete:
		r, err := db.Exec("DELETE FROM talk_kv WHERE namespace = ? AND key = ?", a[0], a[1])
		if err != nil {
			return nil, err
		}
		n, _ := r.RowsAffected()
		return [][]byte{flag(n > 0)}, nil
	case storewire.OpHas:
		var one int
		err := db.QueryRow("SELECT 1 FROM talk_kv WHERE namespace = ? LIMIT 1", a[0]).Scan(&one)
		if err == sql.ErrNoRows {
			return [][]byte{flag(false)}, nil
		}
		return [][]byte{flag(true)}, err
	case storewire.OpDropNS:
		_, err := db.Exec("DELETE FROM talk_kv WHERE namespace = ?", a[0])
		return nil, err
	case storewire.OpAppend:
		_, err := db.Exec("INSERT INTO talk_log (name, line) VALUES (?, ?)", a[0], a[1])
		return nil, err
	default: // storewire.OpLog
		return column(db, "SELECT line FROM talk_log WHERE name = ? ORDER BY seq", a[0])
	}
}

func flag(b bool) []byte {
	if b {
		return []byte("1")
	}
	return []byte("0")
}

func column(db *sql.DB, query, arg string) ([][]byte, error) {
	return rows(db, query, 1, arg)
}

// rows returns the cols columns of every row, in order, bounded as a frame is.
func rows(db *sql.DB, query string, cols int, arg string) ([][]byte, error) {
	r, err := db.Query(query, arg)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out [][]byte
	total := 0
	for r.Next() {
		vals := make([][]byte, cols)
		ptrs := make([]any, cols)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := r.Scan(ptrs...); err != nil {
			return nil, err
		}
		for _, v := range vals {
			total += len(v) + 10
		}
		if total > storewire.MaxFrame || len(out)+cols >= storewire.MaxItems {
			return nil, storewire.ErrTooLarge
		}
		out = append(out, vals...)
	}
	return out, r.Err()
}

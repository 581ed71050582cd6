// Package talk is the seed's talk extension: messages between agent sessions on one machine
// through a SQLite mailbox shared with pi sessions (the same file, schema and JSON values,
// so a pigo session and a pi session talk to each other). The layers follow the seed's:
// store.go (the key/value store and the audit log over SQLite), registry.go (who is around
// and whether they are live), mailbox.go (letters, asks, audit), policy.go (the loop-breaking
// limits), group.go (visibility), format.go (the texts the model reads) and core.go (the
// session's side: the inbox poll, delivery into the agent loop's queues, the tool actions).
package talk

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver: no cgo, the same file format as pi's node:sqlite
)

// Store is the seed's TalkStorage over one SQLite file: namespaced JSON values (talk_kv) and
// append-only logs (talk_log).
type Store struct {
	db *sql.DB
}

// OpenStore opens (creating when missing) the talk database at path. busy_timeout is set in
// the DSN before journal_mode: two sessions opening a fresh file at once otherwise fail with
// "database is locked" while one of them switches the journal to WAL.
func OpenStore(path string) (*Store, error) {
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
	return &Store{db: db}, nil
}

// Close closes the database handle.
func (s *Store) Close() error { return s.db.Close() }

// ListKeys returns the keys of namespace, sorted.
func (s *Store) ListKeys(namespace string) ([]string, error) {
	rows, err := s.db.Query("SELECT key FROM talk_kv WHERE namespace = ? ORDER BY key", namespace)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// Values returns the keys of namespace and their raw values, sorted by key, in one query (a
// registry of many records is read at every session start).
func (s *Store) Values(namespace string) (keys []string, values [][]byte, err error) {
	rows, err := s.db.Query("SELECT key, value FROM talk_kv WHERE namespace = ? ORDER BY key", namespace)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v []byte
		if err := rows.Scan(&k, &v); err != nil {
			return nil, nil, err
		}
		keys, values = append(keys, k), append(values, v)
	}
	return keys, values, rows.Err()
}

// ReadJSON decodes the value under namespace/key into v; false when absent or not valid JSON
// for v (a foreign or corrupt value is skipped, never trusted).
func (s *Store) ReadJSON(namespace, key string, v any) (bool, error) {
	var raw string
	err := s.db.QueryRow("SELECT value FROM talk_kv WHERE namespace = ? AND key = ?", namespace, key).Scan(&raw)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if json.Unmarshal([]byte(raw), v) != nil {
		return false, nil
	}
	return true, nil
}

// WriteJSON stores v under namespace/key (one atomic upsert).
func (s *Store) WriteJSON(namespace, key string, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	_, err = s.db.Exec("INSERT OR REPLACE INTO talk_kv (namespace, key, value) VALUES (?, ?, ?)", namespace, key, string(b))
	return err
}

// RemoveKey deletes namespace/key; true when it existed.
func (s *Store) RemoveKey(namespace, key string) (bool, error) {
	r, err := s.db.Exec("DELETE FROM talk_kv WHERE namespace = ? AND key = ?", namespace, key)
	if err != nil {
		return false, err
	}
	n, _ := r.RowsAffected()
	return n > 0, nil
}

// HasKeys reports whether namespace holds at least one key.
func (s *Store) HasKeys(namespace string) (bool, error) {
	var one int
	err := s.db.QueryRow("SELECT 1 FROM talk_kv WHERE namespace = ? LIMIT 1", namespace).Scan(&one)
	if err == sql.ErrNoRows {
		return false, nil
	}
	return err == nil, err
}

// RemoveNamespace deletes every key of namespace.
func (s *Store) RemoveNamespace(namespace string) error {
	_, err := s.db.Exec("DELETE FROM talk_kv WHERE namespace = ?", namespace)
	return err
}

// AppendLog appends one line to the log name.
func (s *Store) AppendLog(name, line string) error {
	_, err := s.db.Exec("INSERT INTO talk_log (name, line) VALUES (?, ?)", name, line)
	return err
}

// ReadLog returns the lines of the log name, oldest first.
func (s *Store) ReadLog(name string) ([]string, error) {
	rows, err := s.db.Query("SELECT line FROM talk_log WHERE name = ? ORDER BY seq", name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	return lines, rows.Err()
}

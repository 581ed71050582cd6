// Package talk is the seed's talk extension: messages between agent sessions on one machine
// through a SQLite mailbox shared with pi sessions (the same file, schema and JSON values,
// so a pigo session and a pi session talk to each other). The layers follow the seed's:
// store.go (the key/value store and the audit log over SQLite), registry.go (who is around
// and whether they are live), mailbox.go (letters, asks, audit), policy.go (the loop-breaking
// limits), group.go (visibility), format.go (the texts the model reads) and core.go (the
// session's side: the inbox poll, delivery into the agent loop's queues, the tool actions).
package talk

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/engines"
	"github.com/pigo-agent/pigo/internal/headbuf"
	"github.com/pigo-agent/pigo/internal/talk/storewire"
)

// Store is the seed's TalkStorage over one SQLite file: namespaced JSON values (talk_kv) and
// append-only logs (talk_log). The file is served by the pigo-engines helper's store engine
// (internal/talk/sqlstore: pigo does not link SQLite), one helper per Store, for the Store's
// life; calls are serialised over its stdin and stdout (internal/talk/storewire).
type Store struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	w      *bufio.Writer
	r      *bufio.Reader
	stderr *headbuf.Buffer
	err    error // the helper failed: every later call returns this
	closed bool
}

// OpenStore opens (creating when missing) the talk database at path, in a pigo-engines helper.
func OpenStore(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	cmd, err := engines.Command(context.Background(), "store", abs)
	if err != nil {
		return nil, err
	}
	s := &Store{cmd: cmd, stderr: &headbuf.Buffer{}}
	cmd.Stderr = s.stderr
	if s.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", engines.Name, err)
	}
	s.w, s.r = bufio.NewWriter(s.in), bufio.NewReader(out)
	if _, err := s.answer(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close ends the helper: its stdin closes, it closes the database and exits; one that has not
// within closeWait is killed.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.in.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && s.err == nil {
			return s.failure(err)
		}
		return nil
	case <-time.After(closeWait):
		s.cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s: the talk store did not close within %v and was killed", engines.Name, closeWait)
	}
}

// closeWait is how long Close waits for the helper to close the database (a checkpoint of the
// WAL on a slow disk) before killing it.
const closeWait = 10 * time.Second

// callWait bounds one call (a var: tests shorten it).
var callWait = time.Minute

// call sends one request and returns the answer's results.
func (s *Store) call(op string, args ...string) ([][]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("talk: the store is closed")
	}
	if s.err != nil {
		return nil, s.err
	}
	// A helper that does not answer (SQLite waits at most busy_timeout, 5 s, for a lock) is
	// killed, which fails this call and the Store.
	hung := time.AfterFunc(callWait, func() { s.cmd.Process.Kill() })
	defer hung.Stop()
	if err := storewire.WriteStrings(s.w, append([]string{op}, args...)...); err != nil {
		s.err = s.failure(err)
		return nil, s.err
	}
	return s.answer()
}

// answer reads one answer: its results, or the server's error. A broken stream (the helper
// crashed or was killed, or it answered beyond the protocol's bounds) fails the Store for good.
func (s *Store) answer() ([][]byte, error) {
	f, err := storewire.Read(s.r)
	if err == nil && (len(f) == 0 || (string(f[0]) != storewire.StatusOK && (string(f[0]) != storewire.StatusFail || len(f) != 2))) {
		err = errors.New("an answer outside the store protocol")
	}
	if err != nil {
		s.err = s.failure(err)
		s.cmd.Process.Kill()
		return nil, s.err
	}
	if string(f[0]) == storewire.StatusFail {
		return nil, errors.New(string(f[1]))
	}
	return f[1:], nil
}

// failure describes a broken helper: the stream's error and the first line it wrote on stderr.
func (s *Store) failure(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = errors.New("it ended")
	}
	if t := s.stderr.FirstLine(); t != "" {
		return fmt.Errorf("%s (talk store): %v: %s", engines.Name, err, t)
	}
	return fmt.Errorf("%s (talk store): %v", engines.Name, err)
}

func strs(b [][]byte) []string {
	if len(b) == 0 {
		return nil
	}
	out := make([]string, len(b))
	for i, v := range b {
		out[i] = string(v)
	}
	return out
}

// ListKeys returns the keys of namespace, sorted.
func (s *Store) ListKeys(namespace string) ([]string, error) {
	res, err := s.call(storewire.OpKeys, namespace)
	return strs(res), err
}

// Values returns the keys of namespace and their raw values, sorted by key, in one query (a
// registry of many records is read at every session start).
func (s *Store) Values(namespace string) (keys []string, values [][]byte, err error) {
	res, err := s.call(storewire.OpValues, namespace)
	if err != nil {
		return nil, nil, err
	}
	if len(res)%2 != 0 {
		return nil, nil, errors.New("talk store: an odd number of keys and values")
	}
	for i := 0; i < len(res); i += 2 {
		keys, values = append(keys, string(res[i])), append(values, res[i+1])
	}
	return keys, values, nil
}

// ReadJSON decodes the value under namespace/key into v; false when absent or not valid JSON
// for v (a foreign or corrupt value is skipped, never trusted).
func (s *Store) ReadJSON(namespace, key string, v any) (bool, error) {
	res, err := s.call(storewire.OpGet, namespace, key)
	if err != nil || len(res) == 0 {
		return false, err
	}
	if json.Unmarshal(res[0], v) != nil {
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
	_, err = s.call(storewire.OpPut, namespace, key, string(b))
	return err
}

// RemoveKey deletes namespace/key; true when it existed.
func (s *Store) RemoveKey(namespace, key string) (bool, error) {
	res, err := s.call(storewire.OpDelete, namespace, key)
	return err == nil && len(res) == 1 && string(res[0]) == "1", err
}

// HasKeys reports whether namespace holds at least one key.
func (s *Store) HasKeys(namespace string) (bool, error) {
	res, err := s.call(storewire.OpHas, namespace)
	return err == nil && len(res) == 1 && string(res[0]) == "1", err
}

// RemoveNamespace deletes every key of namespace.
func (s *Store) RemoveNamespace(namespace string) error {
	_, err := s.call(storewire.OpDropNS, namespace)
	return err
}

// AppendLog appends one line to the log name.
func (s *Store) AppendLog(name, line string) error {
	_, err := s.call(storewire.OpAppend, name, line)
	return err
}

// ReadLog returns the lines of the log name, oldest first.
func (s *Store) ReadLog(name string) ([]string, error) {
	res, err := s.call(storewire.OpLog, name)
	return strs(res), err
}

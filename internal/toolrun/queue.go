package toolrun

import "sync"

// mutationQueue serialises writers per file (pi's withFileMutationQueue): calls on the same
// key run one after another, calls on different files in parallel.
type mutationQueue struct {
	mu    sync.Mutex
	locks map[string]*queueLock
}

type queueLock struct {
	mu    sync.Mutex
	users int
}

// WithFile runs fn while holding path's mutation lock. The key is the path's read key (the
// real path a write would land on), so a file reached through a symlinked directory and by
// its real path shares one queue, before and after it exists.
func (s *Session) WithFile(path string, fn func() error) error {
	unlock := s.queue.lock(ReadKey(path))
	defer unlock()
	return fn()
}

// lock takes key's lock and returns its release.
func (q *mutationQueue) lock(key string) func() {
	q.mu.Lock()
	if q.locks == nil {
		q.locks = map[string]*queueLock{}
	}
	l := q.locks[key]
	if l == nil {
		l = &queueLock{}
		q.locks[key] = l
	}
	l.users++
	q.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		q.mu.Lock()
		if l.users--; l.users == 0 {
			delete(q.locks, key)
		}
		q.mu.Unlock()
	}
}

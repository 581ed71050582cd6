package app

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/talk"
	talktools "github.com/pigo-agent/pigo/internal/tools/talk"
)

// talkState is the session's talk endpoint. A new session starts it on first use (a talk tool
// or a /talk* command): until it joins a group nobody else can see or write to it (group
// visibility, seed 004's talk README), so its registry record, the SQLite open and the
// inbox poll would only cost every -p run milliseconds and fsyncs. A continued session starts
// it at once: it may be a member of a group whose agents see it and wait for its answers, and
// mail for it may be waiting.
type talkState struct {
	mu    sync.Mutex
	open  func() (*talk.Core, *talk.Store, error)
	core  *talk.Core
	store *talk.Store
	err   error // the start's failure, reported by each use
	// queue is the running prompt's (nil between prompts): a core started during a prompt
	// attaches it and is marked working, as it would have been at the prompt's start.
	queue talk.Queue
}

// startTalk prepares the session's talk endpoint when a talk tool is active: the mailbox at
// PI_TALK_DB, settings talk.db_path or <agentDir>/talk.db, registered under the session id.
// Letters reach the loop only while a prompt runs (talkTurn); between prompts they wait on
// disk, so a -p run that ends never swallows one. now starts it at once (a continued session):
// on another goroutine, its helper process starting while the caller goes on (the read-state
// replay of a long session); the returned wait gives the start's error, after which the
// session has no talk endpoint, as before it started it.
func (s *Session) startTalk(now bool) (wait func() error) {
	none := func() error { return nil }
	active := s.o.Talk
	for _, name := range s.runner.OfferedNames() {
		if strings.HasPrefix(name, "talk-") {
			active = true
		}
	}
	if !active {
		return none
	}
	ts := s.settings.Talk
	path := talk.DBPath(s.setup.AgentDir, s.getenv("PI_TALK_DB"), ts.DBPath)
	deliver := talk.DeliverQueue
	if ts.Deliver == talk.DeliverSteer {
		deliver = talk.DeliverSteer
	}
	f := s.file
	opts := talk.Options{AgentID: f.ID(), Cwd: s.setup.Cwd,
		Deliver: deliver, RefuseInbound: s.getenv("PI_TALK_INBOUND") == "refuse"}
	t := &talkState{open: func() (*talk.Core, *talk.Store, error) {
		st, err := talk.OpenStore(path)
		if err != nil {
			return nil, nil, failf("talk: %v", err)
		}
		o := opts
		o.Store, o.Name = st, f.Name()
		core, err := talk.Start(o)
		if err != nil {
			st.Close()
			return nil, nil, failf("talk: %s: %v", path, err)
		}
		return core, st, nil
	}}
	s.talk = t
	talktools.SetTalkFunc(s.tools, t.get)
	if !now {
		return none
	}
	started := make(chan error, 1)
	go func() {
		_, err := t.get()
		started <- err
	}()
	return func() error {
		if err := <-started; err != nil {
			s.talk = nil
			talktools.SetTalk(s.tools, nil)
			return err
		}
		return nil
	}
}

// get starts the endpoint on first use and returns its core.
func (t *talkState) get() (*talk.Core, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.core != nil || t.err != nil {
		return t.core, t.err
	}
	t.core, t.store, t.err = t.open()
	if t.core != nil && t.queue != nil {
		t.core.SetWorking()
		t.core.Attach(t.queue)
	}
	return t.core, t.err
}

func (s *Session) stopTalk() {
	t := s.talk
	if t == nil {
		return
	}
	s.talk = nil
	talktools.SetTalk(s.tools, nil)
	t.mu.Lock()
	core, store := t.core, t.store
	t.core, t.err = nil, errTalkStopped
	t.mu.Unlock()
	if core == nil {
		return
	}
	core.Stop()
	if err := store.Close(); err != nil {
		s.fe.Notice(Notice{Text: fmt.Sprintf("talk: %v", err), Error: true})
	}
}

var errTalkStopped = errors.New("talk: the session is closed")

// talkTurn attaches the loop's queues for one prompt and marks the session working.
func (s *Session) talkTurn(q talk.Queue) {
	if t := s.talk; t != nil {
		t.mu.Lock()
		t.queue = q
		core := t.core
		t.mu.Unlock()
		if core != nil {
			core.SetWorking()
			core.Attach(q)
		}
	}
}

// talkSettle detaches the queues once the prompt settled and marks the session idle.
func (s *Session) talkSettle() {
	if t := s.talk; t != nil {
		t.mu.Lock()
		t.queue = nil
		core := t.core
		t.mu.Unlock()
		if core != nil {
			core.Attach(nil)
			core.SetIdle()
		}
	}
}

// talkCommands are the /talk* commands (commands/talk.cue).
var talkCommands = []string{"talk", "talk-dead", "talk-group-join", "talk-group-join-last", "talk-group-leave",
	"talk-group-list", "talk-group-del", "talk-group-clear"}

func (s *Session) getenv(k string) string {
	if s.o.Getenv == nil {
		return ""
	}
	return s.o.Getenv(k)
}

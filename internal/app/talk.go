package app

import (
	"fmt"
	"strings"

	"github.com/pigo-agent/pigo/internal/talk"
	talktools "github.com/pigo-agent/pigo/internal/tools/talk"
)

// talkState is the session's talk endpoint.
type talkState struct {
	core  *talk.Core
	store *talk.Store
}

// startTalk starts the session's talk endpoint when a talk tool is active: the mailbox at
// PI_TALK_DB, settings talk.db_path or <agentDir>/talk.db, registered under the session id.
// Letters reach the loop only while a prompt runs (talkTurn); between prompts they wait on
// disk, so a -p run that ends never swallows one.
func (s *Session) startTalk() error {
	active := s.o.Talk
	for _, t := range s.runner.LLMTools() {
		if strings.HasPrefix(t.Name, "talk-") {
			active = true
		}
	}
	if !active {
		return nil
	}
	ts := s.settings.Talk
	path := talk.DBPath(s.setup.AgentDir, s.getenv("PI_TALK_DB"), ts.DBPath)
	st, err := talk.OpenStore(path)
	if err != nil {
		return failf("talk: %v", err)
	}
	deliver := talk.DeliverQueue
	if ts.Deliver == talk.DeliverSteer {
		deliver = talk.DeliverSteer
	}
	core, err := talk.Start(talk.Options{Store: st, AgentID: s.file.ID(), Cwd: s.setup.Cwd, Name: s.file.Name(),
		Deliver: deliver, RefuseInbound: s.getenv("PI_TALK_INBOUND") == "refuse"})
	if err != nil {
		st.Close()
		return failf("talk: %s: %v", path, err)
	}
	s.talk = &talkState{core: core, store: st}
	talktools.SetTalk(s.tools, core)
	return nil
}

func (s *Session) stopTalk() {
	t := s.talk
	if t == nil {
		return
	}
	s.talk = nil
	talktools.SetTalk(s.tools, nil)
	t.core.Stop()
	if err := t.store.Close(); err != nil {
		s.fe.Notice(Notice{Text: fmt.Sprintf("talk: %v", err), Error: true})
	}
}

// talkTurn attaches the loop's queues for one prompt and marks the session working.
func (s *Session) talkTurn(q talk.Queue) {
	if s.talk != nil {
		s.talk.core.SetWorking()
		s.talk.core.Attach(q)
	}
}

// talkSettle detaches the queues once the prompt settled and marks the session idle.
func (s *Session) talkSettle() {
	if s.talk != nil {
		s.talk.core.Attach(nil)
		s.talk.core.SetIdle()
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

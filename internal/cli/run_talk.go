package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/naming"
	"github.com/pigo-agent/pigo/internal/talk"
	"github.com/pigo-agent/pigo/internal/toolrun"
	"github.com/pigo-agent/pigo/internal/tools"
)

// requestHeaders is the seed's request-headers extension: Thread-Id carries the session id
// on every provider request, over any value the model's headers set.
func requestHeaders(sessionID string) map[string]string {
	if sessionID == "" {
		return nil
	}
	return map[string]string{"Thread-Id": sessionID}
}

// startTalk starts the session's talk endpoint when a talk tool is active: the mailbox at
// PI_TALK_DB, settings talk.db_path or <agentDir>/talk.db, registered under the session id.
// Letters reach the loop only while a prompt runs (talkTurn); between prompts they wait on
// disk, so a -p run that ends never swallows one.
func (c *CLI) startTalk(r *run, settings []byte, ts *toolrun.Session) error {
	active := false
	for _, t := range r.tools.LLMTools() {
		if strings.HasPrefix(t.Name, "talk-") {
			active = true
		}
	}
	if !active {
		return nil
	}
	var s struct {
		Talk talk.Settings `json:"talk"`
	}
	_ = json.Unmarshal(settings, &s)
	path := talk.DBPath(r.cfg.AgentDir, c.getenv("PI_TALK_DB"), s.Talk.DBPath)
	st, err := talk.OpenStore(path)
	if err != nil {
		return exitf(ExitFailed, "talk: %v", err)
	}
	deliver := talk.DeliverQueue
	if s.Talk.Deliver == talk.DeliverSteer {
		deliver = talk.DeliverSteer
	}
	core, err := talk.Start(talk.Options{Store: st, AgentID: r.sess.ID(), Cwd: r.cfg.ProjectDir, Name: r.sess.Name(),
		Deliver: deliver, RefuseInbound: c.getenv("PI_TALK_INBOUND") == "refuse"})
	if err != nil {
		st.Close()
		return exitf(ExitFailed, "talk: %s: %v", path, err)
	}
	r.talk = core
	tools.SetTalk(ts, core)
	r.closers = append(r.closers, func() {
		tools.SetTalk(ts, nil)
		core.Stop()
		if err := st.Close(); err != nil {
			fmt.Fprintf(c.Stderr, "pigo: talk: %v\n", err)
		}
	})
	return nil
}

// talkTurn attaches the loop's queues for one prompt and marks the session working.
func (r *run) talkTurn(q talk.Queue) {
	if r.talk != nil {
		r.talk.SetWorking()
		r.talk.Attach(q)
	}
}

// talkSettle detaches the queues once the prompt settled and marks the session idle.
func (r *run) talkSettle() {
	if r.talk != nil {
		r.talk.Attach(nil)
		r.talk.SetIdle()
	}
}

// talkCommands are the /talk* commands (commands/talk.cue).
var talkCommands = map[string]bool{"talk": true, "talk-dead": true, "talk-group-join": true, "talk-group-join-last": true,
	"talk-group-leave": true, "talk-group-list": true, "talk-group-del": true, "talk-group-clear": true}

// talkCommand runs a /talk* prompt and prints its text; false when text is not one.
func (r *run) talkCommand(text string, out io.Writer) bool {
	if r.talk == nil || !strings.HasPrefix(text, "/") {
		return false
	}
	name, args, _ := strings.Cut(text[1:], " ")
	if !talkCommands[name] {
		return false
	}
	fmt.Fprintln(out, r.talk.Command(name, args))
	return true
}

// startNaming is the seed's session-name: an unnamed session's first user prompt (the first
// user message of a continued session) becomes its name through the sessionName model, in
// the background; the returned func waits for it. Without a UI (-p) its warnings are not
// shown, as pi's print mode shows no notifications.
func (c *CLI) startNaming(ctx context.Context, r *run, prompt string) func() {
	if r.sess.Name() != "" {
		return func() {}
	}
	text := strings.TrimSpace(prompt)
	for _, m := range r.sess.Context().Messages {
		if m.Role == llm.RoleUser {
			if t := strings.TrimSpace(m.Text()); t != "" {
				text = t
				break
			}
		}
	}
	conf := naming.ParseConfig(r.settingsJSON)
	if text == "" || conf == nil || conf.Model == "" {
		return func() {}
	}
	m, err := r.cfg.ProviderModel(conf.Provider+"/"+conf.Model, "")
	if err != nil || m == nil {
		return func() {}
	}
	p, err := providerFor(m.API)
	if err != nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		name, err := naming.Generate(ctx, p, m, llm.Options{ProxyURL: r.proxy, SessionID: r.sess.ID(), Headers: requestHeaders(r.sess.ID())}, text, conf.MaxLength)
		if err == nil {
			_, _ = r.sess.AppendSessionInfo(name)
		}
	}()
	return func() { <-done }
}

// reportedCost is the seed's openai-cost provider: its requests take the provider's own
// usage.cost as the cost total (the openai-completions client reads the three shapes).
func reportedCost(m *llm.Model) bool {
	return m != nil && m.ReportedCost && m.API == "openai-completions"
}

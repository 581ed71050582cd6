// Package aft binds the aft tools (outline, zoom, callgraph, search) to the aft server.
package aft

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/aft"
	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/github"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Register adds the package's tools to r.
func Register(r *toolrun.Impls) {
	r.Register("aft", "aft_outline", toolrun.Impl{Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		var a struct {
			Target       json.RawMessage `json:"target"`
			Files        *bool           `json:"files"`
			IncludeTests *bool           `json:"includeTests"`
		}
		if err := inv.Decode(&a); err != nil {
			return toolrun.Result{}, err
		}
		args := map[string]any{}
		var one string
		var many []string
		switch {
		case json.Unmarshal(a.Target, &one) == nil:
			if strings.TrimSpace(one) == "" {
				return toolrun.Result{}, errors.New("aft_outline: target is empty")
			}
			if isURL(one) && (a.Files == nil || !*a.Files) {
				if err := aftNetwork(inv, "aft_outline", one); err != nil {
					return toolrun.Result{}, err
				}
			}
			args["target"] = one
		case json.Unmarshal(a.Target, &many) == nil:
			if len(many) == 0 {
				return toolrun.Result{}, errors.New("aft_outline: target is an empty array")
			}
			args["target"] = many
		default:
			return toolrun.Result{}, errors.New("aft_outline: target must be a path, a URL or an array of paths")
		}
		if a.Files != nil && *a.Files {
			args["files"] = true
		}
		if a.IncludeTests != nil {
			args["includeTests"] = *a.IncludeTests
		}
		return aftCall(ctx, inv, "outline", args)
	}})

	r.Register("aft", "aft_zoom", toolrun.Impl{Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		var a struct {
			Path    string          `json:"path"`
			URL     string          `json:"url"`
			Symbols json.RawMessage `json:"symbols"`
			Targets []struct {
				Path   string `json:"path"`
				Symbol string `json:"symbol"`
			} `json:"targets"`
			ContextLines *int  `json:"contextLines"`
			Callgraph    *bool `json:"callgraph"`
		}
		if err := inv.Decode(&a); err != nil {
			return toolrun.Result{}, err
		}
		hasSymbols := len(a.Symbols) > 0 && string(a.Symbols) != `""` && string(a.Symbols) != "[]" && string(a.Symbols) != "null"
		args := map[string]any{}
		switch {
		case len(a.Targets) > 0:
			if a.Path != "" || a.URL != "" || hasSymbols {
				return toolrun.Result{}, errors.New("aft_zoom: give targets alone, without path, url or symbols")
			}
			var ts []map[string]string
			for i, t := range a.Targets {
				if t.Path == "" || t.Symbol == "" {
					return toolrun.Result{}, fmt.Errorf("aft_zoom: targets[%d] needs a path and a symbol", i)
				}
				ts = append(ts, map[string]string{"filePath": t.Path, "symbol": t.Symbol})
			}
			args["targets"] = ts
		case a.Path != "" && a.URL != "":
			return toolrun.Result{}, errors.New("aft_zoom: give path or url, not both")
		case a.URL != "":
			if err := aftNetwork(inv, "aft_zoom", a.URL); err != nil {
				return toolrun.Result{}, err
			}
			args["url"] = a.URL
		case a.Path != "":
			args["filePath"] = a.Path
		default:
			return toolrun.Result{}, errors.New("aft_zoom: give one of path (with symbols), url (with symbols) or targets")
		}
		if hasSymbols {
			args["symbols"] = a.Symbols
		}
		if a.ContextLines != nil {
			args["contextLines"] = *a.ContextLines
		}
		if a.Callgraph != nil && *a.Callgraph {
			args["callgraph"] = true
		}
		return aftCall(ctx, inv, "zoom", args)
	}})

	r.Register("aft", "aft_callgraph", toolrun.Impl{Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		var a struct {
			Op                string `json:"op"`
			Path              string `json:"path"`
			Symbol            string `json:"symbol"`
			Depth             *int   `json:"depth"`
			Expression        string `json:"expression"`
			ToSymbol          string `json:"toSymbol"`
			ToPath            string `json:"toPath"`
			IncludeTests      *bool  `json:"includeTests"`
			IncludeUnresolved *bool  `json:"includeUnresolved"`
		}
		if err := inv.Decode(&a); err != nil {
			return toolrun.Result{}, err
		}
		switch {
		case strings.TrimSpace(a.Path) == "":
			return toolrun.Result{}, fmt.Errorf("aft_callgraph: op %s needs a path", a.Op)
		case strings.TrimSpace(a.Symbol) == "":
			return toolrun.Result{}, fmt.Errorf("aft_callgraph: op %s needs a symbol", a.Op)
		case a.Op == "trace_data" && a.Expression == "":
			return toolrun.Result{}, errors.New("aft_callgraph: op trace_data needs an expression")
		case a.Op == "trace_to_symbol" && a.ToSymbol == "":
			return toolrun.Result{}, errors.New("aft_callgraph: op trace_to_symbol needs a toSymbol")
		}
		args := map[string]any{"op": a.Op, "filePath": a.Path, "symbol": a.Symbol}
		if a.Depth != nil {
			args["depth"] = *a.Depth
		}
		if a.Expression != "" {
			args["expression"] = a.Expression
		}
		if a.ToSymbol != "" {
			args["toSymbol"] = a.ToSymbol
		}
		if a.ToPath != "" {
			args["toFile"] = a.ToPath
		}
		if a.IncludeTests != nil {
			args["includeTests"] = *a.IncludeTests
		}
		if a.IncludeUnresolved != nil {
			args["includeUnresolved"] = *a.IncludeUnresolved
		}
		return aftCall(ctx, inv, "callgraph", args)
	}})

	r.Register("aft", "aft_search", toolrun.Impl{Execute: func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		var a struct {
			Query        string `json:"query"`
			TopK         *int   `json:"topK"`
			IncludeTests *bool  `json:"includeTests"`
			Path         string `json:"path"`
		}
		if err := inv.Decode(&a); err != nil {
			return toolrun.Result{}, err
		}
		if strings.TrimSpace(a.Query) == "" {
			return toolrun.Result{}, errors.New("aft_search: query is empty")
		}
		args := map[string]any{"query": a.Query}
		if a.TopK != nil {
			args["topK"] = *a.TopK
		}
		if a.IncludeTests != nil {
			args["includeTests"] = *a.IncludeTests
		}
		if a.Path != "" {
			args["path"] = a.Path
		}
		return aftCall(ctx, inv, "search", args)
	}})
}

// The aft toolset: the seed's four read-only AFT tools, each one `tool_call` request to the
// session's resident aft process (package aft). The answer's agent-facing text is the model's
// content; the whole answer (without the protocol's id and success) is the tool's details and
// its structured result.

// AFTSetup is what a session needs to run aft: the binary the session start found and the
// user-level aft.jsonc.
type AFTSetup struct {
	Bin    string
	Config aft.Config
}

type aftKey struct{}

// aftState is the session's aft: its setup and, after the first call, its client.
type aftState struct {
	mu     sync.Mutex
	setup  *AFTSetup
	client *aft.Client
}

// SetAFT gives session s the aft binary and config found at session start. The first aft tool
// call starts the process; s.Close ends it.
func SetAFT(s *toolrun.Session, setup AFTSetup) {
	st := s.State(aftKey{}, func() any { return &aftState{} }).(*aftState)
	st.mu.Lock()
	st.setup = &setup
	st.mu.Unlock()
}

// aftClient returns the session's client, made on first use.
func aftClient(s *toolrun.Session) (*aft.Client, error) {
	st := s.State(aftKey{}, func() any { return &aftState{} }).(*aftState)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.client != nil {
		return st.client, nil
	}
	if st.setup == nil || st.setup.Bin == "" {
		return nil, errors.New("aft is not set up in this session: the session start found no aft binary")
	}
	id := s.Env.SessionID
	if id == "" {
		id = "no-session"
	}
	st.client = aft.New(aft.Options{Bin: st.setup.Bin, Root: s.Cwd, SessionID: id,
		Log: aft.LogPath(s.AgentDir, id), Config: st.setup.Config})
	c := st.client
	s.OnClose(func() { c.Close() })
	return c, nil
}

// aftBuilding is how long a call waits for aft's call graph store while it is built in the
// background (the answer's code is callgraph_building); past it the answer goes to the model.
var aftBuilding = 20 * time.Second

// aftCall sends one tool_call and turns the answer into a result. Soft negatives (a symbol that
// is not there, a call graph still building) are answers, not errors, as the seed treats them.
func aftCall(ctx context.Context, inv *toolrun.Invocation, name string, args map[string]any) (toolrun.Result, error) {
	c, err := aftClient(inv.Session)
	if err != nil {
		return toolrun.Result{}, err
	}
	deadline := time.Now().Add(aftBuilding)
	var resp *aft.Response
	for {
		resp, err = c.ToolCall(ctx, name, args)
		if err != nil {
			if ctx.Err() != nil {
				return toolrun.Result{}, errors.New("Operation aborted")
			}
			return toolrun.Result{}, err
		}
		if resp.Success || resp.Code != "callgraph_building" || time.Now().After(deadline) {
			break
		}
		inv.Progress(toolrun.TextResult("aft is building the call graph…", nil))
		select {
		case <-ctx.Done():
			return toolrun.Result{}, errors.New("Operation aborted")
		case <-time.After(250 * time.Millisecond):
		}
	}
	text := resp.Text
	if text == "" {
		text = resp.Message
	}
	if !resp.Success {
		switch resp.Code {
		case "symbol_not_found", "callgraph_building":
		default:
			if text == "" {
				text = name + " failed"
			}
			return toolrun.Result{}, errors.New(text)
		}
	}
	text = unwrapText(text)
	var fields map[string]json.RawMessage
	_ = json.Unmarshal(resp.Fields, &fields)
	if fields == nil {
		fields = map[string]json.RawMessage{}
	}
	fields["text"] = toolrun.MustJSON(text)
	raw := toolrun.MustJSON(fields)
	r := toolrun.TextResult(text, nil)
	r.Details, r.Structured = raw, raw
	return r, nil
}

// unwrapText takes the text out of an answer whose text is itself a JSON object with a text
// field (aft renders some directory outlines that way).
func unwrapText(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return s
	}
	var v struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal([]byte(t), &v) == nil && v.Text != nil {
		return *v.Text
	}
	return s
}

func isURL(s string) bool {
	for _, p := range []string{"http://", "https://"} {
		if strings.HasPrefix(strings.ToLower(s), p) {
			return true
		}
	}
	return false
}

// aftNetwork refuses a URL target when the sandbox blocks the network: aft fetches it from
// outside the sandbox, so it would be a way around network.mode "block".
func aftNetwork(inv *toolrun.Invocation, tool, url string) error {
	if mode := inv.Session.SandboxPolicy().NetMode; mode == "block" || mode == "" {
		return fmt.Errorf("%s: %s cannot be fetched: sandbox.json's network.mode is \"block\", and aft would fetch it outside the sandbox", tool, url)
	}
	return nil
}

// Notice is a message of the session start, as the seed's extensions send them with
// ui.notify in session_start: the chat shows them at its start; `pigo -p` does not (pi's
// print mode drops notifications). `pigo tools` gives the same facts per tool: an aft or
// GitHub tool left out is listed unavailable with its condition as the reason.
type Notice struct {
	// Level is "error" or "warning".
	Level string `json:"level"`
	// Code is a stable name ("gh-missing", "aft-missing", "aft-config", "aft-search").
	Code string `json:"code"`
	Text string `json:"text"`
}

// AFTStart is what the session start found of aft (config.AFTSetup, as values).
type AFTStart struct {
	Found bool
	Tried []string
	// Config is the user-level aft.jsonc.
	Config aft.Config
}

// StartNotices are the toolsets' session-start messages for a resolved registry: the GitHub
// tools without gh (the seed's error text), aft not found (a warning naming where it was looked
// for), an aft.jsonc that could not be used, aft_search left out for want of an embedding
// backend. A toolset whose every declaration a personalExtensions rule disables says nothing.
func StartNotices(reg *engine.Result, a AFTStart) []Notice {
	var out []Notice
	if declared(reg, "toolset:github") {
		if why := github.Unavailable(); why != "" {
			level := "error"
			if why == github.WindowsText {
				level = "warning"
			}
			out = append(out, Notice{Level: level, Code: "gh-missing", Text: why})
		}
	}
	if declared(reg, "toolset:aft") {
		if a.Config.Problem != "" {
			out = append(out, Notice{Level: "warning", Code: "aft-config", Text: "aft: " + a.Config.Problem})
		}
		switch {
		case !a.Config.Enabled:
		case !a.Found:
			out = append(out, Notice{Level: "warning", Code: "aft-missing", Text: fmt.Sprintf(
				"aft: the aft binary was not found (looked in %s); aft_outline, aft_zoom, aft_callgraph and aft_search are not registered. Install it with `npm install -g %s` or `cargo install agent-file-tools`.",
				strings.Join(a.Tried, ", "), aft.PlatformPackage())})
		default:
			if ok, why := a.Config.SearchReady(); !ok && why != "" {
				out = append(out, Notice{Level: "warning", Code: "aft-search", Text: "aft: aft_search is not registered: " + why})
			}
		}
	}
	return out
}

// declared reports whether the registry has a declaration from source that no
// personalExtensions rule disables (available or not).
func declared(reg *engine.Result, source string) bool {
	if reg == nil {
		return false
	}
	for _, r := range reg.Tools {
		if r.Source == source && !r.RuleDisabled {
			return true
		}
	}
	return false
}

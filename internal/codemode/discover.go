package codemode

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/pigo-agent/pigo/internal/toolrun"
)

// A session with MCP servers gives scripts pi 1.6's discovery functions: MCP tools with the
// codemode exposure are callable but never declared in the description (it stays the same
// while servers connect), so a script finds them with searchTools(), describeTool() and
// describeNamespace() — pi's names and answers, adapted to the seed's call(name, args) API:
// a tool's name is the name call() takes, and its description ends with its call()
// declaration.

// The reserved call names the prelude's discovery functions send through the bridge.
const (
	discoverSearch    = "codemode.searchTools"
	discoverTool      = "codemode.describeTool"
	discoverNamespace = "codemode.describeNamespace"
)

// defaultSearchLimit is searchTools' default limit (pi's).
const defaultSearchLimit = 8

// discoveryDecls are the TypeScript declarations the description adds when the functions
// exist.
var discoveryDecls = []string{
	"/** Find callable tools the declarations above leave out, such as MCP tools: ranked by relevance to the query (BM25), optionally within one namespace (an MCP server: \"mcp__<server>\"). */",
	"declare function searchTools(query: string, options?: { limit?: number; namespace?: string }): Promise<Array<{ name: string; description: string }>>;",
	"/** A callable tool's description and call() declaration, or undefined. */",
	"declare function describeTool(name: string): Promise<string | undefined>;",
	"/** A namespace such as an MCP server: its description, the server's instructions and its tools' names, or undefined. */",
	"declare function describeNamespace(name: string): Promise<{ name: string; description?: string; instructions?: string; tools: string[] } | undefined>;",
}

// Namespace is a group of tools a script can look up: one MCP server ("mcp__<server>", also
// found by the server's own name).
type Namespace struct {
	Name         string   `json:"name"`
	Description  string   `json:"description,omitempty"`
	Instructions string   `json:"instructions,omitempty"`
	Aliases      []string `json:"-"`
}

// SearchDoc is one tool as searchTools ranks it.
type SearchDoc struct {
	Name, Description string
	Parameters        json.RawMessage
	Namespace         *Namespace
}

// Discovery is what a session's MCP layer lends codemode's discovery functions.
type Discovery struct {
	// Namespace returns the namespace of a tool from its registry source ("mcp:<server>").
	Namespace func(source string) (Namespace, bool)
	// Rank returns the names of the docs that match query, best first, at most limit (the
	// ranking of pi's tool_search).
	Rank func(query string, docs []SearchDoc, limit int) []string
}

type discoveryKey struct{}

type discoveryBox struct{ d *Discovery }

// SetDiscovery gives the session's scripts searchTools, describeTool and describeNamespace.
func SetDiscovery(s *toolrun.Session, d *Discovery) {
	s.State(discoveryKey{}, func() any { return &discoveryBox{} }).(*discoveryBox).d = d
}

func discoveryOf(s *toolrun.Session) *Discovery {
	if s == nil {
		return nil
	}
	return s.State(discoveryKey{}, func() any { return &discoveryBox{} }).(*discoveryBox).d
}

// hasDiscovery says whether the description declares the discovery functions: when the
// registry has tool_search, which exists exactly when an enabled MCP server does, so the
// description does not change while servers connect.
func hasDiscovery(r *toolrun.Runner) bool {
	if r == nil {
		return false
	}
	_, ok := r.Lookup("tool_search")
	return ok
}

// discoverTool is one callable tool as the discovery functions see it.
type discoverable struct {
	decl      Decl
	namespace *Namespace
}

// discovery answers the discovery functions of one run.
type discovery struct {
	d     *Discovery
	tools []discoverable
}

func newDiscovery(d *Discovery, r *toolrun.Runner) *discovery {
	out := &discovery{d: d}
	if r == nil {
		return out
	}
	for _, t := range r.CodemodeCallable() {
		if t.Name == Name {
			continue
		}
		dt := discoverable{decl: Decl{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Output: t.Output}}
		if d.Namespace != nil {
			if ns, ok := d.Namespace(t.Source); ok {
				dt.namespace = &ns
			}
		}
		out.tools = append(out.tools, dt)
	}
	return out
}

// sample is a tool as describeTool and searchTools give it: its description, then its call()
// declaration.
func sample(d Decl) string {
	decl := declaration(d)
	if d.Description == "" {
		return decl
	}
	return d.Description + "\n\n" + decl
}

// named reports whether query names the namespace: its name or an alias, as written or with
// "-" as "_".
func (ns *Namespace) named(query string) bool {
	q := strings.ReplaceAll(query, "-", "_")
	for _, n := range append([]string{ns.Name}, ns.Aliases...) {
		if n == query || strings.ReplaceAll(n, "-", "_") == q {
			return true
		}
	}
	return false
}

// answer runs one discovery call; ok is false for any other name.
func (dc *discovery) answer(name string, raw json.RawMessage) (CallOutcome, bool) {
	switch name {
	case discoverSearch, discoverTool, discoverNamespace:
	default:
		return CallOutcome{}, false
	}
	v, err := dc.run(name, raw)
	if err != nil {
		return CallOutcome{Error: err.Error()}, true
	}
	if v == nil {
		return CallOutcome{OK: true}, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return CallOutcome{Error: err.Error()}, true
	}
	return CallOutcome{OK: true, Value: b}, true
}

func (dc *discovery) run(name string, raw json.RawMessage) (any, error) {
	var args struct {
		Query   any `json:"query"`
		Name    any `json:"name"`
		Options *struct {
			Limit     any `json:"limit"`
			Namespace any `json:"namespace"`
		} `json:"options"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	switch name {
	case discoverSearch:
		query, ok := args.Query.(string)
		if !ok {
			return nil, errors.New("searchTools() expects a query string")
		}
		limit, namespace := defaultSearchLimit, ""
		if o := args.Options; o != nil {
			if o.Limit != nil {
				f, ok := o.Limit.(float64)
				if !ok || f != float64(int(f)) || f <= 0 {
					return nil, errors.New("searchTools() limit must be a positive integer")
				}
				limit = int(f)
			}
			if o.Namespace != nil {
				s, ok := o.Namespace.(string)
				if !ok {
					return nil, errors.New("searchTools() namespace must be a string")
				}
				namespace = s
			}
		}
		var docs []SearchDoc
		byName := map[string]discoverable{}
		for _, t := range dc.tools {
			if namespace != "" && (t.namespace == nil || !t.namespace.named(namespace)) {
				continue
			}
			byName[t.decl.Name] = t
			docs = append(docs, SearchDoc{Name: t.decl.Name, Description: t.decl.Description, Parameters: t.decl.Parameters, Namespace: t.namespace})
		}
		type hit struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		}
		hits := []hit{}
		if dc.d.Rank != nil {
			for _, n := range dc.d.Rank(query, docs, limit) {
				hits = append(hits, hit{n, sample(byName[n].decl)})
			}
		}
		return hits, nil
	case discoverTool:
		n, ok := args.Name.(string)
		if !ok {
			return nil, errors.New("describeTool() expects a tool name")
		}
		for _, t := range dc.tools {
			if t.decl.Name == n {
				return sample(t.decl), nil
			}
		}
		return nil, nil
	default:
		n, ok := args.Name.(string)
		if !ok {
			return nil, errors.New("describeNamespace() expects a namespace name")
		}
		var ns *Namespace
		tools := []string{}
		for _, t := range dc.tools {
			if t.namespace == nil || !t.namespace.named(n) {
				continue
			}
			if ns == nil {
				ns = t.namespace
			}
			tools = append(tools, t.decl.Name)
		}
		if ns == nil {
			return nil, nil
		}
		return struct {
			Namespace
			Tools []string `json:"tools"`
		}{*ns, tools}, nil
	}
}

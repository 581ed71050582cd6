package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/lazy"
	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/mcp"
	"github.com/pigo-agent/pigo/internal/toolrun"
)

// Binding says which server tool a registry name stands for ("" server: a resource tool).
type Binding struct {
	Server, Tool string
}

// Impls returns the implementations of a session's MCP tools, keyed by registry name, for
// toolrun (toolset "mcp"), plus tool_search (toolset "pi"): load records the tools tool_search
// loaded, which the session declares from its next model call.
func (m *Manager) Impls(bind map[string]Binding, load func(names []string)) *toolrun.Impls {
	var is toolrun.Impls
	for name, b := range bind {
		switch {
		case b.Server == "":
			is.Register("mcp", name, toolrun.Impl{Execute: m.resourceTool(name)})
		default:
			is.Register("mcp", name, toolrun.Impl{Execute: m.callTool(b)})
		}
	}
	is.Register("pi", mcp.ToolSearchName, toolrun.Impl{Execute: m.toolSearch(load)})
	return &is
}

func (m *Manager) callTool(b Binding) func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	return func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		c := m.Conn(b.Server)
		switch {
		case c == nil || !c.Server.Enabled:
			return toolrun.Result{}, fmt.Errorf("MCP server %q is disabled.", b.Server)
		case c.Server.ToolExposureOf(b.Tool) == mcp.ExposureHidden:
			return toolrun.Result{}, fmt.Errorf("MCP tool %q is no longer available.", b.Server+"/"+b.Tool)
		}
		if st, _ := c.State(); st == StateConnected && !offers(c, b.Tool) {
			return toolrun.Result{}, fmt.Errorf("MCP tool %q is no longer available.", b.Server+"/"+b.Tool)
		}
		progress := func(p Progress) {
			text := p.Message
			if text == "" {
				text = "Progress " + formatNumber(p.Progress)
				if p.Total != nil {
					text += "/" + formatNumber(*p.Total)
				}
			}
			inv.Progress(toolrun.Result{Content: []llm.Content{llm.TextBlock(text)}, Details: orderedDetails(map[string]string{"server": b.Server, "tool": b.Tool})})
		}
		raw, err := c.CallTool(ctx, b.Tool, inv.Args, progress)
		if err != nil {
			if errors.Is(err, ErrAborted) && ctx.Err() != nil {
				return toolrun.Result{}, errors.New("Operation aborted")
			}
			return toolrun.Result{}, err
		}
		conv, err := ConvertResult(b.Server, b.Tool, raw, m.readable(b.Server), nil)
		if err != nil {
			return toolrun.Result{}, err
		}
		return toolrun.Result{Content: conv.Content, Details: conv.Details, IsError: conv.IsError, Structured: conv.Structured}, nil
	}
}

func offers(c *Conn, tool string) bool {
	for _, t := range c.Tools() {
		if t.Name == tool {
			return true
		}
	}
	return false
}

func formatNumber(f float64) string { return toolrun.FormatNumber(f) }

// resourceServers are the enabled, non-hidden, connected servers with resources, by name.
func (m *Manager) resourceServers() []*Conn {
	var out []*Conn
	for _, c := range m.conns {
		if c.Server.Enabled && c.Server.ServerExposure() != mcp.ExposureHidden && c.HasResources() {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Server.Name < out[j].Server.Name })
	return out
}

func (m *Manager) readable(server string) bool {
	for _, c := range m.resourceServers() {
		if c.Server.Name == server {
			return true
		}
	}
	return false
}

// resourceTool implements list_mcp_resources, list_mcp_resource_templates and
// read_mcp_resource (pi 1.6's resources.ts).
func (m *Manager) resourceTool(name string) func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	return func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		m.Wait(ctx, nil) // the resource tools reach every server
		var args map[string]any
		_ = json.Unmarshal(inv.Args, &args)
		str := func(k string) (string, error) {
			v, ok := args[k]
			if !ok || v == nil {
				return "", nil
			}
			s, ok := v.(string)
			if !ok {
				return "", fmt.Errorf("%s must be a string", k)
			}
			return strings.TrimSpace(s), nil
		}
		server, err := str("server")
		if err != nil {
			return toolrun.Result{}, err
		}
		find := func(n string) (*Conn, error) {
			list := m.resourceServers()
			for _, c := range list {
				if c.Server.Name == n {
					return c, nil
				}
			}
			var names []string
			for _, c := range list {
				names = append(names, c.Server.Name)
			}
			msg := fmt.Sprintf("MCP server %q has no resources", n)
			if len(names) > 0 {
				msg += ". Servers with resources: " + strings.Join(names, ", ")
			}
			return nil, errors.New(msg)
		}
		if name == mcp.ReadResourceTool {
			uri, err := str("uri")
			if err != nil {
				return toolrun.Result{}, err
			}
			if server == "" {
				return toolrun.Result{}, errors.New("server must be provided")
			}
			if uri == "" {
				return toolrun.Result{}, errors.New("uri must be provided")
			}
			c, err := find(server)
			if err != nil {
				return toolrun.Result{}, err
			}
			return m.readResource(ctx, c, uri)
		}
		cursor, err := str("cursor")
		if err != nil {
			return toolrun.Result{}, err
		}
		method, key := "resources/list", "resources"
		if name == mcp.ListResourceTemplatesTool {
			method, key = "resources/templates/list", "resourceTemplates"
		}
		var payload *toolrun.Value
		if server != "" {
			c, err := find(server)
			if err != nil {
				return toolrun.Result{}, err
			}
			items, next, err := m.listPage(ctx, c, method, key, cursor)
			if err != nil {
				return toolrun.Result{}, err
			}
			payload = &toolrun.Value{Kind: toolrun.Object}
			payload.Set("server", jsString(c.Server.Name))
			payload.Set(key, &toolrun.Value{Kind: toolrun.Array, Arr: items})
			if next != "" {
				payload.Set("nextCursor", jsString(next))
			}
		} else {
			if cursor != "" {
				return toolrun.Result{}, errors.New("cursor can only be used when a server is specified")
			}
			type out struct {
				items []*toolrun.Value
				err   error
			}
			list := m.resourceServers()
			results := make([]out, len(list))
			var wg sync.WaitGroup
			for i, c := range list {
				wg.Add(1)
				go func(i int, c *Conn) {
					defer wg.Done()
					results[i].items, results[i].err = m.listAll(ctx, c, method, key)
				}(i, c)
			}
			wg.Wait()
			payload = &toolrun.Value{Kind: toolrun.Object}
			all := &toolrun.Value{Kind: toolrun.Array}
			errs := &toolrun.Value{Kind: toolrun.Array}
			for i, r := range results {
				if r.err != nil {
					e := &toolrun.Value{Kind: toolrun.Object}
					e.Set("server", jsString(list[i].Server.Name))
					e.Set("error", jsString(r.err.Error()))
					errs.Arr = append(errs.Arr, e)
					continue
				}
				all.Arr = append(all.Arr, r.items...)
			}
			payload.Set(key, all)
			if len(errs.Arr) > 0 {
				payload.Set("errors", errs)
			}
		}
		b, _ := payload.MarshalJSON()
		content, full := LimitContent([]llm.Content{llm.TextBlock(string(b))}, nil)
		details := map[string]string{"server": server, "tool": name}
		if full != "" {
			details["fullOutputPath"] = full
		}
		return toolrun.Result{Content: content, Details: orderedDetails(details), Structured: b}, nil
	}
}

func jsString(s string) *toolrun.Value { return &toolrun.Value{Kind: toolrun.String, Str: s} }

// listPage lists one page of one server; the items are tagged with the server and lose _meta,
// icons and MCP App resources.
func (m *Manager) listPage(ctx context.Context, c *Conn, method, key, cursor string) ([]*toolrun.Value, string, error) {
	var params json.RawMessage
	if cursor != "" {
		params = mustJSON(map[string]string{"cursor": cursor})
	}
	raw, err := c.Request(ctx, method, params)
	if err != nil {
		if key == "resourceTemplates" && methodNotFound(err) {
			return nil, "", nil
		}
		return nil, "", err
	}
	v, err := toolrun.ParseValue(raw)
	if err != nil || v.Kind != toolrun.Object || v.Get(key) == nil || v.Get(key).Kind != toolrun.Array {
		return nil, "", fmt.Errorf("Invalid MCP %s result", method)
	}
	var items []*toolrun.Value
	for _, it := range v.Get(key).Arr {
		if it.Kind != toolrun.Object {
			return nil, "", fmt.Errorf("Invalid entry in MCP %s result", method)
		}
		uri := it.Get("uri")
		if uri == nil {
			uri = it.Get("uriTemplate")
		}
		if uri == nil || uri.Kind != toolrun.String {
			return nil, "", fmt.Errorf("Invalid entry in MCP %s result", method)
		}
		if mcpApp(it) {
			continue
		}
		out := &toolrun.Value{Kind: toolrun.Object}
		out.Set("server", jsString(c.Server.Name))
		for _, mem := range it.Obj {
			if mem.Key != "_meta" && mem.Key != "icons" && mem.Key != "server" {
				out.Set(mem.Key, mem.Value)
			}
		}
		if out.Get("name") == nil {
			out.Set("name", uri) // some servers omit the name; the URI stands in
		}
		items = append(items, out)
	}
	next := ""
	if n := v.Get("nextCursor"); n != nil && n.Kind == toolrun.String {
		next = n.Str
	}
	return items, next, nil
}

func (m *Manager) listAll(ctx context.Context, c *Conn, method, key string) ([]*toolrun.Value, error) {
	var all []*toolrun.Value
	seen := map[string]bool{}
	cursor := ""
	for page := 0; page < maxListPages; page++ {
		items, next, err := m.listPage(ctx, c, method, key, cursor)
		if err != nil {
			return nil, err
		}
		all = append(all, items...)
		if next == "" {
			return all, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("MCP %s returned duplicate cursor: %s", method, next)
		}
		seen[next] = true
		cursor = next
	}
	return nil, fmt.Errorf("MCP %s exceeded %d pages", method, maxListPages)
}

func methodNotFound(err error) bool {
	var re *RPCError
	return errors.As(err, &re) && re.Code == codeMethodNotFound
}

// mcpApp reports MCP App user interfaces (ui:// URIs, profile=mcp-app HTML), left out.
func mcpApp(it *toolrun.Value) bool {
	for _, k := range []string{"uri", "uriTemplate"} {
		if u := it.Get(k); u != nil && strings.HasPrefix(u.Str, "ui://") {
			return true
		}
	}
	if mt := it.Get("mimeType"); mt != nil && mcpAppMime.Get().MatchString(mt.Str) {
		return true
	}
	return false
}

func (m *Manager) readResource(ctx context.Context, c *Conn, uri string) (toolrun.Result, error) {
	raw, err := c.Request(ctx, "resources/read", mustJSON(map[string]string{"uri": uri}))
	if err != nil {
		return toolrun.Result{}, err
	}
	v, err := toolrun.ParseValue(raw)
	if err != nil || v.Get("contents") == nil || v.Get("contents").Kind != toolrun.Array {
		return toolrun.Result{}, errors.New("Invalid MCP resources/read result")
	}
	contents := v.Get("contents").Arr
	var blocks []json.RawMessage
	cleaned := &toolrun.Value{Kind: toolrun.Array}
	for _, ct := range contents {
		u, t, bl := ct.Get("uri"), ct.Get("text"), ct.Get("blob")
		if ct.Kind != toolrun.Object || u == nil || u.Kind != toolrun.String || !(t != nil && t.Kind == toolrun.String || bl != nil && bl.Kind == toolrun.String) {
			return toolrun.Result{}, errors.New("Invalid contents in MCP resources/read result")
		}
		if len(contents) > 1 {
			blocks = append(blocks, mustJSON(map[string]string{"type": "text", "text": u.Str + ":"}))
		}
		res, _ := ct.MarshalJSON()
		blocks = append(blocks, append(append([]byte(`{"type":"resource","resource":`), res...), '}'))
		clean := &toolrun.Value{Kind: toolrun.Object}
		for _, mem := range ct.Obj {
			if mem.Key != "_meta" {
				clean.Obj = append(clean.Obj, mem)
			}
		}
		cleaned.Arr = append(cleaned.Arr, clean)
	}
	converted := ModelContent(c.Server.Name, blocks, true, nil)
	if len(converted) == 0 {
		converted = []llm.Content{llm.TextBlock("Resource " + uri + " is empty.")}
	}
	content, full := LimitContent(converted, nil)
	details := map[string]string{"server": c.Server.Name, "tool": mcp.ReadResourceTool}
	if full != "" {
		details["fullOutputPath"] = full
	}
	st := &toolrun.Value{Kind: toolrun.Object}
	st.Set("server", jsString(c.Server.Name))
	st.Set("uri", jsString(uri))
	st.Set("contents", cleaned)
	sb, _ := st.MarshalJSON()
	return toolrun.Result{Content: content, Details: orderedDetails(details), Structured: sb}, nil
}

// toolSearch implements tool_search: rank the MCP tools that are callable but not declared,
// and load the matches for the next model call.
func (m *Manager) toolSearch(load func([]string)) func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
	return func(ctx context.Context, inv *toolrun.Invocation) (toolrun.Result, error) {
		var args struct {
			Query string   `json:"query"`
			Limit *float64 `json:"limit"`
		}
		_ = json.Unmarshal(inv.Args, &args)
		if strings.TrimSpace(args.Query) == "" {
			return toolrun.Result{}, errors.New("query must not be empty")
		}
		limit := mcp.DefaultToolSearchLimit
		if args.Limit != nil {
			if *args.Limit != float64(int(*args.Limit)) || *args.Limit <= 0 {
				return toolrun.Result{}, errors.New("limit must be a positive integer")
			}
			limit = int(*args.Limit)
		}
		m.Wait(ctx, nil) // a query can match any server's tools
		var docs []SearchDoc
		desc := map[string]string{}
		if inv.Runner != nil {
			for _, t := range inv.Runner.CodemodeCallable() {
				if !strings.HasPrefix(t.Source, "mcp:") || t.State != "codemode-only" {
					continue
				}
				server := strings.TrimPrefix(t.Source, "mcp:")
				ns, nsDesc, nsInstr := "", "", ""
				if c := m.Conn(server); c != nil {
					ns, nsDesc, nsInstr = mcp.Namespace(server), c.Server.Description, c.Instructions()
				}
				docs = append(docs, NewSearchDoc(t.Name, t.Description, t.Parameters, ns, nsDesc, nsInstr))
				desc[t.Name] = t.Description
			}
		}
		hits := Rank(args.Query, docs, limit)
		names := make([]string, len(hits))
		for i, h := range hits {
			names[i] = h.Name
		}
		if len(names) > 0 && load != nil {
			load(names)
		}
		text := "No matching tools found."
		if len(names) > 0 {
			var b strings.Builder
			s := "s"
			if len(names) == 1 {
				s = ""
			}
			fmt.Fprintf(&b, "Loaded %d tool%s. They are available from your next call:", len(names), s)
			for _, n := range names {
				first, _, _ := strings.Cut(strings.TrimSpace(strings.ReplaceAll(desc[n], "\r\n", "\n")), "\n")
				fmt.Fprintf(&b, "\n- %s: %s", n, first)
			}
			text = b.String()
		}
		if names == nil {
			names = []string{}
		}
		d, _ := json.Marshal(map[string][]string{"loaded": names})
		return toolrun.Result{Content: []llm.Content{llm.TextBlock(text)}, Details: d}, nil
	}
}

var mcpAppMime = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?i);\s*profile\s*=\s*"?mcp-app"?`) }}

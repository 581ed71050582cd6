package toolrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pigo-agent/pigo/internal/engine"
	"github.com/pigo-agent/pigo/internal/llm"
)

// Call is one tool call as the model (or `pigo tool run`, or codemode) makes it.
type Call struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Result is a finished tool call: pi's AgentToolResult plus the error flag. It is the one
// result type from the implementation to the agent loop and its events (the JSON names are
// pi's).
type Result struct {
	// Content is what the model sees: text and image blocks.
	Content []llm.Content `json:"content"`
	// Details is the tool's machine-readable side (pi's `details`), nil when it has none.
	Details json.RawMessage `json:"details,omitempty"`
	// IsError marks a failed call (pi: the tool threw).
	IsError bool `json:"-"`
	// Structured is the value of a tool that declares an output schema (codemode's result).
	Structured json.RawMessage `json:"-"`
	// Terminate asks the loop to stop after this batch (pi: only when every result sets it).
	Terminate bool `json:"terminate,omitempty"`
	// Refusal, when the call was refused rather than failed (nobody to ask, the person said
	// no, a standing policy), says so as a value; its text is the content's.
	Refusal *Refusal `json:"-"`
}

// Text returns the concatenated text blocks of the content.
func (r Result) Text() string {
	var b strings.Builder
	for i, c := range r.Content {
		if c.Type != llm.TypeText {
			continue
		}
		if i > 0 && b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(c.Text)
	}
	return b.String()
}

// ErrorResult is pi's createErrorToolResult: the message as the only text, empty details.
func ErrorResult(msg string) Result {
	return Result{Content: []llm.Content{llm.TextBlock(msg)}, Details: json.RawMessage(`{}`), IsError: true}
}

// TextResult is a successful result with one text block and the given details (nil: none).
func TextResult(text string, details any) Result {
	r := Result{Content: []llm.Content{llm.TextBlock(text)}}
	if details != nil {
		r.Details = MustJSON(details)
	}
	return r
}

// MustJSON marshals v; a value that cannot be marshalled is a bug in a tool.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("toolrun: cannot marshal details: %v", err))
	}
	return b
}

// Impl is the Go implementation of one declared tool.
type Impl struct {
	// Prepare is pi's prepareArguments: it reshapes raw arguments before validation (edit's
	// legacy forms). Nil means none.
	Prepare func(args *Value) *Value
	// Execute runs the call with validated arguments. An error becomes an error result whose
	// text is the error's message, as pi turns a thrown error into one.
	Execute func(ctx context.Context, inv *Invocation) (Result, error)
	// Sequential is pi's executionMode "sequential": a batch containing this tool runs one
	// call at a time.
	Sequential bool
	// Describe computes the model-visible description from the bound registry (codemode
	// lists the tools it can call); nil keeps the declared description.
	Describe func(r *Runner, declared string) string
}

// Invocation is what an implementation gets for one call.
type Invocation struct {
	Call Call
	Tool *Tool
	// Args are the prepared, converted and validated arguments.
	Args    json.RawMessage
	Session *Session
	// Progress publishes a partial result (pi's onUpdate); never nil.
	Progress func(Result)
	// Runner is the execution path the call came through (codemode makes its nested calls
	// on it).
	Runner *Runner
}

// Decode unmarshals the validated arguments into v.
func (inv *Invocation) Decode(v any) error { return json.Unmarshal(inv.Args, v) }

// Impls binds implementations to declarations by toolset and name: pi's `read`, opencode's
// `read` and claude-code's `Read` are three different implementations.
type Impls struct {
	mu sync.RWMutex
	m  map[string]Impl
	// Exec runs declarative extension tools that declare an `exec` argv template.
	Exec *Impl
	// base is looked up when this set has no implementation (With).
	base *Impls
}

// With returns the implementations of extra in front of is: a session adds the tools that
// exist only while it runs (its MCP servers' tools) without touching the shared set.
func (is *Impls) With(extra *Impls) *Impls {
	extra.mu.RLock()
	m := make(map[string]Impl, len(extra.m))
	for k, v := range extra.m {
		m[k] = v
	}
	extra.mu.RUnlock()
	return &Impls{m: m, Exec: is.Exec, base: is}
}

func implKey(toolset, name string) string { return toolset + "\x00" + name }

// Register binds impl to the tool name of toolset (the catalogue's toolset name: "pi" for
// pi's built-ins, "claude-code", "opencode", "lsp", ...). A second registration replaces the
// first.
func (is *Impls) Register(toolset, name string, impl Impl) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.m == nil {
		is.m = map[string]Impl{}
	}
	is.m[implKey(toolset, name)] = impl
}

// Lookup returns the implementation of toolset's tool name.
func (is *Impls) Lookup(toolset, name string) (Impl, bool) {
	is.mu.RLock()
	impl, ok := is.m[implKey(toolset, name)]
	is.mu.RUnlock()
	if !ok && is.base != nil {
		return is.base.Lookup(toolset, name)
	}
	return impl, ok
}

// Tool is a declaration as the runtime needs it.
type Tool struct {
	Name        string
	Label       string
	Description string
	// Source is the registry's source ("builtin", "toolset:opencode", "extension:git-tools").
	Source string
	// Toolset is the implementation namespace: "pi" for built-ins, the toolset's name for the
	// shipped toolsets, "" for extension files.
	Toolset string
	File    string
	State   engine.State
	// Parameters and Output are the declared JSON Schemas (Output nil when not structured).
	Parameters json.RawMessage
	Output     json.RawMessage
	Exec       []string

	// schema is compiled on the tool's first call (schemaOnce): a session declares dozens of
	// tools (disabled and codemode-only ones too) and calls a few.
	schemaOnce sync.Once
	schema     *Schema
	schemaErr  error
	impl       *Impl
	once       sync.Once
	model      json.RawMessage
}

// compiled is the parameters schema, compiled on the first call.
func (t *Tool) compiled() (*Schema, error) {
	t.schemaOnce.Do(func() { t.schema, t.schemaErr = CompileSchema(t.Parameters) })
	return t.schema, t.schemaErr
}

// modelSchema is the parameters schema as pi sends it: keys in TypeBox's order (type,
// required, properties or items, then the rest as declared), which is how pi's and the
// seed's TypeBox-built schemas serialise.
func (t *Tool) modelSchema() json.RawMessage {
	t.once.Do(func() {
		t.model = json.RawMessage(`{"type":"object","properties":{}}`)
		if t.Toolset == "mcp" && len(t.Parameters) > 0 {
			// An MCP server's schema reaches the model as the server wrote it (normalised
			// when it was declared), not in TypeBox's key order.
			t.model = t.Parameters
			return
		}
		if m, ok := shippedModelSchema(t.Parameters); ok {
			t.model = m
			return
		}
		t.model = renderModelSchema(t.Parameters, t.model)
	})
	return t.model
}

// renderModelSchema puts a declared schema's keys in TypeBox's order and writes it again
// (otherwise: the declared bytes cannot be parsed).
func renderModelSchema(declared, otherwise json.RawMessage) json.RawMessage {
	if v, err := ParseValue(declared); err == nil && len(declared) > 0 {
		m, _ := typeboxOrder(v).MarshalJSON()
		return m
	}
	return otherwise
}

// typeboxOrder reorders the keys of every schema object in v.
func typeboxOrder(v *Value) *Value {
	switch v.Kind {
	case Array:
		for i, e := range v.Arr {
			v.Arr[i] = typeboxOrder(e)
		}
		return v
	case Object:
	default:
		return v
	}
	first := []string{"type", "required", "properties", "items"}
	out := &Value{Kind: Object}
	for _, k := range first {
		if x := v.Get(k); x != nil {
			out.Obj = append(out.Obj, Member{k, x})
		}
	}
	for _, m := range v.Obj {
		if m.Key != "type" && m.Key != "required" && m.Key != "properties" && m.Key != "items" {
			out.Obj = append(out.Obj, m)
		}
	}
	for i, m := range out.Obj {
		switch m.Key {
		case "properties", "$defs", "definitions", "patternProperties":
			for j, p := range m.Value.Obj {
				m.Value.Obj[j].Value = typeboxOrder(p.Value)
			}
		case "items", "additionalProperties", "not", "anyOf", "oneOf", "allOf", "prefixItems":
			out.Obj[i].Value = typeboxOrder(m.Value)
		}
	}
	return out
}

// Sequential reports whether the tool runs alone in a batch (pi's executionMode).
func (t *Tool) Sequential() bool { return t.impl != nil && t.impl.Sequential }

// Callable reports whether a registry state can be called: active, or codemode-only.
func Callable(s engine.State) bool { return s == engine.Active || s == engine.CodemodeOnly }

// ToolsetOf maps a registry source onto the implementation namespace: "pi" for built-ins, the
// toolset's name, "mcp" for the tools of every MCP server.
func ToolsetOf(source string) string {
	if source == "builtin" {
		return "pi"
	}
	if strings.HasPrefix(source, "mcp:") {
		return "mcp"
	}
	if name, ok := strings.CutPrefix(source, "toolset:"); ok {
		return name
	}
	return ""
}

// Runner is the one execution path for a session: the model's tool calls, `pigo tool run`
// and codemode all go through Run.
type Runner struct {
	Session *Session
	tools   map[string]*Tool
	order   []*Tool // every declaration, in registry order
	active  []string
	// callable is the registry's codemode-callable list.
	callable []string
}

// New binds the resolved registry to implementations. Only callable tools (active or
// codemode-only) can be run; the others stay visible through Lookup for diagnostics.
func New(reg *engine.Result, impls *Impls, s *Session) *Runner {
	r := &Runner{Session: s, tools: make(map[string]*Tool, len(reg.Tools))}
	if s != nil && s.FileIO == "" {
		s.FileIO = reg.FileIO
	}
	// The declarations and their implementations in one array each, not ~90 objects (and a
	// compile closure for each) allocated one by one.
	tools := make([]Tool, len(reg.Tools))
	bound := make([]Impl, 0, len(reg.Tools))
	r.order = make([]*Tool, 0, len(reg.Tools))
	for i, row := range reg.Tools {
		d := reg.Declaration(i)
		t := &tools[i]
		t.Name, t.Source, t.Toolset, t.File, t.State = row.Name, row.Source, ToolsetOf(row.Source), row.File, row.State
		if d != nil {
			t.Label, t.Description = d.Label, d.Description
			t.Parameters, t.Output, t.Exec = d.Parameters, d.Output, d.Exec
		}
		if impl, ok := impls.Lookup(t.Toolset, t.Name); ok && t.Toolset != "" {
			bound = append(bound, impl)
			t.impl = &bound[len(bound)-1]
		} else if t.Toolset == "" && len(t.Exec) > 0 && impls.Exec != nil {
			t.impl = impls.Exec
		}
		r.order = append(r.order, t)
		if prev, ok := r.tools[t.Name]; !ok || !Callable(prev.State) {
			r.tools[t.Name] = t
		}
	}
	r.active = append(r.active, reg.Active...)
	r.callable = append(r.callable, reg.CodemodeCallable...)
	for _, t := range r.order {
		if t.impl != nil && t.impl.Describe != nil && Callable(t.State) {
			t.Description = t.impl.Describe(r, t.Description)
		}
	}
	return r
}

// NewTool is a declaration bound to its implementation, for a runner made from values
// ([NewRunnerOf]): no registry, no toolset.
func NewTool(name, description string, parameters json.RawMessage, impl Impl) *Tool {
	t := &Tool{Name: name, Description: description, Source: "value", Toolset: "value", State: engine.Active, Parameters: parameters}
	t.impl = &impl
	return t
}

// NewRunnerOf is a runner over tools given as values, every one active, in order: what the
// agent loop's tests and an embedder without config files use.
func NewRunnerOf(s *Session, tools ...*Tool) *Runner {
	r := &Runner{Session: s, tools: map[string]*Tool{}}
	for _, t := range tools {
		r.order = append(r.order, t)
		r.tools[t.Name] = t
		r.active = append(r.active, t.Name)
	}
	return r
}

// CodemodeCallable lists the tools a codemode script may call, in registry order: the
// structured tools that are active or codemode-only (engine.Result.CodemodeCallable) and
// have an implementation.
func (r *Runner) CodemodeCallable() []*Tool {
	out := make([]*Tool, 0, len(r.callable))
	for _, name := range r.callable {
		if t := r.tools[name]; t != nil && t.impl != nil && Callable(t.State) {
			out = append(out, t)
		}
	}
	return out
}

// Unimplemented lists the active or codemode-only declarations that have no implementation:
// they are not offered to the model nor to codemode, and the session start says so.
func (r *Runner) Unimplemented() []*Tool {
	var out []*Tool
	for _, t := range r.order {
		if t.impl == nil && Callable(t.State) && r.tools[t.Name] == t {
			out = append(out, t)
		}
	}
	return out
}

// NoImplementation is why an unimplemented declaration is not offered (the text a call gets).
func NoImplementation(t *Tool) string { return noImpl(t) }

// Lookup returns the declaration that owns name (the callable one when there is one).
func (r *Runner) Lookup(name string) (*Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// LLMTools is the model-visible tool list: every active tool that has an implementation, in
// the registry's active order, with its declared name, description and parameters. A
// declaration without one is never offered (Unimplemented lists them).
func (r *Runner) LLMTools() []llm.Tool {
	out := make([]llm.Tool, 0, len(r.active))
	for _, name := range r.active {
		if t := r.offered(name); t != nil {
			out = append(out, llm.Tool{Name: t.Name, Description: t.Description, Parameters: t.modelSchema()})
		}
	}
	return out
}

// OfferedNames lists the names of the tools LLMTools gives the model, in its order, without
// building their schemas.
func (r *Runner) OfferedNames() []string {
	out := make([]string, 0, len(r.active))
	for _, name := range r.active {
		if r.offered(name) != nil {
			out = append(out, name)
		}
	}
	return out
}

// offered is the active tool named name when it has an implementation (nil otherwise).
func (r *Runner) offered(name string) *Tool {
	if t := r.tools[name]; t != nil && t.impl != nil {
		return t
	}
	return nil
}

// Run executes one call: lookup, pi's argument preparation, conversion and validation, then
// the implementation with ctx (cancel it to abort) and progress (may be nil). It never panics
// and never returns a Go error: every failure is an error result with pi's text.
func (r *Runner) Run(ctx context.Context, call Call, progress func(Result)) (res Result) {
	defer func() {
		if p := recover(); p != nil { // a panicking Prepare
			res = ErrorResult(fmt.Sprintf("Tool %s failed: %v", call.Name, p))
		}
	}()
	args, err := r.PrepareCall(call)
	if err != nil {
		return ErrorResult(err.Error())
	}
	if ctx.Err() != nil {
		return ErrorResult("Operation aborted")
	}
	return r.ExecutePrepared(ctx, call, args, progress)
}

func noImpl(t *Tool) string {
	if t.Toolset == "" {
		return fmt.Sprintf("Tool %s (%s) cannot run: its declaration has no \"exec\" argv template. Add \"exec\": [\"program\", \"{{param}}\", ...] to it in %s.", t.Name, t.Source, t.File)
	}
	return fmt.Sprintf("Tool %s (%s) has no implementation in this pigo yet.", t.Name, t.Source)
}

// ErrValidation is wrapped by the error Prepare returns when the arguments do not validate.
var ErrValidation = errors.New("validation failed")

// Prepare runs pi's argument pipeline for t on raw arguments and returns the arguments the
// implementation gets: prepareArguments, optional nulls dropped, Value.Convert, validation.
func (r *Runner) prepare(t *Tool, call Call) (json.RawMessage, error) {
	raw := call.Arguments
	if len(raw) == 0 {
		raw = json.RawMessage(`{}`)
	}
	v, err := ParseValue(raw)
	if err != nil {
		return nil, fmt.Errorf("Invalid JSON arguments for tool %q: %v", call.Name, err)
	}
	if t.impl.Prepare != nil {
		v = t.impl.Prepare(v)
	}
	schema, err := t.compiled()
	if err != nil {
		return nil, fmt.Errorf("Tool %s has an invalid parameters schema: %v", t.Name, err)
	}
	return ValidateArguments(call.Name, schema, v)
}

// ValidateArguments is pi-ai's validateToolArguments for a TypeBox-built schema: optional
// nulls dropped, Value.Convert, then validation. It returns the arguments the tool gets, or
// pi's error naming the tool and echoing the (prepared) arguments it received.
func ValidateArguments(name string, s *Schema, v *Value) (json.RawMessage, error) {
	args := v.Clone()
	s.DropOptionalNulls(args)
	args = s.Convert(args)
	if errs := s.Errors(args); len(errs) > 0 {
		var b strings.Builder
		for i, e := range errs {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString("  - " + e.Path + ": " + e.Message)
		}
		return nil, errors.New("Validation failed for tool \"" + name + "\":\n" + b.String() + "\n\nReceived arguments:\n" + v.Indent())
	}
	out, _ := args.MarshalJSON()
	return out, nil
}

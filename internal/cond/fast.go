package cond

// The conditions pigo ships, and most that users write, are a handful of shapes: a fact
// compared with a literal, `which("gh")`, `"image" in model.input`, `len(lsp.servers) > 0`,
// joined by `&&`, `||` and `!`. For those, cond parses and evaluates the text itself and
// expr is not involved: compiling the shipped conditions with expr (its configuration, the
// reflected Env type, parse, check, optimise, compile) and running them in its VM was ~7% of
// `pigo tools`' CPU, and its code ~40 KB of text paged in by every start
// (docs/decisions/25-speed.md, D25.31).
//
// The subset is strict, and anything outside it goes to expr exactly as before: a text is
// taken here only when every token is one this file knows, every name is a fact below
// (settings and env, whose values are dynamic, are not), the types match without
// conversion (== and != on two booleans, two strings or two integers; <, <=, >, >= on two
// integers; `in` with a string and a string list; && || ! on booleans; len of a string
// list; which of a string) and the result is a boolean. Every such text compiles with expr
// and evaluates to the same value there (TestFastMatchesExpr, FuzzFast): none can fail at
// run time, and && and || stop early as expr's do.

// fastType is the static type of a fast node.
type fastType uint8

const (
	fastBool fastType = iota + 1
	fastString
	fastInt
	fastList // []string
)

// fastOp is what a node does.
type fastOp uint8

const (
	opLit  fastOp = iota + 1 // literal: b, s or i
	opFact                   // a field of Env: fact
	opNot
	opAnd
	opOr
	opEq
	opNe
	opLt
	opLe
	opGt
	opGe
	opIn
	opLen
	opWhich
)

type fastNode struct {
	op   fastOp
	typ  fastType
	b    bool
	s    string
	i    int
	fact int
	x, y *fastNode
}

// fastValue is a node's value; only the field of its type is set.
type fastValue struct {
	b bool
	s string
	i int
	l []string
}

// facts are the Env fields the subset reads, by their expr names; factValue reads them.
var facts = [...]struct {
	name string
	typ  fastType
}{
	{"model.provider", fastString}, {"model.id", fastString}, {"model.reasoning", fastBool},
	{"model.input", fastList}, {"model.contextWindow", fastInt}, {"model.maxTokens", fastInt},
	{"os", fastString}, {"arch", fastString}, {"headless", fastBool}, {"lsp.servers", fastList},
	{"aft.found", fastBool}, {"aft.search", fastBool}, {"vision.resolved", fastBool},
}

func factValue(i int, e *Env) fastValue {
	switch i {
	case 0:
		return fastValue{s: e.Model.Provider}
	case 1:
		return fastValue{s: e.Model.ID}
	case 2:
		return fastValue{b: e.Model.Reasoning}
	case 3:
		return fastValue{l: e.Model.Input}
	case 4:
		return fastValue{i: e.Model.ContextWindow}
	case 5:
		return fastValue{i: e.Model.MaxTokens}
	case 6:
		return fastValue{s: e.OS}
	case 7:
		return fastValue{s: e.Arch}
	case 8:
		return fastValue{b: e.Headless}
	case 9:
		return fastValue{l: e.LSP.Servers}
	case 10:
		return fastValue{b: e.AFT.Found}
	case 11:
		return fastValue{b: e.AFT.Search}
	case 12:
		return fastValue{b: e.Vision.Resolved}
	}
	panic("cond: unknown fact")
}

// fastParser reads one text; any token or shape outside the subset sets fail.
type fastParser struct {
	src  string
	pos  int
	fail bool
}

// parseFast returns the text's tree when it is in the subset, or nil (then expr decides).
func parseFast(src string) *fastNode {
	p := &fastParser{src: src}
	n := p.or()
	p.space()
	if p.fail || p.pos != len(src) || n == nil || n.typ != fastBool {
		return nil
	}
	return n
}

func (p *fastParser) space() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

// peek returns the next operator token (after spaces) without taking it: one of
// && || == != <= >= < > ! ( ) , or "" for anything else.
func (p *fastParser) peek() string {
	p.space()
	s := p.src[p.pos:]
	if len(s) >= 2 {
		switch s[:2] {
		case "&&", "||", "==", "!=", "<=", ">=":
			return s[:2]
		}
	}
	if len(s) >= 1 {
		switch s[0] {
		case '<', '>', '!', '(', ')', ',':
			return s[:1]
		}
	}
	return ""
}

func (p *fastParser) take(tok string) bool {
	if p.peek() == tok {
		p.pos += len(tok)
		return true
	}
	return false
}

func (p *fastParser) bad() *fastNode {
	p.fail = true
	return nil
}

func (p *fastParser) or() *fastNode  { return p.chain("||", opOr, p.and) }
func (p *fastParser) and() *fastNode { return p.chain("&&", opAnd, p.compare) }

// chain parses operands (next) joined by tok, a boolean operator op, left to right.
func (p *fastParser) chain(tok string, op fastOp, next func() *fastNode) *fastNode {
	x := next()
	for !p.fail && p.take(tok) {
		y := next()
		if p.fail || x.typ != fastBool || y.typ != fastBool {
			return p.bad()
		}
		x = fold(&fastNode{op: op, typ: fastBool, x: x, y: y})
	}
	return x
}

// compare is one comparison at most: expr chains `a < b < c`, the subset does not.
func (p *fastParser) compare() *fastNode {
	x := p.unary()
	if p.fail {
		return nil
	}
	var op fastOp
	switch tok := p.peek(); tok {
	case "==":
		op = opEq
	case "!=":
		op = opNe
	case "<":
		op = opLt
	case "<=":
		op = opLe
	case ">":
		op = opGt
	case ">=":
		op = opGe
	case "":
		if !p.word("in") {
			return x
		}
		op = opIn
	default:
		return x
	}
	if op != opIn {
		p.pos += len(p.peek())
	}
	y := p.unary()
	if p.fail {
		return nil
	}
	switch op {
	case opEq, opNe:
		if x.typ != y.typ || x.typ == fastList {
			return p.bad()
		}
	case opIn:
		if x.typ != fastString || y.typ != fastList {
			return p.bad()
		}
	default:
		if x.typ != fastInt || y.typ != fastInt {
			return p.bad()
		}
	}
	switch p.peek() {
	case "==", "!=", "<", "<=", ">", ">=":
		return p.bad()
	case "":
		if p.word("in") {
			return p.bad()
		}
	}
	return fold(&fastNode{op: op, typ: fastBool, x: x, y: y})
}

// fold simplifies n as expr's optimizer does (optimizer/fold.go), so that the same which()
// calls are made: `!` of a literal, && and || with a literal side (`x || true` is true
// without calling x), == of two literals. Its other comparisons are not folded there.
func fold(n *fastNode) *fastNode {
	lit := func(m *fastNode) bool { return m.op == opLit }
	isBool := func(m *fastNode, v bool) bool { return lit(m) && m.typ == fastBool && m.b == v }
	switch n.op {
	case opNot:
		if lit(n.x) {
			return &fastNode{op: opLit, typ: fastBool, b: !n.x.b}
		}
	case opAnd:
		switch {
		case isBool(n.x, true):
			return n.y
		case isBool(n.y, true):
			return n.x
		case isBool(n.x, false) || isBool(n.y, false):
			return &fastNode{op: opLit, typ: fastBool}
		}
	case opOr:
		switch {
		case isBool(n.x, false):
			return n.y
		case isBool(n.y, false):
			return n.x
		case isBool(n.x, true) || isBool(n.y, true):
			return &fastNode{op: opLit, typ: fastBool, b: true}
		}
	case opEq:
		if lit(n.x) && lit(n.y) {
			return &fastNode{op: opLit, typ: fastBool, b: n.x.b == n.y.b && n.x.s == n.y.s && n.x.i == n.y.i}
		}
	}
	return n
}

// word takes the identifier w when it is the next token.
func (p *fastParser) word(w string) bool {
	p.space()
	if !hasIdentAt(p.src, p.pos, w) {
		return false
	}
	p.pos += len(w)
	return true
}

func hasIdentAt(s string, at int, w string) bool {
	return len(s)-at >= len(w) && s[at:at+len(w)] == w && (at+len(w) == len(s) || !identByte(s[at+len(w)]))
}

func (p *fastParser) unary() *fastNode {
	if p.take("!") {
		x := p.unary()
		if p.fail || x.typ != fastBool {
			return p.bad()
		}
		return fold(&fastNode{op: opNot, typ: fastBool, x: x})
	}
	return p.primary()
}

func identStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func identByte(c byte) bool { return identStart(c) || '0' <= c && c <= '9' }

func (p *fastParser) primary() *fastNode {
	p.space()
	if p.pos >= len(p.src) {
		return p.bad()
	}
	switch c := p.src[p.pos]; {
	case c == '(':
		p.pos++
		x := p.or()
		if p.fail || !p.take(")") {
			return p.bad()
		}
		return x
	case c == '"' || c == '\'':
		s, ok := p.str()
		if !ok {
			return p.bad()
		}
		return &fastNode{op: opLit, typ: fastString, s: s}
	case '0' <= c && c <= '9':
		return p.number()
	case identStart(c):
		return p.name()
	}
	return p.bad()
}

// str reads a quoted literal of printable ASCII without escapes.
func (p *fastParser) str() (string, bool) {
	q := p.src[p.pos]
	for i := p.pos + 1; i < len(p.src); i++ {
		switch c := p.src[i]; {
		case c == q:
			s := p.src[p.pos+1 : i]
			p.pos = i + 1
			return s, true
		case c == '\\' || c < 0x20 || c > 0x7e:
			return "", false
		}
	}
	return "", false
}

// number reads a decimal integer literal without sign, leading zero, separator or exponent.
func (p *fastParser) number() *fastNode {
	start, n := p.pos, 0
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		n = n*10 + int(p.src[p.pos]-'0')
		p.pos++
	}
	digits := p.pos - start
	if digits > 9 || digits > 1 && p.src[start] == '0' ||
		p.pos < len(p.src) && (identByte(p.src[p.pos]) || p.src[p.pos] == '.') {
		return p.bad()
	}
	return &fastNode{op: opLit, typ: fastInt, i: n}
}

// name reads a literal, a fact (a dotted path) or a call of len or which.
func (p *fastParser) name() *fastNode {
	start := p.pos
	for {
		for p.pos < len(p.src) && identByte(p.src[p.pos]) {
			p.pos++
		}
		if p.pos+1 < len(p.src) && p.src[p.pos] == '.' && identStart(p.src[p.pos+1]) {
			p.pos++
			continue
		}
		break
	}
	if p.pos < len(p.src) && (p.src[p.pos] == '.' || p.src[p.pos] == '?' || p.src[p.pos] == '[') {
		return p.bad()
	}
	name := p.src[start:p.pos]
	switch name {
	case "true", "false":
		return &fastNode{op: opLit, typ: fastBool, b: name == "true"}
	case "len", "which":
		if !p.take("(") {
			return p.bad()
		}
		arg := p.or()
		if p.fail || !p.take(")") {
			return p.bad()
		}
		if name == "len" {
			if arg.typ != fastList {
				return p.bad()
			}
			return &fastNode{op: opLen, typ: fastInt, x: arg}
		}
		if arg.typ != fastString {
			return p.bad()
		}
		return &fastNode{op: opWhich, typ: fastBool, x: arg}
	}
	for i := range facts {
		if facts[i].name == name {
			if p.peek() == "(" {
				return p.bad()
			}
			return &fastNode{op: opFact, typ: facts[i].typ, fact: i}
		}
	}
	return p.bad()
}

// eval computes n in env (env.Which is set).
func (n *fastNode) eval(env *Env) fastValue {
	switch n.op {
	case opLit:
		return fastValue{b: n.b, s: n.s, i: n.i}
	case opFact:
		return factValue(n.fact, env)
	case opNot:
		return fastValue{b: !n.x.eval(env).b}
	case opAnd:
		return fastValue{b: n.x.eval(env).b && n.y.eval(env).b}
	case opOr:
		return fastValue{b: n.x.eval(env).b || n.y.eval(env).b}
	case opEq, opNe:
		x, y := n.x.eval(env), n.y.eval(env)
		eq := x.b == y.b && x.s == y.s && x.i == y.i
		return fastValue{b: eq == (n.op == opEq)}
	case opLt:
		return fastValue{b: n.x.eval(env).i < n.y.eval(env).i}
	case opLe:
		return fastValue{b: n.x.eval(env).i <= n.y.eval(env).i}
	case opGt:
		return fastValue{b: n.x.eval(env).i > n.y.eval(env).i}
	case opGe:
		return fastValue{b: n.x.eval(env).i >= n.y.eval(env).i}
	case opIn:
		x, y := n.x.eval(env).s, n.y.eval(env).l
		for _, e := range y {
			if e == x {
				return fastValue{b: true}
			}
		}
		return fastValue{}
	case opLen:
		return fastValue{i: len(n.x.eval(env).l)}
	case opWhich:
		return fastValue{b: env.Which(n.x.eval(env).s)}
	}
	panic("cond: unknown fast op")
}

package jsonedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
)

// edit replaces src[start:end] with text. Edits at the same offset apply in
// the order given.
type edit struct {
	start, end int
	text       string
}

func apply(src []byte, edits []edit) []byte {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var out bytes.Buffer
	pos := 0
	for _, e := range edits {
		out.Write(src[pos:e.start])
		out.WriteString(e.text)
		pos = e.end
	}
	out.Write(src[pos:])
	return out.Bytes()
}

// kindName describes a value for error messages: "a string", "an object".
func kindName(v *hujson.Value) string {
	switch v.Value.Kind() {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a value"
}

func rootName(p Path) string {
	if len(p) == 0 {
		return "the document"
	}
	return p.String()
}

// walk follows p from the root. It returns the values along the way
// (vals[0] is the root, vals[k] the value at p[:k]) and the member or element
// index taken at each step. It stops early, without error, at the first key
// that is missing; an index out of range, a negative index or a step into a
// scalar is an error.
func (d *doc) walk(p Path) (vals []*hujson.Value, idx []int, err error) {
	for k, s := range p {
		if !s.IsIndex && !utf8.ValidString(s.Key) {
			return nil, nil, &Error{Offset: -1, Msg: fmt.Sprintf("%s: key %q is not valid UTF-8", p[:k+1], s.Key)}
		}
	}
	v := &d.root
	vals = append(vals, v)
	for k, s := range p {
		if s.IsIndex {
			arr, ok := v.Value.(*hujson.Array)
			if !ok {
				return vals, idx, errAt(d.src, v.StartOffset, nil, "%s is %s, not an array", rootName(p[:k]), kindName(v))
			}
			if s.Index < 0 {
				return vals, idx, errAt(d.src, v.StartOffset, nil, "%s: negative index %d", p[:k+1], s.Index)
			}
			if s.Index >= len(arr.Elements) {
				return vals, idx, errAt(d.src, v.StartOffset, ErrNotFound, "%s: index %d out of range (%s has %d elements)", p[:k+1], s.Index, rootName(p[:k]), len(arr.Elements))
			}
			v = &arr.Elements[s.Index]
			idx = append(idx, s.Index)
		} else {
			obj, ok := v.Value.(*hujson.Object)
			if !ok {
				return vals, idx, errAt(d.src, v.StartOffset, nil, "%s is %s, not an object", rootName(p[:k]), kindName(v))
			}
			found := -1
			for i := range obj.Members {
				if name, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && name.String() == s.Key {
					found = i // the last duplicate wins, as in JSON.parse
				}
			}
			if found < 0 {
				return vals, idx, nil
			}
			v = &obj.Members[found].Value
			idx = append(idx, found)
		}
		vals = append(vals, v)
	}
	return vals, idx, nil
}

// load parses src, treating an empty, blank or comment-only source as {}.
func load(src []byte) (d *doc, prefix []byte, err error) {
	if bytes.HasPrefix(src, bom) {
		prefix, src = bom, src[len(bom):]
	}
	fresh := isBlank(src)
	if fresh {
		body := bytes.TrimRight(src, " \t\r\n")
		nl := "\n"
		if bytes.Contains(body, []byte("\r\n")) {
			nl = "\r\n"
		}
		fresh := append([]byte{}, body...)
		if len(fresh) > 0 {
			fresh = append(fresh, nl...)
		}
		fresh = append(fresh, "{}"+nl...)
		src = fresh
	}
	d, err = parseDoc(src)
	if err == nil {
		d.fresh = fresh
	}
	if err != nil && len(prefix) > 0 {
		if e, ok := err.(*Error); ok && e.Offset >= 0 {
			e.Offset += len(prefix)
		}
	}
	return d, prefix, err
}

func finish(prefix, out []byte) []byte {
	if len(prefix) == 0 {
		return out
	}
	return append(append([]byte{}, prefix...), out...)
}

// Get returns the value at p as compact standard JSON (comments and
// trailing commas removed). found is false when a key on the path is
// missing or an index is out of range.
func Get(src []byte, p Path) (value []byte, found bool, err error) {
	d, _, err := load(src)
	if err != nil {
		return nil, false, err
	}
	vals, _, err := d.walk(p)
	if err != nil {
		if e, ok := err.(*Error); ok && e.Err == ErrNotFound {
			return nil, false, nil
		}
		return nil, false, err
	}
	if len(vals) != len(p)+1 {
		return nil, false, nil
	}
	v := vals[len(p)].Clone()
	v.Minimize()
	return v.Pack(), true, nil
}

// parseValue checks that value is one standard JSON value.
func parseValue(value []byte) (hujson.Value, error) {
	if !json.Valid(value) {
		var x any
		err := json.Unmarshal(value, &x)
		msg := "empty value"
		if err != nil {
			msg = err.Error()
		}
		return hujson.Value{}, &Error{Offset: -1, Msg: fmt.Sprintf("invalid JSON value %q: %s", value, msg), Err: ErrInvalidValue}
	}
	v, err := hujson.Parse(value)
	if err != nil {
		return hujson.Value{}, &Error{Offset: -1, Msg: fmt.Sprintf("invalid JSON value %q: %v", value, err), Err: ErrInvalidValue}
	}
	v.Minimize()
	return v, nil
}

// Set writes value (standard JSON) at p, replacing the value there or
// appending a new member to its object. Missing objects along the path are
// created; a missing array element is not. Setting a value equal to the
// current one returns src unchanged.
func Set(src []byte, p Path, value []byte) ([]byte, error) {
	val, err := parseValue(value)
	if err != nil {
		return nil, err
	}
	if len(p) == 0 {
		return nil, &Error{Offset: -1, Msg: "empty path: cannot replace the whole document"}
	}
	d, prefix, err := load(src)
	if err != nil {
		return nil, err
	}
	vals, idx, err := d.walk(p)
	if err != nil {
		return nil, err
	}
	if len(vals) == len(p)+1 {
		out := d.replace(vals[len(p)-1], idx[len(p)-1], vals[len(p)], val)
		return finish(prefix, out), nil
	}
	k := len(vals) - 1 // p[k] is the first missing key
	for _, s := range p[k+1:] {
		if s.IsIndex {
			return nil, errAt(d.src, vals[k].StartOffset, ErrNotFound, "%s: not found (only objects are created, not array elements)", p[:k+1])
		}
	}
	// Wrap the value in the objects that are missing below p[k].
	for i := len(p) - 1; i > k; i-- {
		val = hujson.Value{Value: &hujson.Object{Members: []hujson.ObjectMember{{
			Name:  hujson.Value{Value: hujson.String(p[i].Key)},
			Value: val,
		}}}}
	}
	out := d.insert(vals[k], quoteKey(p[k].Key), &val)
	return finish(prefix, out), nil
}

// Add appends value to the array at p, creating the array (and missing
// objects above it) when p does not exist.
func Add(src []byte, p Path, value []byte) ([]byte, error) {
	val, err := parseValue(value)
	if err != nil {
		return nil, err
	}
	if len(p) == 0 {
		return nil, &Error{Offset: -1, Msg: "empty path"}
	}
	d, prefix, err := load(src)
	if err != nil {
		return nil, err
	}
	vals, _, err := d.walk(p)
	if err != nil {
		return nil, err
	}
	if len(vals) != len(p)+1 {
		return Set(src, p, append(append([]byte("["), val.Pack()...), ']'))
	}
	arr := vals[len(p)]
	if _, ok := arr.Value.(*hujson.Array); !ok {
		return nil, errAt(d.src, arr.StartOffset, nil, "%s is %s, not an array", p, kindName(arr))
	}
	return finish(prefix, d.insert(arr, "", &val)), nil
}

// Unset removes the member or element at p with its comma and the comments that belong to it
// (the comment lines directly above it and a comment after it on its line); no other comment
// is removed. A missing path is an error wrapping ErrNotFound.
func Unset(src []byte, p Path) ([]byte, error) {
	if len(p) == 0 {
		return nil, &Error{Offset: -1, Msg: "empty path: cannot remove the whole document"}
	}
	d, prefix, err := load(src)
	if err != nil {
		return nil, err
	}
	vals, idx, err := d.walk(p)
	if err != nil {
		return nil, err
	}
	if len(vals) != len(p)+1 {
		at := vals[len(vals)-1].StartOffset
		if d.fresh {
			return nil, &Error{Offset: -1, Msg: p.String() + ": not found (the file is empty)", Err: ErrNotFound}
		}
		return nil, errAt(d.src, at, ErrNotFound, "%s: not found", p)
	}
	return finish(prefix, d.remove(vals[len(p)-1], idx[len(p)-1])), nil
}

// oneLine reports whether container c sits on one line.
func (d *doc) oneLine(c *hujson.Value) bool {
	return bytes.IndexByte(d.src[c.StartOffset:c.EndOffset], '\n') < 0
}

// replace swaps the value old (item i of container parent) for val.
func (d *doc) replace(parent *hujson.Value, i int, old *hujson.Value, val hujson.Value) []byte {
	cur := old.Clone()
	cur.Minimize()
	if bytes.Equal(cur.Pack(), val.Pack()) {
		return d.src
	}
	if text, ok := d.replaceArray(old, &val); ok {
		return apply(d.src, []edit{{old.StartOffset, old.EndOffset, text}})
	}
	var text string
	if !isScalar(&val) {
		d.detectStyle()
	}
	if d.oneLine(parent) {
		text = d.renderInline(&val)
	} else {
		text = d.render(&val, d.lineIndent(items(parent)[i].start))
	}
	return apply(d.src, []edit{{old.StartOffset, old.EndOffset, text}})
}

// childIndent returns the indentation for a new item of container c.
func (d *doc) childIndent(c *hujson.Value, its []item) string {
	for k := len(its) - 1; k >= 0; k-- {
		if d.headIsBlank(its[k].start) {
			return d.lineIndent(its[k].start)
		}
	}
	return d.lineIndent(c.StartOffset) + d.unit
}

// insert appends a new item to container c: a member named key (a JSON
// string literal) when key != "", else an array element.
func (d *doc) insert(c *hujson.Value, key string, val *hujson.Value) []byte {
	d.detectStyle()
	its := items(c)
	open, close := c.StartOffset, c.EndOffset-1
	oneLineLikeSiblings, pad := d.siblingsOneLine(c, val)
	text := func(indent string, inline bool) string {
		var v string
		if oneLineLikeSiblings && pad && len(items(val)) > 0 {
			v = d.renderInline(val)
			v = "{ " + v[1:len(v)-1] + " }"
		} else if inline || oneLineLikeSiblings {
			v = d.renderInline(val)
		} else {
			v = d.render(val, indent)
		}
		if key == "" {
			return v
		}
		return key + d.colon + v
	}
	if len(its) == 0 {
		interior := d.src[open+1 : close]
		if _, isArr := c.Value.(*hujson.Array); isArr && len(bytes.TrimSpace(interior)) == 0 {
			// [] becomes [x], rendered like any array value.
			arr := hujson.Value{Value: &hujson.Array{Elements: []hujson.Value{*val}}}
			return apply(d.src, []edit{{open, close + 1, d.render(&arr, d.lineIndent(open))}})
		}
		base := d.lineIndent(open)
		child := base + d.unit
		comma := ""
		if d.trailing {
			comma = ","
		}
		line := child + text(child, false) + comma
		if len(bytes.TrimSpace(interior)) == 0 {
			return apply(d.src, []edit{{open + 1, close, d.nl + line + d.nl + base}})
		}
		if d.headIsBlank(close) {
			ls := d.lineStart(close)
			return apply(d.src, []edit{{ls, ls, line + d.nl}})
		}
		end := close
		for end > open+1 && (d.src[end-1] == ' ' || d.src[end-1] == '\t') {
			end--
		}
		return apply(d.src, []edit{{end, close, d.nl + line + d.nl + base}})
	}
	last := its[len(its)-1]
	comma := d.commaAfter(last.end)
	if d.oneLine(c) {
		if comma >= 0 {
			return apply(d.src, []edit{{comma + 1, comma + 1, " " + text("", true) + ","}})
		}
		return apply(d.src, []edit{{last.end, last.end, ", " + text("", true)}})
	}
	p := last.end
	if comma >= 0 {
		p = comma + 1
	}
	q, eol := d.sameLineEnd(p)
	if eol >= 0 {
		q = eol
	}
	indent := d.childIndent(c, its)
	line := d.nl + indent + text(indent, false)
	var edits []edit
	if comma >= 0 {
		line += ","
	} else {
		edits = append(edits, edit{last.end, last.end, ","})
	}
	edits = append(edits, edit{q, q, line})
	return apply(d.src, edits)
}

// replaceArray writes the array val in place of the multi-line array old, one element per
// line, so that an element that survives keeps its comments: what precedes it on its own lines
// (back to the previous element's line) and a comment after it on its line. ok is false when
// old is not an array with every element on its own line; the caller renders val afresh.
func (d *doc) replaceArray(old, val *hujson.Value) (string, bool) {
	oa, ok1 := old.Value.(*hujson.Array)
	na, ok2 := val.Value.(*hujson.Array)
	if !ok1 || !ok2 || len(oa.Elements) == 0 || len(na.Elements) == 0 || d.oneLine(old) {
		return "", false
	}
	type chunk struct {
		lead, text, trail string
		packed            string
		used              bool
	}
	open, close := old.StartOffset, old.EndOffset-1
	its := items(old)
	chunks := make([]chunk, len(its))
	_, prev := d.sameLineEnd(open + 1) // a comment on the `[` line stays there
	if prev < 0 {
		return "", false
	}
	trailing := false
	for k, it := range its {
		ls := d.lineStart(it.start)
		if ls <= prev || len(bytes.TrimSpace(d.src[ls:it.start])) != 0 {
			return "", false // shares a line with what comes before
		}
		after := it.end
		comma := d.commaAfter(it.end)
		if comma >= 0 {
			after = comma + 1
		}
		content, eol := d.sameLineEnd(after)
		if eol < 0 || eol >= close {
			return "", false // something else follows on its line
		}
		ps := prev
		if d.src[ps] == '\r' {
			ps++
		}
		if d.src[ps] == '\n' {
			ps++
		}
		v := oa.Elements[k].Clone()
		v.Minimize()
		chunks[k] = chunk{lead: string(d.src[ps:ls]), text: string(d.src[it.start:it.end]),
			trail: string(d.src[after:content]), packed: string(v.Pack())}
		trailing = comma >= 0
		prev = eol
	}
	indent := d.lineIndent(its[0].start)
	d.detectStyle()
	var b strings.Builder
	_, eol0 := d.sameLineEnd(open + 1)
	b.Write(d.src[open:eol0]) // "[" and a comment on its line
	for j := range na.Elements {
		e := &na.Elements[j]
		c := chunk{text: d.render(e, indent)}
		p := string(e.Pack())
		for k := range chunks {
			if !chunks[k].used && chunks[k].packed == p {
				chunks[k].used = true
				c = chunks[k]
				break
			}
		}
		b.WriteString(d.nl + c.lead + indent + c.text)
		if j < len(na.Elements)-1 || trailing {
			b.WriteString(",")
		}
		b.WriteString(c.trail)
	}
	b.Write(d.src[prev:close]) // the line break, comments after the last element, the indent
	b.WriteString("]")
	return b.String(), true
}

// siblingsOneLine reports whether a new object value in container c should be
// written on one line because its siblings of the same kind are: a servers map whose entries
// are `"gopls": {"bin": "gopls"}` gets its new entry in that style.
// pad says whether those siblings write `{ "k": v }` with spaces inside the braces.
func (d *doc) siblingsOneLine(c *hujson.Value, val *hujson.Value) (oneLine, pad bool) {
	if _, ok := val.Value.(*hujson.Object); !ok {
		return false, false // arrays follow the file's rule for scalar arrays (detectStyle)
	}
	var sibs []*hujson.Value
	switch x := c.Value.(type) {
	case *hujson.Object:
		for i := range x.Members {
			sibs = append(sibs, &x.Members[i].Value)
		}
	case *hujson.Array:
		for i := range x.Elements {
			sibs = append(sibs, &x.Elements[i])
		}
	}
	one, multi, padded := 0, 0, 0
	for _, v := range sibs {
		if v.Value.Kind() != val.Value.Kind() || len(items(v)) == 0 {
			continue
		}
		if d.oneLine(v) {
			one++
			if d.src[v.StartOffset+1] == ' ' {
				padded++
			}
		} else {
			multi++
		}
	}
	return one > 0 && one >= multi, padded*2 > one
}

// remove deletes item i of container c with its comma and the comments that belong to it: a
// comment block on its own lines directly above it (no blank line between) and a comment after
// it on its line. Every other comment stays (they are the user's words, D13). An item alone on
// its line takes the line with it.
func (d *doc) remove(c *hujson.Value, i int) []byte {
	its := items(c)
	open, close := c.StartOffset, c.EndOffset-1
	m := its[i]
	comma := d.commaAfter(m.end)
	after := m.end
	if comma >= 0 {
		after = comma + 1
	}
	last := i == len(its)-1
	prevEnd := open + 1
	if i > 0 {
		prevEnd = its[i-1].end
	}
	limit := close
	if !last {
		limit = its[i+1].start
	}
	var edits []edit
	// Without a trailing comma of its own, the last item borrows the previous item's comma:
	// that comma goes, so that the container stays valid in the file's style.
	if last && comma < 0 && i > 0 {
		if pc := d.commaAfter(its[i-1].end); pc >= 0 {
			edits = append(edits, edit{pc, pc + 1, ""})
		}
	}
	start := d.lineStart(m.start)
	_, eol := d.sameLineEnd(after)
	ownLine := eol >= 0 && eol < limit && start > prevEnd && len(bytes.TrimSpace(d.src[start:m.start])) == 0
	switch {
	case ownLine:
		// The item has its line to itself (a comment after it on the line is its own): remove
		// the whole line, and the comment lines above that belong to it.
		start = d.lineStart(d.leadingComments(prevEnd, m.start))
		end := eol + 1
		if d.src[eol] == '\r' {
			end++
		}
		if len(its) == 1 && len(bytes.TrimSpace(d.src[open+1:start])) == 0 && len(bytes.TrimSpace(d.src[end:close])) == 0 {
			return apply(d.src, []edit{{open + 1, close, ""}})
		}
		edits = append(edits, edit{start, end, ""})
	case len(its) == 1 && len(bytes.TrimSpace(d.src[open+1:m.start])) == 0 && len(bytes.TrimSpace(d.src[after:close])) == 0:
		return apply(d.src, []edit{{open + 1, close, ""}})
	case !last:
		// Items share a line: remove the item, its comma and the blanks after it; when that
		// ends the line, the blanks before it too (no trailing spaces are left behind).
		from, to := m.start, d.skipBlanks(after)
		if to < len(d.src) && (d.src[to] == '\n' || d.src[to] == '\r') {
			for from > prevEnd && (d.src[from-1] == ' ' || d.src[from-1] == '\t') {
				from--
			}
		}
		edits = append(edits, edit{from, to, ""})
	default:
		// The last item on a shared line: remove it with the blanks before it (the previous
		// comma was handled above, or the item keeps its own trailing comma).
		from := m.start
		for from > prevEnd && (d.src[from-1] == ' ' || d.src[from-1] == '\t') {
			from--
		}
		if comma >= 0 && i > 0 {
			from = m.start
		}
		edits = append(edits, edit{from, after, ""})
	}
	return apply(d.src, edits)
}

// leadingComments returns where the comments that belong to the item starting at pos begin
// (pos when none): the comments in the gap (from, pos) that each start their own line, end on
// the line directly above the next one (or the item), with no blank line between. from is
// outside any comment or string (the end of the previous item, or just after the brace).
func (d *doc) leadingComments(from, pos int) int {
	type span struct{ start, end int }
	var cs []span
	for i := from; i < pos; {
		switch {
		case isSpace(d.src[i]) || d.src[i] == ',':
			i++
		case bytes.HasPrefix(d.src[i:], []byte("//")):
			j := bytes.IndexByte(d.src[i:pos], '\n')
			if j < 0 {
				j = pos - i
			}
			end := i + j
			if end > i && d.src[end-1] == '\r' {
				end--
			}
			cs = append(cs, span{i, end})
			i += j
		case bytes.HasPrefix(d.src[i:], []byte("/*")):
			j := bytes.Index(d.src[i+2:pos], []byte("*/"))
			if j < 0 {
				return pos
			}
			cs = append(cs, span{i, i + 2 + j + 2})
			i += 2 + j + 2
		default:
			return pos // not only blanks and comments: attach nothing
		}
	}
	if ls := d.lineStart(pos); ls < from || len(bytes.TrimSpace(d.src[ls:pos])) != 0 {
		return pos // the item does not start its line
	}
	anchor := pos
	for k := len(cs) - 1; k >= 0; k-- {
		c := cs[k]
		if d.lineStart(anchor) < c.end {
			break
		}
		gap := d.src[c.end:d.lineStart(anchor)]
		if bytes.Count(gap, []byte("\n")) != 1 || len(bytes.TrimSpace(gap)) != 0 {
			break // a blank line, or code, between: not this item's
		}
		ls := d.lineStart(c.start)
		if ls < from || len(bytes.TrimSpace(d.src[ls:c.start])) != 0 {
			break // shares its line with what comes before
		}
		anchor = c.start
	}
	return anchor
}

// RemovedSpan returns the bytes Unset(src, p) removes comments from: the member or element at
// p, the comment lines above it that belong to it and a comment after it on its line. It is
// for tests that check that every other comment survives.
func RemovedSpan(src []byte, p Path) (lo, hi int, err error) {
	d, prefix, err := load(src)
	if err != nil {
		return 0, 0, err
	}
	vals, idx, err := d.walk(p)
	if err != nil {
		return 0, 0, err
	}
	if len(p) == 0 || len(vals) != len(p)+1 {
		return 0, 0, &Error{Offset: -1, Msg: p.String() + ": not found", Err: ErrNotFound}
	}
	c, i := vals[len(p)-1], idx[len(p)-1]
	its := items(c)
	m := its[i]
	prevEnd := c.StartOffset + 1
	if i > 0 {
		prevEnd = its[i-1].end
	}
	lo, hi = m.start, m.end
	after := m.end
	if comma := d.commaAfter(m.end); comma >= 0 {
		after = comma + 1
	}
	limit := c.EndOffset - 1
	if i+1 < len(its) {
		limit = its[i+1].start
	}
	if content, eol := d.sameLineEnd(after); eol >= 0 && eol < limit && d.lineStart(m.start) > prevEnd && len(bytes.TrimSpace(d.src[d.lineStart(m.start):m.start])) == 0 {
		hi = content
		lo = d.leadingComments(prevEnd, m.start)
	}
	return lo + len(prefix), hi + len(prefix), nil
}

// skipBlanks returns the offset of the first byte at or after pos that is not a space or tab.
func (d *doc) skipBlanks(pos int) int {
	for pos < len(d.src) && (d.src[pos] == ' ' || d.src[pos] == '\t') {
		pos++
	}
	return pos
}

// render writes val multi-line where the rules say so; indent is the
// indentation of the line the value starts on.
func (d *doc) render(val *hujson.Value, indent string) string {
	var b strings.Builder
	d.renderTo(&b, val, indent)
	return b.String()
}

const maxInlineArray = 72

func (d *doc) renderTo(b *strings.Builder, val *hujson.Value, indent string) {
	switch c := val.Value.(type) {
	case *hujson.Object:
		if len(c.Members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i := range c.Members {
			b.WriteString(d.nl + indent + d.unit)
			b.Write(c.Members[i].Name.Value.(hujson.Literal))
			b.WriteString(d.colon)
			d.renderTo(b, &c.Members[i].Value, indent+d.unit)
			if i < len(c.Members)-1 || d.trailing {
				b.WriteString(",")
			}
		}
		b.WriteString(d.nl + indent + "}")
	case *hujson.Array:
		if len(c.Elements) == 0 {
			b.WriteString("[]")
			return
		}
		if d.inline {
			scalars := true
			for i := range c.Elements {
				scalars = scalars && isScalar(&c.Elements[i])
			}
			if s := d.renderInline(val); scalars && len(s) <= maxInlineArray {
				b.WriteString(s)
				return
			}
		}
		b.WriteString("[")
		for i := range c.Elements {
			b.WriteString(d.nl + indent + d.unit)
			d.renderTo(b, &c.Elements[i], indent+d.unit)
			if i < len(c.Elements)-1 || d.trailing {
				b.WriteString(",")
			}
		}
		b.WriteString(d.nl + indent + "]")
	default:
		b.Write(val.Value.(hujson.Literal))
	}
}

// renderInline writes val on one line: {"a": 1, "b": [1, 2]}.
func (d *doc) renderInline(val *hujson.Value) string {
	switch c := val.Value.(type) {
	case *hujson.Object:
		parts := make([]string, len(c.Members))
		for i := range c.Members {
			parts[i] = string(c.Members[i].Name.Value.(hujson.Literal)) + d.colon + d.renderInline(&c.Members[i].Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *hujson.Array:
		parts := make([]string, len(c.Elements))
		for i := range c.Elements {
			parts[i] = d.renderInline(&c.Elements[i])
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		return string(val.Value.(hujson.Literal))
	}
}

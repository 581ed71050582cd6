package cli

// appendIndented appends doc, compact JSON as encoding/json writes it, to dst indented as
// json.Indent(dst, doc, "", "  ") indents it: a newline and two spaces per level before
// each member and element, ": " after each key, empty objects and arrays kept as {} and [],
// strings copied as they are. json.Indent runs its validating scanner over every byte
// (appendIndent and the scanner were 8% of `pigo tools`' instructions); doc is valid by
// construction here, so this only finds strings (vectorised) and brackets. ok is false for
// what it does not follow — whitespace outside strings, a string without its end, brackets
// that do not balance — and the caller then gives doc to json.Indent, which reports the error.
func appendIndented(dst, doc []byte) (_ []byte, ok bool) {
	var closers []byte // the bracket that closes each open level, innermost last
	open := false      // the last byte was '{' or '[': the next decides between {} and a newline
	for i := 0; i < len(doc); {
		c := doc[i]
		if open && c != '}' && c != ']' {
			open = false
			dst = appendNewline(dst, len(closers))
		}
		switch c {
		case '"':
			end := jsonStringEnd(doc, i)
			if end < 0 {
				return dst, false
			}
			dst = append(dst, doc[i:end]...)
			i = end
			continue
		case '{', '[':
			dst = append(dst, c)
			closers = append(closers, c+2) // '{'+2 == '}', '['+2 == ']'
			open = true
		case '}', ']':
			if len(closers) == 0 || closers[len(closers)-1] != c {
				return dst, false
			}
			closers = closers[:len(closers)-1]
			if open {
				open = false
			} else {
				dst = appendNewline(dst, len(closers))
			}
			dst = append(dst, c)
		case ',':
			dst = appendNewline(append(dst, ','), len(closers))
		case ':':
			dst = append(dst, ':', ' ')
		case ' ', '\t', '\n', '\r':
			return dst, false
		default: // a number, true, false or null: up to the next structural byte
			j := i + 1
			for j < len(doc) && !isJSONDelim(doc[j]) {
				j++
			}
			dst = append(dst, doc[i:j]...)
			i = j
			continue
		}
		i++
	}
	return dst, len(closers) == 0 && !open
}

func isJSONDelim(c byte) bool {
	switch c {
	case ',', ':', '{', '}', '[', ']', '"', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// appendNewline appends a newline and depth levels of two-space indent.
func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for range depth {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

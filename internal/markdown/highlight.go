package markdown

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// A small table-driven highlighter for fenced code: comments, strings, numbers, keywords,
// type and builtin names, function calls, operators and punctuation, for the languages models
// write most. chroma does this completely but costs ~19 ms of package init and 5 MB of
// binary (measured); these tables cost nothing until a code block is drawn.

type lang struct {
	line     []string // line comment starts
	block    [][2]string
	strs     string // string quote characters
	raw      string // raw string delimiters (no escapes), e.g. "`"
	keywords string // space-separated
	types    string
	// hashComment: '#' starts a comment.
	caseless bool
}

var (
	langsOnce sync.Once
	langs     map[string]*lang
)

// loadLangs fills the language table on first use (nothing runs at package init).
func loadLangs() {
	langs = map[string]*lang{}
	c := [][2]string{{"/*", "*/"}}
	add := func(l *lang, names ...string) {
		for _, n := range names {
			langs[n] = l
		}
	}
	add(&lang{line: []string{"//"}, block: c, strs: `"'`, raw: "`",
		keywords: "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var",
		types:    "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any true false nil iota append cap close copy delete len make new panic print println recover min max clear"},
		"go", "golang")
	add(&lang{line: []string{"//"}, block: c, strs: `"'`, raw: "`",
		keywords: "async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while with yield as implements interface type enum declare readonly namespace abstract private protected public keyof satisfies",
		types:    "true false null undefined NaN Infinity string number boolean any unknown never object void Promise Array Map Set console"},
		"js", "javascript", "jsx", "ts", "typescript", "tsx", "mjs", "cjs", "json5")
	add(&lang{line: []string{"#"}, strs: `"'`,
		keywords: "and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case",
		types:    "True False None int float str bool list dict set tuple bytes object type self cls print len range open isinstance super"},
		"py", "python", "python3")
	add(&lang{line: []string{"//"}, block: c, strs: `"`,
		keywords: "as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while",
		types:    "bool char str i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 String Vec Option Result Some None Ok Err Box true false"},
		"rs", "rust")
	add(&lang{line: []string{"//"}, block: c, strs: `"'`,
		keywords: "auto break case catch class const constexpr continue default delete do else enum explicit extern for friend goto if inline namespace new noexcept operator private protected public return sizeof static struct switch template this throw try typedef typename union using virtual volatile while include define ifdef ifndef endif pragma",
		types:    "void int char short long float double bool signed unsigned size_t std string vector true false nullptr NULL"},
		"c", "h", "cpp", "c++", "cc", "hpp", "cxx", "objc")
	add(&lang{line: []string{"//"}, block: c, strs: `"'`,
		keywords: "abstract break case catch class continue default do else enum extends final finally for if implements import instanceof interface native new package private protected public return static super switch synchronized this throw throws try var void volatile while record sealed permits yield fun val when object companion data override open internal lateinit",
		types:    "boolean byte char double float int long short String Integer Boolean List Map true false null Unit Any"},
		"java", "kotlin", "kt", "scala", "cs", "csharp", "c#", "swift", "dart")
	add(&lang{line: []string{"#"}, strs: `"'`,
		keywords: "if then else elif fi for while until do done case esac in function return local export readonly declare set unset shift exit break continue source alias trap eval exec time select",
		types:    "echo cd ls cat grep sed awk printf read test true false pwd mkdir rm cp mv git go npm pip sudo curl"},
		"sh", "bash", "shell", "zsh", "console", "shellscript", "fish")
	add(&lang{strs: `"`, keywords: "", types: "true false null"}, "json", "jsonc")
	add(&lang{line: []string{"#"}, strs: `"'`, keywords: "", types: "true false null yes no on off"}, "yaml", "yml", "toml", "ini")
	add(&lang{line: []string{"--"}, block: c, strs: `'"`, caseless: true,
		keywords: "select from where insert into values update set delete create table drop alter index join left right inner outer on group by order having limit offset as and or not null is in like between union all distinct primary key foreign references default case when then else end begin commit rollback with returning",
		types:    "int integer text varchar char boolean date timestamp serial bigint real true false"},
		"sql", "mysql", "postgres", "sqlite")
	add(&lang{line: []string{"#"}, strs: `"'`,
		keywords: "begin end def class module if elsif else unless case when while until for in do return yield break next redo retry rescue ensure raise self super then require",
		types:    "true false nil puts"},
		"rb", "ruby")
	add(&lang{line: []string{"//", "#"}, block: c, strs: `"'`,
		keywords: "abstract and array as break callable case catch class clone const continue declare default do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile extends final finally fn for foreach function global if implements include instanceof interface isset list match namespace new or print private protected public readonly require return static switch throw trait try unset use var while yield",
		types:    "true false null int string bool float"},
		"php")
	add(&lang{block: [][2]string{{"<!--", "-->"}}, strs: `"'`}, "html", "xml", "svg", "vue")
	add(&lang{block: c, strs: `"'`, keywords: "", types: ""}, "css", "scss", "less")
	add(&lang{line: []string{"--"}, strs: `"'`,
		keywords: "and break do else elseif end for function goto if in local not or repeat return then until while",
		types:    "true false nil print pairs ipairs require"},
		"lua")
	add(&lang{line: []string{"#"}, strs: `"'`,
		keywords: "FROM RUN CMD ENTRYPOINT COPY ADD ENV ARG WORKDIR EXPOSE VOLUME USER LABEL AS", caseless: true},
		"dockerfile", "docker")
	add(&lang{line: []string{"#"}, strs: `"'`, keywords: "ifeq ifneq ifdef ifndef else endif include define endef export"}, "make", "makefile", "mk")
}

var opChars = "+-*/%=<>!&|^~?:"

// Highlight splits code into lines of classified spans. An unknown language (or a diff)
// gets plain code-block spans, with diff lines classed as added, removed or context.
func Highlight(code, language string) []line {
	language = strings.ToLower(strings.TrimSpace(language))
	if i := strings.IndexAny(language, " {,"); i >= 0 {
		language = language[:i]
	}
	lines := strings.Split(code, "\n")
	out := make([]line, 0, len(lines))
	if language == "diff" || language == "patch" {
		for _, l := range lines {
			syn := SynNone
			switch {
			case strings.HasPrefix(l, "+"):
				syn = SynString
			case strings.HasPrefix(l, "-"):
				syn = SynKeyword
			case strings.HasPrefix(l, "@@"):
				syn = SynComment
			}
			out = append(out, line{{Text: l, Style: CodeBlock, Syn: syn}})
		}
		return out
	}
	langsOnce.Do(loadLangs)
	lg := langs[language]
	if lg == nil {
		for _, l := range lines {
			out = append(out, line{{Text: l, Style: CodeBlock}})
		}
		return out
	}
	kw, ty := words(lg.keywords, lg.caseless), words(lg.types, lg.caseless)
	var inBlock string // the end of an open block comment
	var inRaw byte     // an open raw string
	for _, l := range lines {
		var spans line
		add := func(t string, syn Syntax) {
			if t == "" {
				return
			}
			if n := len(spans); n > 0 && spans[n-1].Syn == syn {
				spans[n-1].Text += t
				return
			}
			spans = append(spans, Span{Text: t, Style: CodeBlock, Syn: syn})
		}
		i := 0
		for i < len(l) {
			rest := l[i:]
			if inBlock != "" {
				j := strings.Index(rest, inBlock)
				if j < 0 {
					add(rest, SynComment)
					i = len(l)
					break
				}
				add(rest[:j+len(inBlock)], SynComment)
				i += j + len(inBlock)
				inBlock = ""
				continue
			}
			if inRaw != 0 {
				j := strings.IndexByte(rest, inRaw)
				if j < 0 {
					add(rest, SynString)
					i = len(l)
					break
				}
				add(rest[:j+1], SynString)
				i += j + 1
				inRaw = 0
				continue
			}
			matched := false
			for _, lc := range lg.line {
				if strings.HasPrefix(rest, lc) {
					add(rest, SynComment)
					i, matched = len(l), true
					break
				}
			}
			if matched {
				break
			}
			for _, bc := range lg.block {
				if strings.HasPrefix(rest, bc[0]) {
					inBlock = bc[1]
					add(bc[0], SynComment)
					i += len(bc[0])
					matched = true
					break
				}
			}
			if matched {
				continue
			}
			c := rest[0]
			switch {
			case strings.IndexByte(lg.raw, c) >= 0:
				inRaw = c
				add(string(c), SynString)
				i++
			case strings.IndexByte(lg.strs, c) >= 0:
				j := 1
				for j < len(rest) && rest[j] != c {
					if rest[j] == '\\' {
						j++
					}
					j++
				}
				j = min(j+1, len(rest))
				add(rest[:j], SynString)
				i += j
			case c >= '0' && c <= '9':
				j := 1
				for j < len(rest) && (isIdent(rest[j]) || rest[j] == '.') {
					j++
				}
				add(rest[:j], SynNumber)
				i += j
			case isIdentStart(rest):
				j := 0
				for j < len(rest) {
					r, n := utf8.DecodeRuneInString(rest[j:])
					if !(r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
						break
					}
					j += n
				}
				word := rest[:j]
				key := word
				if lg.caseless {
					key = strings.ToLower(word)
				}
				next := strings.TrimLeft(rest[j:], " ")
				switch {
				case kw[key]:
					add(word, SynKeyword)
				case ty[key]:
					add(word, SynType)
				case strings.HasPrefix(next, "("):
					add(word, SynFunction)
				default:
					add(word, SynNone)
				}
				i += j
			case strings.IndexByte(opChars, c) >= 0:
				add(string(c), SynOperator)
				i++
			case strings.IndexByte("()[]{},;.", c) >= 0:
				add(string(c), SynPunctuation)
				i++
			default:
				_, n := utf8.DecodeRuneInString(rest)
				add(rest[:n], SynNone)
				i += n
			}
		}
		if len(spans) == 0 {
			spans = line{{Text: "", Style: CodeBlock}}
		}
		out = append(out, spans)
	}
	return out
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isIdentStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return r == '_' || r == '$' || unicode.IsLetter(r)
}

func words(s string, caseless bool) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		if caseless {
			w = strings.ToLower(w)
		}
		m[w] = true
	}
	return m
}

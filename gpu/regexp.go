package gpu

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// Regular expressions of the regexp_* functions. Substrait says patterns
// follow ICU; Go's regexp is RE2. toRE2 rewrites what has an exact RE2
// equivalent and refuses (ErrUnsupported) the rest, never running a
// pattern with a different meaning. Lookaround and atomic groups, which
// RE2 lacks, run on github.com/dlclark/regexp2 (a backtracking engine with
// .NET syntax, whose lookaround and atomic groups mean what ICU's do),
// with the same rewrites in .NET spelling; RE2 stays the engine for every
// other pattern (linear time). Rewrites and refusals:
//   - \d \s and their negations are Unicode classes in ICU (ASCII in RE2):
//     rewritten to \p{Nd} and [\t-\r\x{85}\p{Z}] (exactly ICU's White_Space).
//   - \w is ICU's [\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200c}\x{200d}]; RE2 has
//     no Alphabetic property, so \w, \W, \b and \B are refused, except
//     that \w is rewritten when the input is ASCII (checked per row: ASCII
//     letters, digits and '_' are exactly ICU's word characters there).
//   - '.' does not match line terminators in ICU (\n \v \f \r \x85 \u2028
//     \u2029); rewritten to a class that excludes them.
//   - '$' matches at the end and before a final line terminator in ICU; a
//     row whose input ends with one is refused, others run with \z.
//   - Possessive quantifiers, back references, inline flags, \Z \G \X
//     \R \h \v \N \e \0, nested classes: refused (and, on regexp2, \Q,
//     \x{...}, \U, named groups (?P< and \p{...} other than general
//     categories, whose .NET spelling or meaning differs).
//   - Empty matches right after a match: ICU reports them, Go's FindAll
//     skips them; findAll adds them back (exact when the pattern has no
//     start anchor; refused otherwise).

type icuRegexp struct {
	re      *regexp.Regexp
	bt      *regexp2.Regexp // the backtracking engine, for lookaround
	net     bool            // rewritten for regexp2 (bt), not RE2 (re)
	at      *regexp.Regexp  // \A(?:re): a match starting exactly at a position
	dollar  bool            // the pattern uses $
	anchor  bool            // the pattern uses ^ or \A
	word    bool            // the pattern uses \w or \W (ASCII inputs only)
	matches bool            // the pattern can match the empty string
	// rewritten is the RE2 pattern toRE2 made.
	rewritten string
}

// regexpCache holds compiled patterns (pattern -> *icuRegexp or error).
// Patterns come from columns too, so it is emptied when it grows past
// maxCachedRegexps rather than growing with the data.
var (
	regexpCache   sync.Map
	regexpCached  atomic.Int64
	regexpClearMu sync.Mutex
)

const maxCachedRegexps = 4096

func cacheRegexp(pattern string, v any) {
	if regexpCached.Add(1) > maxCachedRegexps {
		regexpClearMu.Lock()
		if regexpCached.Load() > maxCachedRegexps {
			regexpCache.Range(func(k, _ any) bool { regexpCache.Delete(k); return true })
			regexpCached.Store(1)
		}
		regexpClearMu.Unlock()
	}
	regexpCache.Store(pattern, v)
}

func compileICU(pattern string) (*icuRegexp, error) {
	if v, ok := regexpCache.Load(pattern); ok {
		if err, isErr := v.(error); isErr {
			return nil, err
		}
		return v.(*icuRegexp), nil
	}
	r, err := toDialect(pattern, false)
	if err == nil {
		r.re, err = regexp.Compile(r.src())
		if err != nil {
			err = fmt.Errorf("regular expression RE2 cannot compile: %v (pattern %q): %w", err, pattern, ErrUnsupported)
		} else {
			r.at = regexp.MustCompile(`\A(?:` + r.re.String() + `)`)
			r.matches = r.re.MatchString("")
		}
	} else if errors.Is(err, errNeedsBacktracking) {
		if r, err = toDialect(pattern, true); err == nil {
			r.bt, err = regexp2.Compile(r.src(), regexp2.None)
			if err != nil {
				err = fmt.Errorf("regular expression regexp2 cannot compile: %v (pattern %q): %w", err, pattern, ErrUnsupported)
			} else {
				r.bt.MatchTimeout = time.Second
			}
		}
	}
	if err != nil {
		cacheRegexp(pattern, err)
		return nil, err
	}
	cacheRegexp(pattern, r)
	return r, nil
}

func (r *icuRegexp) src() string { return r.rewritten }

// errNeedsBacktracking marks a pattern RE2 cannot run but regexp2 can.
var errNeedsBacktracking = errors.New("needs a backtracking engine")

// toDialect rewrites ICU pattern p for RE2 (net false) or regexp2 (net).
func toDialect(p string, net bool) (*icuRegexp, error) {
	r := &icuRegexp{net: net}
	engine := "RE2"
	if net {
		engine = "regexp2"
	}
	refuse := func(what string) (*icuRegexp, error) {
		// The pattern comes last so that alike refusals read alike.
		return nil, fmt.Errorf("ICU regular expression with %s: no %s equivalent (pattern %q): %w", what, engine, p, ErrUnsupported)
	}
	space := `\t-\r\x{85}\p{Z}`
	notLineEnd := `[^\n\x0B\f\r\x{85}\x{2028}\x{2029}]`
	if net {
		space = `\t-\r\u0085\p{Z}`
		notLineEnd = `[^\n\x0B\f\r\u0085\u2028\u2029]`
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 >= len(p) {
				return refuse("a trailing backslash")
			}
			i++
			e := p[i]
			switch e {
			case 'd':
				b.WriteString(`\p{Nd}`)
			case 'D':
				b.WriteString(`\P{Nd}`)
			case 's':
				if inClass {
					b.WriteString(space)
				} else {
					b.WriteString("[" + space + "]")
				}
			case 'S':
				if inClass {
					return refuse(`\S inside a class`)
				}
				b.WriteString("[^" + space + "]")
			case 'w', 'W':
				r.word = true
				b.WriteByte('\\')
				b.WriteByte(e)
			case 'A', 'z', 'a', 'f', 'n', 'r', 't', 'p', 'P', 'x', 'Q', 'E':
				if e == 'A' {
					r.anchor = true
				}
				if net {
					switch {
					case e == 'Q' || e == 'E':
						return refuse(`\Q...\E`)
					case e == 'x' && i+1 < len(p) && p[i+1] == '{':
						return refuse(`\x{...}`)
					case (e == 'p' || e == 'P') && !generalCategory(p[i+1:]):
						return refuse(`a \p{...} property other than a general category`)
					}
				}
				b.WriteByte('\\')
				b.WriteByte(e)
				if e == 'Q' { // copy the quoted text as it is
					end := strings.Index(p[i+1:], `\E`)
					if end < 0 {
						b.WriteString(p[i+1:])
						i = len(p)
					} else {
						b.WriteString(p[i+1 : i+1+end+2])
						i += end + 2
					}
				}
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if i+n >= len(p) {
					return refuse(`a short \u escape`)
				}
				switch {
				case !net:
					b.WriteString(`\x{` + p[i+1:i+1+n] + `}`)
				case n == 4:
					b.WriteString(`\u` + p[i+1:i+1+n])
				default:
					return refuse(`\U`)
				}
				i += n
			default:
				if (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9') {
					return refuse(`\` + string(e))
				}
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		case inClass:
			if c == '[' {
				return refuse("a nested character class")
			}
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a literal in both flavours.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		case c == '.':
			b.WriteString(notLineEnd)
		case c == '$':
			r.dollar = true
			b.WriteString(`\z`)
		case c == '^':
			r.anchor = true
			b.WriteString(`\A`)
		case c == '(' && i+1 < len(p) && p[i+1] == '?':
			rest := p[i+2:]
			switch {
			case strings.HasPrefix(rest, ":"):
				b.WriteString("(?:")
				i += 2
			case (strings.HasPrefix(rest, "<") && !strings.HasPrefix(rest, "<=") && !strings.HasPrefix(rest, "<!") ||
				strings.HasPrefix(rest, "P<")) && !net:
				// A named group: the same syntax in RE2. (.NET numbers
				// named groups after the others, ICU in order: refused.)
				b.WriteByte('(')
			case strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"), strings.HasPrefix(rest, "<="),
				strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, ">"):
				if !net {
					return nil, fmt.Errorf("%s: %w", groupKind(rest), errNeedsBacktracking)
				}
				b.WriteByte('(') // lookaround, atomic group: same syntax and meaning
			default:
				return refuse(groupKind(rest))
			}
		case (c == '+') && i > 0 && (p[i-1] == '*' || p[i-1] == '+' || p[i-1] == '?' || p[i-1] == '}'):
			return refuse("a possessive quantifier")
		default:
			b.WriteByte(c)
		}
	}
	r.rewritten = b.String()
	return r, nil
}

func groupKind(rest string) string {
	for _, g := range []struct{ prefix, name string }{
		{"=", "lookahead (?="}, {"!", "negative lookahead (?!"}, {"<=", "lookbehind (?<="},
		{"<!", "negative lookbehind (?<!"}, {">", "an atomic group (?>"}, {"#", "a comment (?#"},
	} {
		if strings.HasPrefix(rest, g.prefix) {
			return g.name
		}
	}
	return "inline flags (?" + firstRune(rest)
}

// generalCategory reports whether s starts with {X} or X naming a Unicode
// general category (the \p{...} names .NET and ICU agree on).
func generalCategory(s string) bool {
	if len(s) < 2 {
		return false
	}
	name := s[1:2]
	if s[1] == '{' {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return false
		}
		name = s[2:end]
	}
	switch name {
	case "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No",
		"P", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So",
		"Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Cs", "Co", "Cn":
		return true
	}
	return false
}

func firstRune(s string) string {
	if s == "" {
		return ""
	}
	_, w := utf8.DecodeRuneInString(s)
	return s[:w]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// checkInput refuses a row whose input would match differently in ICU.
func (r *icuRegexp) checkInput(pattern, s string) error {
	if r.word && !isASCII(s) {
		return fmt.Errorf("regular expression %q: \\w on non-ASCII input (ICU's word characters are Unicode): %w", pattern, ErrUnsupported)
	}
	if r.dollar && s != "" {
		last, _ := utf8.DecodeLastRuneInString(s)
		switch last {
		case '\n', '\v', '\f', '\r', 0x85, 0x2028, 0x2029:
			return fmt.Errorf("regular expression %q: $ before a final line terminator: %w", pattern, ErrUnsupported)
		}
	}
	return nil
}

// findAll returns ICU's successive matches (submatch indexes) of s: Go's,
// plus the empty matches that abut a preceding non-empty match.
func (r *icuRegexp) findAll(pattern, s string, limit int) ([][]int, error) {
	if r.bt != nil {
		return r.findAllBacktracking(s, limit)
	}
	ms := r.re.FindAllStringSubmatchIndex(s, -1)
	if !r.matches {
		return ms, nil // no empty match is possible: Go's list is ICU's
	}
	if r.anchor {
		return nil, fmt.Errorf("regular expression %q: repeated matches of an anchored pattern that matches empty: %w", pattern, ErrUnsupported)
	}
	var out [][]int
	for _, m := range ms {
		out = append(out, m)
		if m[1] > m[0] {
			// Without start anchors, a match at position m[1] depends only
			// on the text from there on.
			if e := r.at.FindStringSubmatchIndex(s[m[1]:]); e != nil && e[1] == 0 {
				for k := range e {
					if e[k] >= 0 {
						e[k] += m[1]
					}
				}
				out = append(out, e)
			}
		}
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	return out, nil
}

// runeOffset is the byte offset of code point pos (1-based) of s; len(s)
// past the end.
func runeOffset(s string, pos int64) int {
	if pos <= 1 {
		return 0
	}
	n := int64(1)
	for i := range s {
		if n == pos {
			return i
		}
		n++
	}
	return len(s)
}

func (f *StrFunc) evalRegexp(a []RowValue) (RowValue, error) {
	if f.Pattern != "" {
		return RowValue{}, fmt.Errorf("%s: regexp flags %q: %w", f.RowName(), f.Pattern, ErrUnsupported)
	}
	pattern := a[1].S
	r, err := compileICU(pattern)
	if err != nil {
		return RowValue{}, err
	}
	argAt := func(i int, def int64) int64 {
		if i < len(a) {
			return a[i].I
		}
		return def
	}
	var posArg int
	switch f.Kind {
	case StrRowRegexpCount, StrRowRegexpMatch:
		posArg = 2
	case StrRowRegexpReplace:
		posArg = 3
	}
	pos := argAt(posArg, 1)
	if pos < 1 {
		return RowValue{}, fmt.Errorf("%s: position %d (must be at least 1)", f.RowName(), pos)
	}
	// Searching from a position is searching the rest of the string (ICU's
	// region with its default anchoring bounds).
	s := a[0].S
	off := runeOffset(s, pos)
	head, tail := s[:off], s[off:]
	if err := r.checkInput(pattern, tail); err != nil {
		return RowValue{}, err
	}
	switch f.Kind {
	case StrRowRegexpCount:
		ms, err := r.findAll(pattern, tail, 0)
		if err != nil {
			return RowValue{}, err
		}
		return RowValue{I: int64(len(ms))}, nil
	case StrRowRegexpMatch:
		occ, group := argAt(3, 1), argAt(4, 0)
		if occ < 1 || group < 0 || group > int64(r.numSubexp()) {
			return RowValue{}, fmt.Errorf("%s: occurrence %d, group %d out of range", f.RowName(), occ, group)
		}
		ms, err := r.findAll(pattern, tail, int(occ))
		if err != nil {
			return RowValue{}, err
		}
		// No such match, or a group that took no part: the empty string
		// (the spec leaves it undefined; DuckDB's regexp_extract does so).
		if int64(len(ms)) < occ {
			return RowValue{}, nil
		}
		m := ms[occ-1]
		if m[2*group] < 0 {
			return RowValue{}, nil
		}
		return RowValue{S: tail[m[2*group]:m[2*group+1]]}, nil
	case StrRowRegexpReplace:
		occ := argAt(4, 0)
		if occ < 0 {
			return RowValue{}, fmt.Errorf("%s: occurrence %d (must be at least 0)", f.RowName(), occ)
		}
		repl := a[2].S
		if strings.Contains(repl, "$") {
			return RowValue{}, fmt.Errorf("%s: replacement %q with '$' (ICU group reference or literal): %w", f.RowName(), repl, ErrUnsupported)
		}
		ms, err := r.findAll(pattern, tail, int(occ))
		if err != nil {
			return RowValue{}, err
		}
		if occ > 0 {
			if int64(len(ms)) < occ {
				return RowValue{S: s}, nil
			}
			ms = ms[occ-1 : occ]
		} else if len(ms) > 1 {
			// functions_string.yaml: occurrence 0 replaces every match;
			// the spec's test cases replace only the first (with 0 and
			// with no occurrence argument). Where that matters, refuse.
			return RowValue{}, fmt.Errorf("%s: occurrence 0 with several matches (the spec's YAML and its test cases disagree): %w", f.RowName(), ErrUnsupported)
		}
		var b strings.Builder
		b.WriteString(head)
		last := 0
		for _, m := range ms {
			b.WriteString(tail[last:m[0]])
			if err := expandReplacement(&b, repl, tail, m); err != nil {
				return RowValue{}, fmt.Errorf("%s: %w", f.RowName(), err)
			}
			last = m[1]
		}
		b.WriteString(tail[last:])
		if b.Len() > maxRowString {
			return RowValue{}, fmt.Errorf("%s: result longer than %d bytes", f.RowName(), maxRowString)
		}
		return RowValue{S: b.String()}, nil
	}
	return RowValue{}, fmt.Errorf("unknown regexp function kind %d", f.Kind)
}

// expandReplacement writes repl with \N (a digit) replaced by group N of
// match m and \c by c.
func expandReplacement(b *strings.Builder, repl, s string, m []int) error {
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c != '\\' || i+1 == len(repl) {
			b.WriteByte(c)
			continue
		}
		i++
		c = repl[i]
		if c < '0' || c > '9' {
			b.WriteByte(c)
			continue
		}
		g := int(c - '0')
		if 2*g+1 >= len(m) {
			return fmt.Errorf("replacement refers to group %d, the pattern has %d", g, len(m)/2-1)
		}
		if m[2*g] >= 0 {
			b.WriteString(s[m[2*g]:m[2*g+1]])
		}
	}
	return nil
}

// findAllBacktracking is findAll on regexp2, whose successive matches are
// ICU's (an empty match right after a match included); its offsets count
// code points, turned into byte offsets here.
func (r *icuRegexp) findAllBacktracking(s string, limit int) ([][]int, error) {
	runeByte := make([]int, 0, len(s)+1) // byte offset of each code point, and the end
	for i := range s {
		runeByte = append(runeByte, i)
	}
	runeByte = append(runeByte, len(s))
	var out [][]int
	m, err := r.bt.FindStringMatch(s)
	for ; err == nil && m != nil; m, err = r.bt.FindNextMatch(m) {
		gs := m.Groups()
		idx := make([]int, 2*len(gs))
		for g, grp := range gs {
			idx[2*g], idx[2*g+1] = -1, -1
			if len(grp.Captures) > 0 {
				idx[2*g], idx[2*g+1] = runeByte[grp.Index], runeByte[grp.Index+grp.Length]
			}
		}
		out = append(out, idx)
		if limit > 0 && len(out) >= limit {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("regular expression: %v", err)
	}
	return out, nil
}

// numSubexp is the number of capture groups.
func (r *icuRegexp) numSubexp() int {
	if r.bt != nil {
		return len(r.bt.GetGroupNumbers()) - 1
	}
	return r.re.NumSubexp()
}

// Package sqltext reads the few things rigel must know of a SQL text
// before DuckDB parses it: where comments, quoted strings and dollar-quoted
// strings end, and which statement an EXPLAIN explains; and writes the two
// things every room that writes SQL needs, a quoted identifier (Ident) and
// a string literal (String). It is a lexer of
// DuckDB's surface syntax, not a parser: whatever it cannot read with
// certainty it reports as unreadable, and callers refuse rather than guess.
package sqltext

import "strings"

// Ident quotes s as a SQL identifier, its double quotes doubled, so that
// a table or column name is only ever read as a name.
func Ident(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// String quotes s as a SQL string literal, its single quotes doubled.
func String(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// SkipComments drops the white space and comments that lead s. An open
// block comment swallows the rest of s.
func SkipComments(s string) string {
	for {
		s = strings.TrimSpace(s)
		switch {
		case strings.HasPrefix(s, "--"):
			nl := strings.IndexByte(s, '\n')
			if nl < 0 {
				return ""
			}
			s = s[nl+1:]
		case strings.HasPrefix(s, "/*"):
			e := strings.Index(s, "*/")
			if e < 0 {
				return ""
			}
			s = s[e+2:]
		default:
			return s
		}
	}
}

// SkipQuoted returns the index after the quote closing the one at s[i]
// (a doubled quote is an escaped one), or -1 when it is still open.
func SkipQuoted(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		if s[j] == q {
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return -1
}

// SkipDollar skips a dollar-quoted string $tag$...$tag$ starting at s[i]; a
// '$' that does not open one (a parameter such as $1) is skipped alone. It
// returns -1 when the string is still open.
func SkipDollar(s string, i int) int {
	j := i + 1
	for j < len(s) && (s[j] == '_' || IsAlnum(s[j])) {
		j++
	}
	if j >= len(s) || s[j] != '$' || (j > i+1 && s[i+1] >= '0' && s[i+1] <= '9') {
		return i + 1
	}
	tag := s[i : j+1]
	e := strings.Index(s[j+1:], tag)
	if e < 0 {
		return -1
	}
	return j + 1 + e + len(tag)
}

// IsAlnum reports whether c is an ASCII letter or digit.
func IsAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// keyword reports whether s starts with the keyword kw (any case) followed
// by something that cannot continue a word, and returns what follows it.
func keyword(s, kw string) (string, bool) {
	if len(s) < len(kw) || !strings.EqualFold(s[:len(kw)], kw) {
		return s, false
	}
	if len(s) > len(kw) && (IsAlnum(s[len(kw)]) || s[len(kw)] == '_' || s[len(kw)] >= 0x80) {
		return s, false
	}
	return s[len(kw):], true
}

// Explain recognizes an EXPLAIN statement and returns the statement it
// explains and its options: "ANALYZE", the parenthesized option list
// ("(ANALYZE, FORMAT json)"), or "" for a plain EXPLAIN. isExplain is false
// for any other statement. readable is false for an EXPLAIN whose parts
// this lexer cannot delimit (an unclosed option list or string): callers
// must then refuse it, since they cannot tell what it would run.
func Explain(stmt string) (target, options string, isExplain, readable bool) {
	s := SkipComments(stmt)
	rest, ok := keyword(s, "EXPLAIN")
	if !ok {
		return "", "", false, true
	}
	rest = SkipComments(rest)
	if r, ok := keyword(rest, "ANALYZE"); ok {
		return SkipComments(r), "ANALYZE", true, true
	}
	if r, ok := keyword(rest, "ANALYSE"); ok { // DuckDB takes both spellings
		return SkipComments(r), "ANALYZE", true, true
	}
	if !strings.HasPrefix(rest, "(") {
		return rest, "", true, true
	}
	end := closingParen(rest)
	if end < 0 {
		return "", "", true, false
	}
	return SkipComments(rest[end:]), rest[:end], true, true
}

// closingParen returns the index after the parenthesis that closes the one
// opening s, skipping strings, quoted identifiers and comments, or -1.
func closingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '(':
			depth++
			i++
		case c == ')':
			depth--
			i++
			if depth == 0 {
				return i
			}
		case c == '\'' || c == '"':
			i = SkipQuoted(s, i, c)
		case c == '$':
			i = SkipDollar(s, i)
		case strings.HasPrefix(s[i:], "--"), strings.HasPrefix(s[i:], "/*"):
			rest := SkipComments(s[i:])
			i = len(s) - len(rest)
			if rest == "" {
				return -1
			}
		default:
			i++
		}
		if i < 0 {
			return -1
		}
	}
	return -1
}

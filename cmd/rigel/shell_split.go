package main

import "strings"

// stmtBuffer gathers input lines into SQL statements the way DuckDB's CLI
// does: a statement ends at a semicolon that is not inside a string, a
// quoted identifier, a comment or a dollar-quoted string.
type stmtBuffer struct {
	text string // what is left over after the last complete statement
}

// add appends a line and returns the statements it completed (without
// their semicolons; empty statements are dropped).
func (b *stmtBuffer) add(line string) []string {
	if b.text == "" {
		b.text = line
	} else {
		b.text += "\n" + line
	}
	var stmts []string
	for {
		end := statementEnd(b.text)
		if end < 0 {
			break
		}
		if s := strings.TrimSpace(b.text[:end]); !blankSQL(s) {
			stmts = append(stmts, s)
		}
		b.text = b.text[end+1:]
	}
	if blankSQL(b.text) {
		b.text = ""
	}
	return stmts
}

// empty reports whether no statement is in progress (the next line gets the
// first prompt, and may be a dot command).
func (b *stmtBuffer) empty() bool { return b.text == "" }

// take returns the unfinished statement, if any, and empties the buffer
// (end of input: it runs as it is, like the last line of a script).
func (b *stmtBuffer) take() string {
	s := strings.TrimSpace(b.text)
	b.text = ""
	return s
}

// reset drops the unfinished statement (Ctrl-C at the prompt).
func (b *stmtBuffer) reset() { b.text = "" }

// statementEnd returns the index of the first semicolon of s that ends a
// statement, or -1.
func statementEnd(s string) int {
	i := 0
	for i < len(s) {
		switch c := s[i]; {
		case c == ';':
			return i
		case c == '\'' || c == '"':
			i = skipQuoted(s, i, c)
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			nl := strings.IndexByte(s[i:], '\n')
			if nl < 0 {
				return -1
			}
			i += nl + 1
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			e := strings.Index(s[i+2:], "*/")
			if e < 0 {
				return -1
			}
			i += 2 + e + 2
		case c == '$':
			i = skipDollar(s, i)
		default:
			i++
		}
		if i < 0 {
			return -1 // an open string or comment: the statement goes on
		}
	}
	return -1
}

// skipQuoted returns the index after the quote closing the one at s[i]
// (a doubled quote is an escaped one), or -1 when it is still open.
func skipQuoted(s string, i int, q byte) int {
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

// skipDollar skips a dollar-quoted string $tag$...$tag$ starting at s[i]; a
// '$' that does not open one (a parameter such as $1) is skipped alone.
func skipDollar(s string, i int) int {
	j := i + 1
	for j < len(s) && (s[j] == '_' || isAlnum(s[j])) {
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

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// blankSQL reports whether s holds only white space and comments.
func blankSQL(s string) bool {
	for {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			return true
		case strings.HasPrefix(s, "--"):
			nl := strings.IndexByte(s, '\n')
			if nl < 0 {
				return true
			}
			s = s[nl+1:]
		case strings.HasPrefix(s, "/*"):
			e := strings.Index(s, "*/")
			if e < 0 {
				return false // an open comment: wait for its end
			}
			s = s[e+2:]
		default:
			return false
		}
	}
}

// skipComments drops the white space and comments that lead s.
func skipComments(s string) string {
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

// explainTarget recognizes a plain "EXPLAIN query" and returns the query;
// EXPLAIN ANALYZE and EXPLAIN with options are not plain (DuckDB runs them).
func explainTarget(stmt string) (query string, plain, isExplain bool) {
	s := skipComments(stmt)
	const kw = "EXPLAIN"
	if len(s) <= len(kw) || !strings.EqualFold(s[:len(kw)], kw) || isAlnum(s[len(kw)]) || s[len(kw)] == '_' {
		return "", false, false
	}
	rest := strings.TrimSpace(s[len(kw):])
	if strings.HasPrefix(rest, "(") {
		return "", false, true
	}
	if len(rest) >= 7 && strings.EqualFold(rest[:7], "ANALYZE") && (len(rest) == 7 || !isAlnum(rest[7])) {
		return "", false, true
	}
	return rest, true, true
}

// leadingKeywords returns the first n words of a statement, upper-cased,
// after leading comments.
func leadingKeywords(s string, n int) []string {
	f := strings.FieldsFunc(skipComments(s), func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '(' || r == ';'
	})
	if len(f) > n {
		f = f[:n]
	}
	for i := range f {
		f[i] = strings.ToUpper(f[i])
	}
	return f
}

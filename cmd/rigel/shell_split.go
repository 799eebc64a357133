package main

import (
	"strings"

	"github.com/rigel-db/rigel/internal/sqltext"
)

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
			i = sqltext.SkipQuoted(s, i, c)
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
			i = sqltext.SkipDollar(s, i)
		default:
			i++
		}
		if i < 0 {
			return -1 // an open string or comment: the statement goes on
		}
	}
	return -1
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

// explainTarget recognizes a plain "EXPLAIN query" and returns the query;
// EXPLAIN ANALYZE and EXPLAIN with options are not plain (DuckDB runs them).
func explainTarget(stmt string) (query string, plain, isExplain bool) {
	target, options, isExplain, _ := sqltext.Explain(stmt)
	if !isExplain || options != "" || target == "" {
		return "", false, isExplain // DuckDB runs it (or says what is wrong)
	}
	return target, true, true
}

// analyzeTarget recognizes "EXPLAIN ANALYZE query" and returns the query.
func analyzeTarget(stmt string) (query string, ok bool) {
	target, options, isExplain, _ := sqltext.Explain(stmt)
	if !isExplain || options != "ANALYZE" || target == "" {
		return "", false
	}
	return target, true
}

// leadingKeywords returns the first n words of a statement, upper-cased,
// after leading comments.
func leadingKeywords(s string, n int) []string {
	f := strings.FieldsFunc(sqltext.SkipComments(s), func(r rune) bool {
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

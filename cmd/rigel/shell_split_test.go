package main

import (
	"fmt"
	"testing"
)

func TestStmtBuffer(t *testing.T) {
	cases := []struct {
		lines []string
		want  []string
		rest  string
	}{
		{[]string{"select 1;"}, []string{"select 1"}, ""},
		{[]string{"select 1; select 2;"}, []string{"select 1", "select 2"}, ""},
		{[]string{"select", "1", ";"}, []string{"select\n1"}, ""},
		{[]string{"select ';' as s;"}, []string{"select ';' as s"}, ""},
		{[]string{"select 'it''s;' as s;"}, []string{"select 'it''s;' as s"}, ""},
		{[]string{`select 1 as "a;b";`}, []string{`select 1 as "a;b"`}, ""},
		{[]string{"select 1 -- a ; here", "+ 1;"}, []string{"select 1 -- a ; here\n+ 1"}, ""},
		{[]string{"select /* ; */ 1;"}, []string{"select /* ; */ 1"}, ""},
		{[]string{"select $$a;b$$;"}, []string{"select $$a;b$$"}, ""},
		{[]string{"select $tag$ ; $tag$, $1;"}, []string{"select $tag$ ; $tag$, $1"}, ""},
		{[]string{"select 'open;", "still';"}, []string{"select 'open;\nstill'"}, ""},
		{[]string{";;", "-- only a comment"}, nil, ""},
		{[]string{"select 1; select"}, []string{"select 1"}, " select"},
	}
	for _, c := range cases {
		var b stmtBuffer
		var got []string
		for _, l := range c.lines {
			got = append(got, b.add(l)...)
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) || b.text != c.rest {
			t.Errorf("%q: statements %q rest %q, want %q rest %q", c.lines, got, b.text, c.want, c.rest)
		}
	}
}

func TestExplainTarget(t *testing.T) {
	cases := []struct {
		in           string
		query        string
		plain, isExp bool
	}{
		{"EXPLAIN SELECT 1", "SELECT 1", true, true},
		{"-- c\n explain\nselect 1", "select 1", true, true},
		{"EXPLAIN ANALYZE SELECT 1", "", false, true},
		{"explain (format json) select 1", "", false, true},
		{"explained", "", false, false},
		{"SELECT 1", "", false, false},
	}
	for _, c := range cases {
		q, plain, isExp := explainTarget(c.in)
		if q != c.query || plain != c.plain || isExp != c.isExp {
			t.Errorf("%q: (%q, %v, %v), want (%q, %v, %v)", c.in, q, plain, isExp, c.query, c.plain, c.isExp)
		}
	}
}

package sqltext

import "testing"

func TestExplain(t *testing.T) {
	for _, c := range []struct {
		in                  string
		target, options     string
		isExplain, readable bool
	}{
		{"SELECT 1", "", "", false, true},
		{"explained", "", "", false, true},
		{"EXPLAIN SELECT 1", "SELECT 1", "", true, true},
		{"-- a comment\n  explain\nselect 1", "select 1", "", true, true},
		{"EXPLAIN ANALYZE DELETE FROM t", "DELETE FROM t", "ANALYZE", true, true},
		{"explain analyse delete from t", "delete from t", "ANALYZE", true, true},
		{"/* a */ EXPLAIN /* b */ ANALYZE -- c\n DELETE FROM t", "DELETE FROM t", "ANALYZE", true, true},
		{"EXPLAIN ANALYZED", "ANALYZED", "", true, true},
		{"EXPLAIN (ANALYZE) DELETE FROM t", "DELETE FROM t", "(ANALYZE)", true, true},
		{"EXPLAIN (FORMAT 'j)son', ANALYZE) UPDATE t SET a = 1", "UPDATE t SET a = 1", "(FORMAT 'j)son', ANALYZE)", true, true},
		{"EXPLAIN (ANALYZE /* ) */ ) INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (1)", "(ANALYZE /* ) */ )", true, true},
		{"EXPLAIN (ANALYZE DELETE FROM t", "", "", true, false},
		{"EXPLAIN (FORMAT 'json) DELETE FROM t", "", "", true, false},
		{"EXPLAIN (ANALYZE -- )\n DELETE FROM t", "", "", true, false},
	} {
		target, options, isExplain, readable := Explain(c.in)
		if target != c.target || options != c.options || isExplain != c.isExplain || readable != c.readable {
			t.Errorf("Explain(%q) = (%q, %q, %v, %v), want (%q, %q, %v, %v)", c.in, target, options, isExplain, readable,
				c.target, c.options, c.isExplain, c.readable)
		}
	}
}

func TestSkipComments(t *testing.T) {
	for in, want := range map[string]string{
		"  SELECT 1":               "SELECT 1",
		"-- x\n-- y\n SELECT 1":    "SELECT 1",
		"/* x */ /* y */SELECT 1":  "SELECT 1",
		"-- only a comment":        "",
		"/* open comment SELECT 1": "",
	} {
		if got := SkipComments(in); got != want {
			t.Errorf("SkipComments(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIdent(t *testing.T) {
	for in, want := range map[string]string{`t`: `"t"`, `a"b`: `"a""b"`, `x"; DROP TABLE t; --`: `"x""; DROP TABLE t; --"`, ``: `""`} {
		if got := Ident(in); got != want {
			t.Errorf("Ident(%q) = %s, want %s", in, got, want)
		}
	}
}

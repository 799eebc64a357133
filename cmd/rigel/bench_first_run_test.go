package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOtherConstants: the variants keep their query's meaning with new
// literals: Q6's year moves as a whole (an empty date range, which DuckDB
// answers without reading, would time nothing).
func TestOtherConstants(t *testing.T) {
	qs, err := tpchQueries("1,6")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := otherConstants(qs)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 {
		t.Fatalf("%d variants, want 2", len(vs))
	}
	q6 := vs[1].sql
	for _, want := range []string{">= CAST('1995-01-01' AS date)", "< CAST('1996-01-01' AS date)", "BETWEEN 0.04 AND 0.06", "< 25"} {
		if !strings.Contains(q6, want) {
			t.Errorf("Q6 variant lacks %q:\n%s", want, q6)
		}
	}
	if !strings.Contains(vs[0].sql, "'1998-08-15'") || vs[0].inMeans || vs[1].inMeans {
		t.Errorf("Q1 variant or the means flag: %+v", vs[0])
	}
}

// rigel bench sql times every .sql file of a folder, named by its file,
// hot and first run, each against DuckDB; a folder without one is a usage
// error that says so.
func TestBenchSQLFolder(t *testing.T) {
	dir := t.TempDir()
	for name, q := range map[string]string{
		"a_sum.sql":   "SELECT sum(a) AS s FROM t",
		"b_where.sql": "SELECT a FROM t WHERE a > 1 ORDER BY a",
		"notes.txt":   "not a query",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(q+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := smallDB(t)
	for _, mode := range [][]string{nil, {"--first-run"}} {
		out := filepath.Join(t.TempDir(), "table.md")
		args := append([]string{"bench", "sql", "--db", db, "--dir", dir, "--device", "host", "--runs", "1", "--out", out}, mode...)
		if o := rigel(t, args...); o.code != 0 {
			t.Fatalf("%v: exit %d: %s", mode, o.code, o.stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		table := string(b)
		for _, row := range []string{"| a_sum | host |", "| b_where | host |"} {
			if !strings.Contains(table, row) {
				t.Errorf("%v: no row %q in\n%s", mode, row, table)
			}
		}
		if strings.Contains(table, "notes") || strings.Count(table, "| equal |") != 2 {
			t.Errorf("%v: want two equal rows and no other:\n%s", mode, table)
		}
	}
	if o := rigel(t, "bench", "sql", "--db", db, "--dir", t.TempDir()); o.code == 0 || !strings.Contains(o.stderr, "no .sql file") {
		t.Fatalf("an empty folder: exit %d, stderr %q", o.code, o.stderr)
	}
}

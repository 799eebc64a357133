package duckdbbridge

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deepPlanText is DuckDB's plan of a join of 16 tables with filters and an
// aggregate above: a plan as deep as TPC-DS's larger ones.
func deepPlanText(tb testing.TB) string {
	tb.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE t AS SELECT range AS a, range % 7 AS b, 'x' || range AS c FROM range(100)"); err != nil {
		tb.Fatal(err)
	}
	var from, where []string
	for i := 1; i <= 16; i++ {
		from = append(from, fmt.Sprintf("t t%d", i))
		if i > 1 {
			where = append(where, fmt.Sprintf("t%d.a = t%d.b + %d", i-1, i, i))
		}
	}
	q := "SELECT t1.c, sum(t16.a), count(*) FROM " + strings.Join(from, ", ") + " WHERE " + strings.Join(where, " AND ") + " AND t3.c LIKE '%1%' GROUP BY t1.c ORDER BY 2 DESC LIMIT 5"
	conn, err := db.Conn(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	text, err := serializePlan(context.Background(), conn, q)
	if err != nil {
		tb.Fatal(err)
	}
	return text
}

// BenchmarkParseDuckPlan: decoding DuckDB's plan JSON, part of every
// statement's first plan (a TPC-DS query's takes a few milliseconds).
//
//	go test ./duckdb-bridge -run XXX -bench ParseDuckPlan
func BenchmarkParseDuckPlan(b *testing.B) {
	text := deepPlanText(b)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := parseDuckPlan(text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseDuckPlanFiles decodes the plan texts in
// $RIGEL_PLAN_DIR/*.json (e.g. the 99 TPC-DS queries' plans, written with
// json_serialize_plan); skipped without it.
func BenchmarkParseDuckPlanFiles(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(os.Getenv("RIGEL_PLAN_DIR"), "*.json"))
	if os.Getenv("RIGEL_PLAN_DIR") == "" || len(files) == 0 {
		b.Skip("RIGEL_PLAN_DIR names no folder of plan JSON files")
	}
	var texts []string
	size := 0
	for _, f := range files {
		t, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(t))
		size += len(t)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, t := range texts {
			if _, err := parseDuckPlan(t); err != nil {
				b.Fatal(err)
			}
		}
	}
}

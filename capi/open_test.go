package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rigel_open's catalog argument: empty, a DuckDB file, a Parquet folder;
// and what is none of those is an error naming it.
func TestOpenCatalogKinds(t *testing.T) {
	dir := t.TempDir()
	dbFile := filepath.Join(dir, "k.duckdb")
	pq := filepath.Join(dir, "parquet")
	if err := os.Mkdir(pq, 0o755); err != nil {
		t.Fatal(err)
	}
	db := testDB(t, dbFile)
	if _, err := db.Exec("COPY t TO '" + filepath.Join(pq, "pt.parquet") + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	junk := filepath.Join(dir, "junk.duckdb")
	if err := os.WriteFile(junk, []byte("not a database"), 0o644); err != nil {
		t.Fatal(err)
	}

	// sum(a): a is 1..499.
	sumA := func(e *engine, table string) int64 {
		t.Helper()
		s, err := e.eng.QueryStream(context.Background(), "SELECT sum(a)::BIGINT FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Release()
		var n int64
		for s.Next() {
			n = s.RecordBatch().Column(0).GetOneForMarshal(0).(int64)
		}
		return n
	}
	for _, c := range []struct{ catalog, table string }{{dbFile, "t"}, {pq, "pt"}} {
		e, err := open(c.catalog, "host")
		if err != nil {
			t.Fatalf("%s: %v", c.catalog, err)
		}
		if n := sumA(e, c.table); n != 499*500/2 {
			t.Errorf("%s: sum(a) over %s is %d, want %d", c.catalog, c.table, n, 499*500/2)
		}
		rigel_close(register(e))
	}
	e, err := open("", "")
	if err != nil {
		t.Fatal(err)
	}
	if n := sumA(e, "(SELECT 1 AS a UNION ALL SELECT 2)"); n != 3 {
		t.Errorf("the empty catalog sums 1 and 2 to %d", n)
	}
	rigel_close(register(e))
	for path, want := range map[string]string{
		filepath.Join(dir, "missing.duckdb"): "missing.duckdb",
		junk:                                 "junk.duckdb",
	} {
		if _, err := open(path, "host"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("open(%s): %v, want an error naming %s", path, err, want)
		}
	}
}

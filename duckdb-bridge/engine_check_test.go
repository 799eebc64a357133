package duckdbbridge

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// queryLikeDuckDB runs q through the engine, fails the test unless its
// answer equals DuckDB's (rows in any order), and says where it ran and why.
func queryLikeDuckDB(t *testing.T, e *Engine, q string) (Where, string) {
	t.Helper()
	ctx := context.Background()
	got, err := e.Query(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer got.Release()
	want, err := e.RunOnDuckDB(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	if err := arrowfmt.Compare(got.Record, want.Record, false); err != nil {
		t.Fatalf("%s (ran on %s): %v", q, got.Where, err)
	}
	return got.Where, got.Reason
}

// checkWholeOnHost runs each query through e: it must run whole on the
// host device (no part handed to DuckDB) and equal DuckDB.
func checkWholeOnHost(t *testing.T, e *Engine, queries []string) {
	t.Helper()
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			where, reason := queryLikeDuckDB(t, e, q)
			if where != OnHost || reason != "" { // a reason names subtrees run on DuckDB
				t.Fatalf("ran on %s (%s), want the host device whole", where, reason)
			}
		})
	}
}

// checkDDLWholeOnHost is checkWholeOnHost on a host-device engine (named
// name) over an in-memory database that ddl makes.
// checkSubtreeOnDuckDB runs q on e: on the host device with a subtree on
// DuckDB (splitMarker), and DuckDB's answer.
func checkSubtreeOnDuckDB(t *testing.T, e *Engine, q string) {
	t.Helper()
	if where, reason := queryLikeDuckDB(t, e, q); where != OnHost || !strings.Contains(reason, splitMarker) {
		t.Fatalf("%s ran on %s (%s), want the device with a subtree on DuckDB", q, where, reason)
	}
}

func checkDDLWholeOnHost(t *testing.T, name, ddl string, queries []string) {
	t.Helper()
	checkWholeOnHost(t, NewEngine(memoryDB(t, ddl), name, host.New(), ""), queries)
}

// checkRunOnDevice runs each query on the test database: it must run whole
// on the device (the host device here) and equal DuckDB.
func checkRunOnDevice(t *testing.T, queries []string) {
	e := NewEngine(openTestDB(t, false), "device-test", host.New(), "")
	for i, q := range queries {
		t.Run(fmt.Sprintf("q%02d", i), func(t *testing.T) {
			if where, reason := queryLikeDuckDB(t, e, q); where != OnHost {
				t.Fatalf("%s: ran on %s, want the device: %s", q, where, reason)
			}
		})
	}
}

// memoryDB is an in-memory DuckDB holding what ddl makes, closed with the
// test.
func memoryDB(t *testing.T, ddl string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(ddl); err != nil {
		t.Fatal(err)
	}
	return db
}

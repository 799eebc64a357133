package duckdbbridge

import (
	"context"
	"slices"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
)

// TestCheckedNamesReachThePlan: on a read-only database the output names
// CheckQuery's prepare found are the plan's (DuckDB is not asked again),
// the same names a prepare of its own gives, and a plan takes them once.
func TestCheckedNamesReachThePlan(t *testing.T) {
	ctx := context.Background()
	db := openTPCHSmall(t)
	e := NewEngine(db, "names", host.New(), "")
	if e.plans == nil {
		t.Fatal("the TPC-H database did not open read-only")
	}
	q := "SELECT l_returnflag AS flag, count(*), sum(l_quantity) + 1 FROM lineitem GROUP BY 1 ORDER BY 1"
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := outputNames(ctx, conn, q)
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.CheckQuery(ctx, q); err != nil {
		t.Fatal(err)
	}
	e.names.mu.Lock()
	handed := e.names.m[q]
	e.names.mu.Unlock()
	if !slices.Equal(handed, want) {
		t.Fatalf("CheckQuery handed %q, DuckDB names %q", handed, want)
	}
	p, err := e.Prepare(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if p.Reason != "" || !slices.Equal(p.Names, want) {
		t.Fatalf("plan names %q (reason %q), want %q", p.Names, p.Reason, want)
	}
	if _, ok := e.names.take(q); ok {
		t.Fatal("the plan left its names in the handoff")
	}
	// A statement that is not a query hands nothing over.
	if err := e.CheckQuery(ctx, "EXPLAIN "+q); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.names.take("EXPLAIN " + q); ok {
		t.Fatal("names handed over for an EXPLAIN")
	}
}

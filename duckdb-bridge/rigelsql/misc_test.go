package rigelsql

import (
	"context"
	"testing"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
)

// Statements of other shapes come back as duckdb-go gives them, whoever
// runs them.
func TestOtherStatementsSameAsDuckDB(t *testing.T) {
	path := newDB(t)
	duck := openDB(t, "duckdb", path)
	rig := openDB(t, "rigel", path+"?"+testDevice)
	// rigel's device reads a JSON column as VARCHAR; duckdb-go parses it.
	if _, err := duck.Exec(`CREATE TABLE j AS SELECT '{"a": [1, 2]}'::JSON AS doc`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SELECT 1 AS one, 'a' AS s, NULL AS n",
		"VALUES (1, 'x'), (2, NULL)",
		"FROM g ORDER BY grp",
		"SELECT * FROM range(3)",
		"SHOW TABLES",
		"DESCRIBE g",
		"PRAGMA table_info('g')",
		"SUMMARIZE g",
		"SELECT doc FROM j",
		"SELECT '{\"b\": true}'::JSON AS doc",
		"SELECT ['a', 'b'] AS l, {'k': 1} AS st, gen_random_uuid() IS NOT NULL AS u",
		"SELECT grp::ENUM('a', 'b', 'c') AS e FROM g ORDER BY grp",
		"SELECT w, sum(w) OVER (ORDER BY grp) AS running FROM g ORDER BY grp",
	} {
		got, gt := rowsOf(t, rig, q)
		want, wt := rowsOf(t, duck, q)
		sameRows(t, q, got, want, gt, wt)
	}
}

// State of one connection (temporary tables, variables, USE) stays that
// connection's: its queries see it, as with duckdb-go.
func TestConnectionStateIsKept(t *testing.T) {
	path := newDB(t)
	rig := openDB(t, "rigel", path+"?"+testDevice)
	ctx := context.Background()
	c, err := rig.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range []string{
		"CREATE TEMP TABLE tmp AS SELECT 41 AS x",
		"SET VARIABLE bump = 1",
		"CREATE SCHEMA other",
		"CREATE TABLE other.g AS SELECT 'o' AS grp, 'p' AS label, 5 AS w",
		"USE other",
	} {
		if _, err := c.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if n := count(t, c, "SELECT (x + getvariable('bump'))::BIGINT FROM tmp"); n != 42 {
		t.Fatalf("temp table and variable: got %d", n)
	}
	// After USE, g is other.g on this connection only.
	if n := count(t, c, "SELECT sum(w)::BIGINT FROM g"); n != 5 {
		t.Fatalf("after USE: got %d, want 5", n)
	}
	if n := count(t, rig, "SELECT sum(w)::BIGINT FROM main.g"); n != 60 {
		t.Fatalf("main.g: got %d, want 60", n)
	}
}

// QueryArrowConn inside a transaction answers from the transaction.
func TestQueryArrowConnInTransaction(t *testing.T) {
	path := newDB(t)
	rig := openDB(t, "rigel", path+"?"+testDevice)
	ctx := context.Background()
	c, err := rig.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, s := range []string{"BEGIN", "INSERT INTO g VALUES ('t', 'in tx', 5)"} {
		if _, err := c.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	rr, err := QueryArrowConn(ctx, c, "SELECT sum(w)::BIGINT AS s FROM g")
	if err != nil {
		t.Fatal(err)
	}
	if !rr.Next() || rr.RecordBatch().Column(0).ValueStr(0) != "65" {
		t.Fatalf("inside the transaction: %v", rr.RecordBatch())
	}
	rr.Release()
	if _, err := c.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	rr, err = QueryArrowConn(ctx, c, "SELECT sum(w)::BIGINT AS s FROM g")
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if !rr.Next() || rr.RecordBatch().Column(0).ValueStr(0) != "60" {
		t.Fatalf("after the rollback: %v", rr.RecordBatch())
	}
	if st, ok := rr.(*duckdbbridge.Stream); !ok || st.Where != testWhere() {
		t.Fatalf("after the transaction the query did not run on the device: %T", rr)
	}
}

package duckarrow

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// withConn opens an in-memory DuckDB and hands fn the Arrow interface
// over its duckdb-go connection (inside conn.Raw: fn must not use the
// sql.Conn, which Raw holds).
func withConn(t *testing.T, fn func(a *Arrow)) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Raw(func(dc any) error {
		dconn, ok := dc.(*duckdb.Conn)
		if !ok {
			t.Fatalf("driver connection %T", dc)
		}
		a, err := New(dconn)
		if err != nil {
			return err
		}
		fn(a)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A result of every kind of column rigel reads, nulls in each, over
// several of DuckDB's chunks, goes to Arrow and back into DuckDB as a
// view; DuckDB finds the view equal to the query, row for row.
func TestRoundTrip(t *testing.T) {
	const query = `SELECT i::INTEGER AS i, i::BIGINT * 1000000007 AS b, (i / 7)::DOUBLE AS f,
		(i * 1.25)::DECIMAL(15,2) AS d, (i * 3)::HUGEINT AS h, 'v' || (i % 13) AS s,
		DATE '1995-01-01' + (i % 900)::INTEGER AS dt, TIMESTAMP '2000-01-01' + to_seconds(i) AS ts,
		i % 2 = 0 AS bo, (i * 1.5)::DECIMAL(30,3) AS w
		FROM range(5000) r(i)`
	ctx := context.Background()
	withConn(t, func(a *Arrow) {
		var nullable []string
		for _, col := range []string{"i", "b", "f", "d", "h", "s", "dt", "ts", "bo", "w"} {
			nullable = append(nullable, "CASE WHEN i % 11 = 3 THEN NULL ELSE "+col+" END AS "+col)
		}
		q := "SELECT " + strings.Join(nullable, ", ") + " FROM (" + query + ")"
		rr, err := a.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		var rows, batches int64
		for rr.Next() {
			rows += rr.RecordBatch().NumRows()
			batches++
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		if rows != 5000 || batches < 2 {
			t.Fatalf("%d rows in %d batches, want 5000 in several", rows, batches)
		}
		if got := rr.Schema().NumFields(); got != 10 {
			t.Fatalf("%d fields", got)
		}
		view, err := a.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		release, err := a.RegisterView(view, "back")
		if err != nil {
			t.Fatal(err)
		}
		defer release()
		// Through the same connection (the view is its own). A stream is
		// read once: the view is copied, then compared both ways.
		done, err := a.QueryContext(ctx, "CREATE TEMP TABLE copied AS SELECT * FROM back")
		if err != nil {
			t.Fatal(err)
		}
		done.Release()
		diff, err := a.QueryContext(ctx, "SELECT (SELECT count(*) FROM copied), count(*) FROM ((SELECT * FROM copied EXCEPT ALL ("+q+")) UNION ALL (("+q+") EXCEPT ALL SELECT * FROM copied))")
		if err != nil {
			t.Fatal(err)
		}
		defer diff.Release()
		if !diff.Next() {
			t.Fatal(diff.Err())
		}
		if n := diff.RecordBatch().Column(0).(*array.Int64).Value(0); n != 5000 {
			t.Fatalf("the view has %d rows, want 5000", n)
		}
		differ := diff.RecordBatch().Column(1).(*array.Int64).Value(0)
		if differ != 0 {
			t.Fatalf("%d rows of the Arrow round trip differ from DuckDB's", differ)
		}
	})
}

// DuckDB's errors come back as they are; parameters bind; a cancelled
// context stops the reader with its error.
func TestErrorsArgsAndCancel(t *testing.T) {
	withConn(t, func(a *Arrow) {
		if _, err := a.QueryContext(context.Background(), "SELECT nope FROM range(3)"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("a wrong query: %v", err)
		}
		rr, err := a.QueryContext(context.Background(), "SELECT range + ? AS x FROM range(3)", int64(40))
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for rr.Next() {
			got = append(got, rr.RecordBatch().Column(0).(*array.Int64).Int64Values()...)
		}
		rr.Release()
		if fmt.Sprint(got) != "[40 41 42]" || rr.Err() != nil {
			t.Errorf("bound query: %v, %v", got, rr.Err())
		}
		ctx, cancel := context.WithCancel(context.Background())
		rr, err = a.QueryContext(ctx, "SELECT range FROM range(100000)")
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		if !rr.Next() {
			t.Fatal(rr.Err())
		}
		cancel()
		if rr.Next() || !errors.Is(rr.Err(), context.Canceled) {
			t.Errorf("after cancel: %v", rr.Err())
		}
	})
}

// The fields of duckdb-go this package reads are there, of the types it
// reads them as; anything else is refused with an error that says so.
func TestDuckDBGoInternals(t *testing.T) {
	withConn(t, func(a *Arrow) {
		if p, err := connHandle(a.conn); err != nil || p == nil {
			t.Errorf("connection handle: %v, %v", p, err)
		}
		rows, err := a.conn.QueryContext(context.Background(), "SELECT 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		if res, err := resultOf(rows); err != nil || res == nil {
			t.Errorf("result handle: %v, %v", res, err)
		}
	})
	type lookalike struct{ res int }
	if _, err := resultOf(nil); err == nil {
		t.Error("nil rows accepted")
	}
	if _, err := field[int](&lookalike{}, "res"); err != nil {
		t.Errorf("a field of the right type refused: %v", err)
	}
	if _, err := field[string](&lookalike{}, "res"); err == nil || !strings.Contains(err.Error(), "go.mod") {
		t.Errorf("a field of another type: %v", err)
	}
}

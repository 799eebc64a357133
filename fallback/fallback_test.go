package fallback

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, q := range []string{
		`CREATE TABLE t (a INTEGER NOT NULL, b DECIMAL(15,2), s VARCHAR, d DATE, f DOUBLE, h HUGEINT)`,
		`INSERT INTO t SELECT i,
			CASE WHEN i % 5 = 0 THEN NULL ELSE i * 1.25 - 50 END,
			CASE WHEN i % 7 = 0 THEN NULL ELSE 'x' || (i % 9) END,
			CASE WHEN i % 6 = 0 THEN NULL ELSE DATE '1995-01-01' + CAST(i AS INTEGER) END,
			CASE WHEN i % 8 = 0 THEN NULL ELSE i / 3.0 END,
			i * 1000000000000000
			FROM range(5000) r(i)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// cell normalizes Arrow and database/sql values to comparable strings.
func arrowCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch x := a.(type) {
	case *array.Int32:
		return fmt.Sprint(x.Value(i))
	case *array.Int64:
		return fmt.Sprint(x.Value(i))
	case *array.String:
		return x.Value(i)
	case *array.Float64:
		return fmt.Sprint(x.Value(i))
	case *array.Date32:
		return x.Value(i).ToTime().Format("2006-01-02")
	case *array.Decimal128:
		return fmt.Sprintf("%se-%d", x.Value(i).BigInt(), x.DataType().(*arrow.Decimal128Type).Scale)
	}
	return "unexpected " + a.DataType().String()
}

func sqlCell(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case duckdb.Decimal:
		return fmt.Sprintf("%se-%d", x.Value, x.Scale)
	case *big.Int:
		return x.String() + "e-0"
	case time.Time:
		return x.Format("2006-01-02")
	}
	return fmt.Sprint(v)
}

func TestRunSQLMatchesDatabaseSQL(t *testing.T) {
	db := openDB(t)
	q := `SELECT a, b, s, d, f, h, b * 2 AS b2, sum(b) OVER () AS total FROM t ORDER BY a`
	rr, err := RunSQL(context.Background(), db, q)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var got []string
	batches := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		batches++
		for i := 0; i < int(rec.NumRows()); i++ {
			cells := make([]string, rec.NumCols())
			for c := range cells {
				cells[c] = arrowCell(rec.Column(c), i)
			}
			got = append(got, strings.Join(cells, "|"))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if rr.Schema().Field(6).Name != "b2" {
		t.Errorf("schema %s", rr.Schema())
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var want []string
	for rows.Next() {
		vals := make([]any, 8)
		ptrs := make([]any, 8)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = sqlCell(v)
		}
		want = append(want, strings.Join(cells, "|"))
	}
	if len(got) != len(want) || len(got) != 5000 {
		t.Fatalf("%d rows, database/sql %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d: %s, database/sql %s", i, got[i], want[i])
		}
	}
	if batches < 2 {
		t.Errorf("expected several batches for 5000 rows, got %d", batches)
	}
}

func TestRunSQLErrorUnchanged(t *testing.T) {
	db := openDB(t)
	for _, q := range []string{"SELECT nope FROM t", "SELEC 1", "SELECT CAST('x' AS INTEGER)"} {
		_, err := RunSQL(context.Background(), db, q)
		_, want := db.Query(q)
		if q == "SELECT CAST('x' AS INTEGER)" && err == nil {
			continue // a runtime error may surface from the reader instead
		}
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: %v, database/sql %v", q, err, want)
		}
	}
}

// TestRunSQLReleasesConnection: readers return their connection, so many
// queries in a row do not exhaust a pool of one.
func TestRunSQLReleasesConnection(t *testing.T) {
	db := openDB(t)
	db.SetMaxOpenConns(1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := 0; i < 20; i++ {
		rr, err := RunSQL(ctx, db, "SELECT count(*) FROM t")
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
		}
		rr.Release()
	}
	if _, err := RunSQL(ctx, db, "SELEC"); err == nil {
		t.Fatal("want an error")
	}
	rr, err := RunSQL(ctx, db, "SELECT 1")
	if err != nil {
		t.Fatalf("connection leaked after an error: %v", err)
	}
	rr.Release()
}

package duckdbbridge

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"github.com/rigel-db/rigel/internal/sqltext"
)

// writeParquet writes the rows of a DuckDB query to a Parquet file.
func writeParquet(t *testing.T, path, query string) {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("COPY (" + query + ") TO " + sqltext.String(path) + " (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
}

// sameAsDuckDB runs query on the engine's device and on DuckDB and wants
// the device to have run it and the answers to be equal.
func sameAsDuckDB(t *testing.T, e *Engine, query string) {
	t.Helper()
	ctx := context.Background()
	got, err := e.Query(ctx, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer got.Release()
	if got.Where != OnHost {
		t.Fatalf("%s ran on %s (%s), want the host device", query, got.Where, got.Reason)
	}
	want, err := e.RunOnDuckDB(ctx, query)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	if err := arrowfmt.Compare(got.Record, want.Record, true); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func TestParquetCatalog(t *testing.T) {
	dir := t.TempDir()
	writeParquet(t, filepath.Join(dir, "nums.parquet"), "SELECT range AS a, range % 7 AS g FROM range(1000)")
	// A partitioned dataset: one table from a folder of files at two depths.
	writeParquet(t, filepath.Join(dir, "parts", "p1.parquet"), "SELECT range AS x FROM range(10)")
	writeParquet(t, filepath.Join(dir, "parts", "y=2", "p2.parquet"), "SELECT range + 10 AS x FROM range(5)")
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db, id, err := OpenCatalog(ctx, CatalogSpec{Parquet: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := NewEngine(db, id, host.New(), "")
	sameAsDuckDB(t, e, "SELECT g, sum(a) AS s, count(*) AS n FROM nums WHERE a > 10 GROUP BY g ORDER BY g")
	sameAsDuckDB(t, e, "SELECT sum(x) AS s, count(*) AS n FROM parts")
	var n int
	if err := db.QueryRow("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'empty'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("a folder without Parquet files became a table (%d, %v)", n, err)
	}
}

func TestCatalogErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, c := range []struct {
		spec CatalogSpec
		want string
	}{
		{CatalogSpec{DB: filepath.Join(dir, "missing.duckdb")}, "does not exist"},
		{CatalogSpec{DB: dir}, "is a folder"},
		{CatalogSpec{Parquet: []string{filepath.Join(dir, "nope")}}, "does not exist"},
		{CatalogSpec{Parquet: []string{dir}}, "holds no .parquet files"},
	} {
		db, _, err := OpenCatalog(ctx, c.spec)
		if err == nil {
			db.Close()
			t.Fatalf("%+v: opened, want an error", c.spec)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%+v: error %q does not say %q", c.spec, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.duckdb")); err == nil {
		t.Fatal("opening a missing database file created it")
	}
}

// A DuckDB file and a Parquet folder together: the file's tables keep
// their bare names (views over the attached file).
func TestFileAndParquetCatalog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.duckdb")
	fdb, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fdb.Exec("CREATE TABLE facts AS SELECT range AS k, range * 2 AS v FROM range(100)"); err != nil {
		t.Fatal(err)
	}
	fdb.Close()
	pq := filepath.Join(dir, "pq")
	writeParquet(t, filepath.Join(pq, "dims.parquet"), "SELECT range AS k FROM range(50)")
	ctx := context.Background()
	db, id, err := OpenCatalog(ctx, CatalogSpec{DB: path, Parquet: []string{pq}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := NewEngine(db, id, host.New(), "")
	sameAsDuckDB(t, e, "SELECT sum(v) AS s FROM facts WHERE k < 30")
	sameAsDuckDB(t, e, "SELECT count(*) AS n FROM dims")
}

func int64Record(t *testing.T, name string, vals []int64) arrow.RecordBatch {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(vals, nil)
	a := b.NewArray()
	defer a.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{a}, int64(len(vals)))
}

func TestRegisterArrowReplacesAndInvalidates(t *testing.T) {
	ctx := context.Background()
	db, id, err := OpenCatalog(ctx, CatalogSpec{Writable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := NewEngine(db, id, host.New(), "")
	register := func(vals []int64) {
		rec := int64Record(t, "x", vals)
		defer rec.Release()
		rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatal(err)
		}
		defer rr.Release()
		if err := e.RegisterArrow(ctx, "reg", rr); err != nil {
			t.Fatal(err)
		}
	}
	const q = "SELECT sum(x) AS s, count(*) AS n FROM reg"
	register([]int64{1, 2, 3})
	sameAsDuckDB(t, e, q)
	register([]int64{10, 20, 30, 40})
	res, err := e.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	if got := arrowfmt.Rows(res.Record); len(got) != 1 || strings.Join(got[0], "|") != "100|4" {
		t.Fatalf("after re-registering, the device answered %v, want [100|4] (stale cached columns?)", got)
	}
	if err := e.RegisterArrow(ctx, "", nil); err == nil {
		t.Fatal("registering a table without a name worked")
	}
}

// A device result of more than StreamBatchRows rows streams in several
// batches with the schema DuckDB gives for the query.
func TestQueryStreamBatches(t *testing.T) {
	ctx := context.Background()
	db, id, err := OpenCatalog(ctx, CatalogSpec{Writable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE big AS SELECT range AS a FROM range(150000)"); err != nil {
		t.Fatal(err)
	}
	e := NewEngine(db, id, host.New(), "")
	const q = "SELECT a, a * 2 AS b FROM big WHERE a < 75000"
	s, err := e.QueryStream(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	if s.Where != OnHost {
		t.Fatalf("ran on %s (%s)", s.Where, s.Reason)
	}
	schema, err := e.ResultSchema(ctx, q+";")
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range schema.Fields() {
		if g := s.Schema().Field(i); !arrow.TypeEqual(g.Type, f.Type) || g.Name != f.Name || g.Nullable != f.Nullable {
			t.Fatalf("stream field %d is %v, DuckDB says %v", i, g, f)
		}
	}
	batches, rows := 0, int64(0)
	for s.Next() {
		batches++
		rows += s.RecordBatch().NumRows()
	}
	if batches != 2 || rows != 75000 {
		t.Fatalf("%d batches, %d rows; want 2 and 75000", batches, rows)
	}
}

// count(*) over a DuckDB file comes from the file's statistics, a plan
// shape the producer does not read yet: the query falls back and answers.
func TestCountStarOverFileFallsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.duckdb")
	fdb, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fdb.Exec("CREATE TABLE t AS SELECT range AS a FROM range(100)"); err != nil {
		t.Fatal(err)
	}
	fdb.Close()
	ctx := context.Background()
	db, id, err := OpenCatalog(ctx, CatalogSpec{DB: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := NewEngine(db, id, host.New(), "")
	res, err := e.Query(ctx, "SELECT count(*) AS n FROM t")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	if got := arrowfmt.Rows(res.Record); len(got) != 1 || got[0][0] != "100" {
		t.Fatalf("count(*) = %v (ran on %s: %s)", got, res.Where, res.Reason)
	}
}

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
)

// storeTestDB makes a database file with a table of the column kinds
// Tables keeps (a decimal, a date, an integer, strings with nulls) and a
// view.
func storeTestDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "store.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE t AS SELECT (i * 1.25)::DECIMAL(15,2) AS d, DATE '1995-01-01' + (i % 900)::INTEGER AS day, i::INTEGER AS n,
			CASE WHEN i % 9 = 4 THEN NULL ELSE ['MAIL', 'SHIP', 'AIR'][1 + i % 3] END AS mode,
			CASE WHEN i % 11 = 2 THEN NULL ELSE 'note number ' || i END AS note FROM range(20000) r(i)`,
		`CREATE VIEW v AS SELECT * FROM t`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

type readFn func(tb *Tables, table, column string) (arrow.Array, error)

var readPlain readFn = func(tb *Tables, table, column string) (arrow.Array, error) {
	return tb.ReadColumn(context.Background(), table, column)
}

var readDict readFn = func(tb *Tables, table, column string) (arrow.Array, error) {
	return tb.ReadDictionaryColumn(context.Background(), table, column)
}

// read opens the database as a new process would (its own handle and
// Tables), reads the columns, flushes the store's writes and closes it.
func read(t *testing.T, path string, cols map[string]readFn, table string) (map[string]arrow.Array, Tables) {
	t.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tb := NewTables(db, path)
	out := map[string]arrow.Array{}
	for c, fn := range cols {
		arr, err := fn(tb, table, c)
		if err != nil {
			t.Fatalf("%s.%s: %v", table, c, err)
		}
		out[c] = arr
	}
	tb.Flush(nil)
	return out, Tables{stores: columnStores{stores: tb.stores.stores}}
}

// A second process on the unchanged database reads the columns the first
// read from the column files (hits, no DuckDB scan), equal to DuckDB's;
// once the table changes, neither reads the old files: the column is the
// new one. Views are read, never kept.
func TestColumnStoreKeepsWhatWasRead(t *testing.T) {
	path := storeTestDB(t)
	cols := map[string]readFn{"d": readPlain, "day": readPlain, "n": readPlain, "mode": readDict, "note": readPlain}
	first, tb1 := read(t, path, cols, "t")
	if st := tb1.StoreStats(); st.Hits != 0 || st.Written != 5 {
		t.Fatalf("first process: %+v, want 5 columns written and no hit", st)
	}
	second, tb2 := read(t, path, cols, "t")
	if st := tb2.StoreStats(); st.Hits != 5 || st.Misses != 0 {
		t.Fatalf("second process: %+v, want 5 hits", st)
	}
	for c := range cols {
		if !arrow.TypeEqual(first[c].DataType(), second[c].DataType()) || !array.Equal(first[c], second[c]) {
			t.Fatalf("%s: the stored column differs from DuckDB's: %s / %s", c, first[c].DataType(), second[c].DataType())
		}
		first[c].Release()
		second[c].Release()
	}
	if _, err := os.Stat(path + ".rigel-columns"); err != nil {
		t.Fatalf("no store next to the database: %v", err)
	}

	// The table changes: the next read is DuckDB's new column.
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE t SET n = -n WHERE n % 2 = 0`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	third, tb3 := read(t, path, map[string]readFn{"n": readPlain}, "t")
	if st := tb3.StoreStats(); st.Hits != 0 {
		t.Fatalf("after an update: %+v, want no hit", st)
	}
	n := third["n"].(*array.Int32)
	if n.Value(2) != -2 || n.Value(3) != 3 {
		t.Fatalf("after an update, n[2], n[3] = %d, %d; want -2, 3", n.Value(2), n.Value(3))
	}
	third["n"].Release()

	views, tbv := read(t, path, map[string]readFn{"n": readPlain}, "v")
	views["n"].Release()
	if st := tbv.StoreStats(); st.Written != 0 || st.Hits != 0 {
		t.Fatalf("a view: %+v, want nothing kept", st)
	}
}

// RIGEL_COLUMN_STORE=off keeps nothing; a folder keeps the stores there;
// a RIGEL_COLUMN_STORE_MAX that is not a size is an error that names it.
func TestColumnStoreSetting(t *testing.T) {
	path := storeTestDB(t)
	t.Setenv("RIGEL_COLUMN_STORE_MAX", "lots")
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewTables(db, path).ReadColumn(context.Background(), "t", "d"); err == nil || !strings.Contains(err.Error(), "RIGEL_COLUMN_STORE_MAX") {
		t.Errorf("a bad RIGEL_COLUMN_STORE_MAX: %v", err)
	}
	db.Close()
	t.Setenv("RIGEL_COLUMN_STORE_MAX", "")
	t.Setenv("RIGEL_COLUMN_STORE", "off")
	cols, tb := read(t, path, map[string]readFn{"d": readPlain}, "t")
	cols["d"].Release()
	if st := tb.StoreStats(); st.Written != 0 {
		t.Fatalf("off: %+v", st)
	}
	dir := t.TempDir()
	t.Setenv("RIGEL_COLUMN_STORE", dir)
	cols, _ = read(t, path, map[string]readFn{"d": readPlain}, "t")
	cols["d"].Release()
	if _, err := os.Stat(path + ".rigel-columns"); !os.IsNotExist(err) {
		t.Fatalf("a store next to the database: %v", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("the folder holds %v (%v), want one store", entries, err)
	}
}

// A layout decision kept by one process is found by the next on the
// unchanged database, and not once the database changed.
func TestColumnStoreKeepsLayouts(t *testing.T) {
	path := storeTestDB(t)
	ctx := context.Background()
	open := func() (*sql.DB, *Tables) {
		db, err := sql.Open("duckdb", path+"?access_mode=read_only")
		if err != nil {
			t.Fatal(err)
		}
		return db, NewTables(db, path)
	}
	db, tb := open()
	if _, _, ok := tb.KeptLayout(ctx, "t", "note"); ok {
		t.Fatal("a decision before any was kept")
	}
	tb.KeepLayout(ctx, "t", "note", true, "arrow strings (9 of 10 sampled values distinct)")
	db.Close()
	db, tb = open()
	arrowLayout, why, ok := tb.KeptLayout(ctx, "T", "NOTE")
	if !ok || !arrowLayout || why != "arrow strings (9 of 10 sampled values distinct)" {
		t.Fatalf("kept: %v %q %v", arrowLayout, why, ok)
	}
	db.Close()
	w, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`INSERT INTO t SELECT * FROM t LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	db, tb = open()
	defer db.Close()
	if _, _, ok := tb.KeptLayout(ctx, "t", "note"); ok {
		t.Fatal("a decision kept for the database before it changed")
	}
}

// readSegmentsOf reads a column in segments of at most per rows and gives
// it back whole, failing when a segment of a table is longer.
func readSegmentsOf(t *testing.T, per int64, dict bool) readFn {
	return func(tb *Tables, table, column string) (arrow.Array, error) {
		var parts []arrow.Array
		err := tb.ReadColumnSegments(context.Background(), table, column, dict, per, func(a arrow.Array) error {
			if table == "t" && int64(a.Len()) > per {
				t.Errorf("%s.%s: a segment of %d rows, more than %d", table, column, a.Len(), per)
			}
			parts = append(parts, a)
			return nil
		})
		if err != nil {
			return nil, err
		}
		defer func() {
			for _, p := range parts {
				p.Release()
			}
		}()
		return array.Concatenate(parts, memory.DefaultAllocator)
	}
}

// A column read in segments is the column read whole, in either form; the
// column store keeps it as it goes, and a second process reads it from
// there, in segments again (also of another size); a view, which DuckDB
// cannot read by rowid, comes whole, as one segment.
func TestColumnStoreKeepsSegments(t *testing.T) {
	path := storeTestDB(t)
	whole := map[string]readFn{"d": readPlain, "day": readPlain, "n": readPlain, "mode": readDict}
	t.Setenv("RIGEL_COLUMN_STORE", "off")
	want, _ := read(t, path, whole, "t")
	t.Setenv("RIGEL_COLUMN_STORE", "")
	segs := func(per int64) map[string]readFn {
		return map[string]readFn{"d": readSegmentsOf(t, per, false), "day": readSegmentsOf(t, per, false), "n": readSegmentsOf(t, per, false), "mode": readSegmentsOf(t, per, true)}
	}
	first, tb1 := read(t, path, segs(3000), "t")
	if st := tb1.StoreStats(); st.Hits != 0 || st.Written != 4 {
		t.Fatalf("first process: %+v, want 4 columns written and no hit", st)
	}
	second, tb2 := read(t, path, segs(7000), "t")
	if st := tb2.StoreStats(); st.Hits != 4 || st.Misses != 0 {
		t.Fatalf("second process: %+v, want 4 hits", st)
	}
	for c := range whole {
		for i, got := range []arrow.Array{first[c], second[c]} {
			if !arrow.TypeEqual(got.DataType(), want[c].DataType()) || !array.Equal(got, want[c]) {
				t.Fatalf("%s, process %d: the column read in segments differs from the whole (%s, %s)", c, i+1, got.DataType(), want[c].DataType())
			}
			got.Release()
		}
		want[c].Release()
	}
	views, tbv := read(t, path, map[string]readFn{"n": readSegmentsOf(t, 3000, false)}, "v")
	if views["n"].Len() != 20000 {
		t.Fatalf("the view's column: %d rows", views["n"].Len())
	}
	views["n"].Release()
	if st := tbv.StoreStats(); st.Written != 0 {
		t.Fatalf("a view: %+v, want nothing kept", st)
	}
}

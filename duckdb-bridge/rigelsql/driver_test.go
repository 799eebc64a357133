package rigelsql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"math/big"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/fallback"
)

// typesDDL makes a table with a column of every type the driver converts,
// a row of NULLs, and a small table to join with.
const typesDDL = `
CREATE TABLE t(id INTEGER, grp VARCHAR, b BOOLEAN, i8 TINYINT, i16 SMALLINT, i32 INTEGER, i64 BIGINT,
  u8 UTINYINT, u16 USMALLINT, u32 UINTEGER, u64 UBIGINT, f FLOAT, d DOUBLE,
  dec4 DECIMAL(4,1), dec18 DECIMAL(18,3), dec38 DECIMAL(38,10), h HUGEINT, uh UHUGEINT,
  s VARCHAR, bl BLOB, dt DATE, tm TIME, ts TIMESTAMP, tsz TIMESTAMPTZ, tss TIMESTAMP_S,
  tsms TIMESTAMP_MS, tsns TIMESTAMP_NS, iv INTERVAL);
INSERT INTO t VALUES
 (1, 'a', true, -8, -16, -32, -64, 8, 16, 32, 18446744073709551615, 1.5, 2.25,
  -123.4, 123456789012345.678, 1234567890123456789012345678.0123456789, -170141183460469231731687303715884105727, 340282366920938463463374607431768211455,
  'héllo', '\x00\x01ab'::BLOB, DATE '2024-02-29', TIME '13:14:15.123456', TIMESTAMP '2024-01-02 03:04:05.678901',
  TIMESTAMPTZ '2024-01-02 03:04:05.678901+02', TIMESTAMP_S '1999-12-31 23:59:59', TIMESTAMP_MS '2001-02-03 04:05:06.789',
  TIMESTAMP_NS '2020-01-01 00:00:00.123456789', INTERVAL '1 year 2 days 3 seconds'),
 (2, 'b', false, 127, 32767, 2147483647, 9223372036854775807, 255, 65535, 4294967295, 0, -0.0, 1e300,
  999.9, -0.001, -1.0000000001, 0, 0,
  '', ''::BLOB, DATE '1970-01-01', TIME '00:00:00', TIMESTAMP '1970-01-01 00:00:00', TIMESTAMPTZ '1970-01-01 00:00:00+00',
  TIMESTAMP_S '1970-01-01 00:00:00', TIMESTAMP_MS '1970-01-01 00:00:00', TIMESTAMP_NS '1970-01-01 00:00:00', INTERVAL '-5 months'),
 (3, 'a', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (4, 'b', true, -128, -32768, -2147483648, -9223372036854775808, 0, 0, 0, 1, 3.4e38, -1e-300,
  0.0, 999999999999999.999, 0, 1, 1,
  'zz', 'x'::BLOB, DATE '0001-01-01', TIME '23:59:59.999999', TIMESTAMP '1900-06-15 12:00:00', TIMESTAMPTZ '2262-04-11 23:47:16+00',
  TIMESTAMP_S '2100-01-01 00:00:00', TIMESTAMP_MS '1960-01-01 00:00:00.001', TIMESTAMP_NS '1960-01-01 00:00:00.000000001', INTERVAL '0 seconds');
-- The types rigel's plan producer takes (it refuses a table with others).
CREATE TABLE v AS SELECT id, grp, b, i8, i16, i32, i64, f, d, dec4, dec18, dec38, h, s, dt FROM t;
CREATE TABLE g(grp VARCHAR, label VARCHAR, w INTEGER);
INSERT INTO g VALUES ('a', 'first', 10), ('b', 'second', 20), ('c', 'none', 30);
`

// newDB writes a DuckDB file with duckdb-go and returns its path.
func newDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(typesDDL); err != nil {
		t.Fatal(err)
	}
	return path
}

func openDB(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// rowsOf runs a query and returns its rows as duckdb-go's Go values (Scan
// into *any keeps each value's own type), with the column type names.
func rowsOf(t *testing.T, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string) ([][]any, []string) {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ct := range cts {
		types = append(types, ct.Name()+" "+ct.DatabaseTypeName()+" "+ct.ScanType().String())
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cts))
		ptrs := make([]any, len(cts))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out, types
}

// sameValue is reflect.DeepEqual, except that big integers (alone or in a
// Decimal) compare by value: big.Int's representation of a number is not
// unique.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	case duckdb.Decimal:
		y, ok := b.(duckdb.Decimal)
		return ok && x.Width == y.Width && x.Scale == y.Scale && x.Value.Cmp(y.Value) == 0
	}
	return reflect.DeepEqual(a, b)
}

func sameRows(t *testing.T, query string, got, want [][]any, gotTypes, wantTypes []string) {
	t.Helper()
	if !reflect.DeepEqual(gotTypes, wantTypes) {
		t.Errorf("%s: column types\n got %v\nwant %v", query, gotTypes, wantTypes)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", query, len(got), len(want))
	}
	for i := range want {
		for j := range want[i] {
			if !sameValue(got[i][j], want[i][j]) {
				t.Errorf("%s: row %d column %d: got %#v (%T), want %#v (%T)", query, i, j, got[i][j], got[i][j], want[i][j], want[i][j])
			}
		}
	}
}

// Queries the host device runs (the test checks that it did).
var deviceQueries = []string{
	"SELECT * FROM v ORDER BY id",
	"SELECT id, i32, i64, d, dec18, s, dt, b FROM v WHERE id <> 2 ORDER BY id",
	"SELECT grp, count(*) AS n, sum(i64) AS s64, sum(dec18) AS sdec, max(i8) AS maxi8, avg(d) AS ad, sum(i32) AS s32 FROM v GROUP BY grp ORDER BY grp",
	"SELECT v.id, g.label, g.w * 2 AS w2 FROM v JOIN g ON v.grp = g.grp ORDER BY v.id",
	"SELECT i16::INTEGER + 1 AS x, i8, f, dec4, dec38, dec4 * 2 AS dd, h FROM v ORDER BY id",
	"SELECT count(*) FROM v WHERE s IS NULL",
}

// Queries over every type: the device may not run them; then DuckDB does.
var allTypeQueries = []string{
	"SELECT * FROM t ORDER BY id",
	"SELECT h, u64, tm, ts, tsz, tss, tsms, tsns, iv, bl FROM t ORDER BY id",
}

func TestSameRowsAndTypesAsDuckDB(t *testing.T) {
	path := newDB(t)
	duck := openDB(t, "duckdb", path)
	rig := openDB(t, "rigel", path+"?"+testDevice)
	rc, err := Of(rig)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range deviceQueries {
		before := rc.Stats().Cache
		got, gt := rowsOf(t, rig, q)
		after := rc.Stats().Cache
		want, wt := rowsOf(t, duck, q)
		sameRows(t, q, got, want, gt, wt)
		if after.Hits+after.Misses == before.Hits+before.Misses {
			t.Errorf("%s: did not run on the device (no table column was scanned); stats %+v", q, rc.Stats())
		}
	}
	for _, q := range allTypeQueries {
		got, gt := rowsOf(t, rig, q)
		want, wt := rowsOf(t, duck, q)
		sameRows(t, q, got, want, gt, wt)
	}
	if s := rc.Stats(); s.DeviceErrors != 0 {
		t.Errorf("the device failed on %d queries: %v", s.DeviceErrors, s.LastDeviceError)
	}
}

// The Arrow-to-Go conversion over DuckDB's own Arrow output of every type
// (the path a query takes when the device gives up at run time).
func TestArrowConversionMatchesDuckDB(t *testing.T) {
	path := newDB(t)
	duck := openDB(t, "duckdb", path)
	rig := openDB(t, "rigel", path+"?"+testDevice)
	conn, err := rig.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"SELECT * EXCLUDE (uh) FROM t ORDER BY id", allTypeQueries[1]} {
		var rows *arrowRows
		err := conn.Raw(func(dc any) error {
			c := dc.(*Conn)
			info := c.classify(q)
			if info.cols == nil {
				t.Fatalf("%s: the driver does not convert its column types", q)
			}
			rr, err := fallback.RunSQL(context.Background(), c.c.eng.DB(), q)
			if err != nil {
				return err
			}
			rows = newArrowRows(&duckdbbridge.Stream{RecordReader: rr}, info.cols)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var got [][]any
		for {
			dest := make([]driver.Value, len(rows.cols))
			if err := rows.Next(dest); err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("%s: %v", q, err)
				}
				break
			}
			row := make([]any, len(dest))
			for i, v := range dest {
				row[i] = v
			}
			got = append(got, row)
		}
		rows.Close()
		want, _ := rowsOf(t, duck, q)
		sameRows(t, q, got, want, nil, nil)
	}
}

func TestSecondRunReadsNothingFromHost(t *testing.T) {
	path := newDB(t)
	rig := openDB(t, "rigel", path+"?"+testDevice)
	rc, _ := Of(rig)
	q := deviceQueries[1]
	rowsOf(t, rig, q)
	first := rc.Stats().Cache
	if first.BytesFromHost == 0 {
		t.Fatalf("the first run read nothing from the host: %+v", first)
	}
	rowsOf(t, rig, q)
	second := rc.Stats().Cache
	if second.BytesFromHost != first.BytesFromHost || second.Hits <= first.Hits {
		t.Fatalf("the second run read %d bytes from the host (hits %d -> %d)", second.BytesFromHost-first.BytesFromHost, first.Hits, second.Hits)
	}
}

// count returns a one-number query's answer.
func count(t *testing.T, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, query string) int64 {
	t.Helper()
	var n int64
	if err := q.QueryRowContext(context.Background(), query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestWritesInvalidateCachedColumns(t *testing.T) {
	path := newDB(t)
	rig := openDB(t, "rigel", path+"?"+testDevice)
	ctx := context.Background()
	a, err := rig.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := rig.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sumQ := "SELECT (count(w) * 1000 + sum(w))::BIGINT FROM g"
	steps := []struct {
		write string
		want  int64
	}{
		{"", 3060},
		{"INSERT INTO g VALUES ('d', 'fourth', 40)", 4100},
		{"UPDATE g SET w = w + 1 WHERE grp = 'a'", 4101},
		{"DELETE FROM g WHERE grp = 'b'", 3081},
		{"ALTER TABLE g RENAME COLUMN w TO w_old", -1}, // the query now fails (DuckDB's error)
		{"ALTER TABLE g RENAME COLUMN w_old TO w", 3081},
		{"DROP TABLE g", -1},
		{"CREATE TABLE g AS SELECT 'x' AS grp, 'y' AS label, 7 AS w", 1007},
	}
	for i, s := range steps {
		if s.write != "" {
			if _, err := a.ExecContext(ctx, s.write); err != nil {
				t.Fatalf("%s: %v", s.write, err)
			}
		}
		// Both connections: the one that wrote and another one.
		for _, c := range []*sql.Conn{a, b} {
			if s.want < 0 {
				var n int64
				if err := c.QueryRowContext(ctx, sumQ).Scan(&n); err == nil {
					t.Fatalf("step %d (%s): the query still answers %d", i, s.write, n)
				}
				continue
			}
			if got := count(t, c, sumQ); got != s.want {
				t.Fatalf("step %d (%s): got %d, want %d", i, s.write, got, s.want)
			}
		}
	}
	rc, _ := Of(rig)
	if st := rc.Stats().Cache; st.Hits == 0 || st.Invalidations == 0 {
		t.Fatalf("the query did not use the cache: %+v", st)
	}
}

// A write through another *sql.DB of the same file (duckdb-go shares the
// DuckDB instance) invalidates too; so do prepared statements and
// transactions, the latter at commit.
func TestWritesThroughStatementsTransactionsAndOtherDBs(t *testing.T) {
	path := newDB(t)
	rig := openDB(t, "rigel", path+"?"+testDevice)
	other := openDB(t, "rigel", path+"?"+testDevice)
	ctx := context.Background()
	// A query the device runs: it caches g.w.
	q := "SELECT (count(w) * 1000 + sum(w))::BIGINT FROM g"
	if n := count(t, rig, q); n != 3060 {
		t.Fatalf("got %d", n)
	}
	if _, err := other.ExecContext(ctx, "INSERT INTO g VALUES ('e', 'x', 1)"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, rig, q); n != 4061 {
		t.Fatalf("after an INSERT through another DB: got %d, want 4061", n)
	}
	st, err := rig.PrepareContext(ctx, "INSERT INTO g VALUES (?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ExecContext(ctx, "f", "y", 2); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if n := count(t, rig, q); n != 5063 {
		t.Fatalf("after a prepared INSERT: got %d, want 5063", n)
	}
	tx, err := rig.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO g VALUES ('h', 'z', 3)"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, tx, q); n != 6066 {
		t.Fatalf("inside the transaction: got %d, want 6066 (its own insert)", n)
	}
	if n := count(t, rig, q); n != 5063 {
		t.Fatalf("outside the transaction before commit: got %d, want 5063", n)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, rig, q); n != 6066 {
		t.Fatalf("after commit: got %d, want 6066", n)
	}
	// The same through SQL BEGIN/COMMIT on one connection.
	c, err := rig.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, w := range []string{"BEGIN TRANSACTION", "DELETE FROM g WHERE grp = 'h'"} {
		if _, err := c.ExecContext(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, c, q); n != 5063 {
		t.Fatalf("inside BEGIN: got %d, want 5063", n)
	}
	if n := count(t, rig, q); n != 6066 {
		t.Fatalf("another connection before COMMIT: got %d, want 6066", n)
	}
	if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if n := count(t, rig, q); n != 5063 {
		t.Fatalf("after COMMIT: got %d, want 5063", n)
	}
	// Every query after a write read g.w again: the device ran them, and
	// each write dropped the column.
	if rc, _ := Of(rig); rc.Stats().Cache.Misses < 5 || rc.Stats().Cache.Invalidations < 4 {
		t.Fatalf("the device cache was not used or not invalidated: %+v", rc.Stats().Cache)
	}
	// Arguments go to DuckDB.
	var n int64
	if err := rig.QueryRowContext(ctx, "SELECT count(*) FROM g WHERE w > ?", 2).Scan(&n); err != nil || n != 3 {
		t.Fatalf("with an argument: %d, %v", n, err)
	}
}

func TestLRUEvictionThroughDriver(t *testing.T) {
	path := newDB(t)
	// Device bytes: g.w 13, v.i64, v.d and v.dec18 33 each: 100 B holds
	// the three columns of v's query but not g.w as well.
	rig := openDB(t, "rigel", path+"?"+testDevice+"&rigel_cache_size=100B")
	rc, _ := Of(rig)
	rowsOf(t, rig, "SELECT sum(w) FROM g")
	rowsOf(t, rig, "SELECT sum(i64), sum(d), sum(dec18) FROM v")
	st := rc.Stats().Cache
	if st.Evictions == 0 || st.Bytes > st.Limit || st.Limit != 100 {
		t.Fatalf("no eviction under a 100 B cache: %+v", st)
	}
	// g.w was least recently used: it was evicted, so the next run of its
	// query reads from the host again.
	before := st.BytesFromHost
	rowsOf(t, rig, "SELECT sum(w) FROM g")
	if rc.Stats().Cache.BytesFromHost == before {
		t.Fatalf("g.w was not evicted: %+v", rc.Stats().Cache)
	}
	if err := rc.SetCacheSize(0); err != nil {
		t.Fatal(err)
	}
}

func TestErrorsAreDuckDBs(t *testing.T) {
	path := newDB(t)
	duck := openDB(t, "duckdb", path)
	rig := openDB(t, "rigel", path+"?"+testDevice)
	for _, q := range []string{
		"SELECT nope FROM t",
		"SELECT * FROM missing_table",
		"SELEC 1",
		"SELECT 1/0::INTEGER + 'x'",
		"SELECT CAST('abc' AS INTEGER)",
	} {
		_, werr := duck.Query(q)
		_, gerr := rig.Query(q)
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Errorf("%s:\n got %v\nwant %v", q, gerr, werr)
		}
	}
	for _, w := range []string{"INSERT INTO missing VALUES (1)", "CREATE TABLE g(x INT)"} {
		_, werr := duck.Exec(w)
		_, gerr := rig.Exec(w)
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Errorf("%s:\n got %v\nwant %v", w, gerr, werr)
		}
	}
}

func TestQueryArrow(t *testing.T) {
	path := newDB(t)
	rig := openDB(t, "rigel", path+"?"+testDevice)
	ctx := context.Background()
	rr, err := QueryArrow(ctx, rig, "SELECT grp, sum(w) AS s FROM g GROUP BY grp ORDER BY grp")
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if st, ok := rr.(*duckdbbridge.Stream); !ok || st.Where != testWhere() {
		t.Fatalf("not run on the host device: %T %+v", rr, rr)
	}
	var got []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, rec.Column(0).ValueStr(i)+"="+rec.Column(1).ValueStr(i))
		}
	}
	if strings.Join(got, ",") != "a=10,b=20,c=30" {
		t.Fatalf("got %v", got)
	}
	if _, err := QueryArrow(ctx, rig, "DELETE FROM g"); err == nil || !strings.Contains(err.Error(), "only queries") {
		t.Fatalf("a DELETE was taken: %v", err)
	}
	if n := count(t, rig, "SELECT count(*) FROM g"); n != 3 {
		t.Fatalf("the refused DELETE ran: %d rows left", n)
	}
}

func TestDSN(t *testing.T) {
	cfg, err := parseDSN("a.db?access_mode=READ_ONLY&rigel_device=host&threads=4&rigel_cache_size=4GB&rigel_device_memory=2GB")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.device != "host" || cfg.cacheSize != 4e9 || cfg.deviceMemory != 2e9 || !strings.HasPrefix(cfg.duckDSN, "a.db?") ||
		strings.Contains(cfg.duckDSN, "rigel") || !strings.Contains(cfg.duckDSN, "threads=4") || !filepath.IsAbs(cfg.path) {
		t.Fatalf("%+v", cfg)
	}
	if cfg, _ := parseDSN(""); cfg.path != "" || cfg.duckDSN != "" {
		t.Fatalf("in-memory: %+v", cfg)
	}
	for _, bad := range []string{"x?rigel_device=tpu", "x?rigel_cache_size=lots", "x?rigel_colour=red", "x?rigel_device_memory=0", "x?rigel_device_memory=much"} {
		if _, err := parseDSN(bad); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
	if n, err := ParseSize("1GiB"); err != nil || n != 1<<30 {
		t.Fatalf("1GiB: %d %v", n, err)
	}
}

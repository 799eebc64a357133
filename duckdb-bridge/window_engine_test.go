package duckdbbridge

import (
	"context"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// windowDDL has partitions with null keys, values with nulls, a partition
// whose values are all null, ties in the order keys, and integer, decimal
// and float values.
const windowDDL = `CREATE TABLE w AS SELECT i AS id,
  CASE WHEN i % 11 = 0 THEN NULL ELSE 'p' || (i % 4) END AS p,
  i % 3 AS g,
  (i * 37) % 17 AS o,
  CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 7) % 23 END AS v,
  CAST(((i * 13) % 1000) / 100.0 AS DECIMAL(9,2)) AS d,
  CASE WHEN i % 4 = 3 THEN NULL ELSE ((i * 29) % 31) / 8.0 END AS f
FROM range(300) r(i)`

// Window functions run whole on the device (physical.Window), each answer
// DuckDB's: ranks, running totals (ROWS), peer frames (RANGE, SQL's default
// when a window orders) and whole-partition aggregates.
func TestWindowFunctionsOnDevice(t *testing.T) {
	checkDDLWholeOnHost(t, "window", windowDDL, []string{
		"SELECT id, row_number() OVER (PARTITION BY p ORDER BY o, id) AS rn FROM w ORDER BY id",
		"SELECT id, rank() OVER (PARTITION BY p ORDER BY o DESC NULLS FIRST) AS r, dense_rank() OVER (PARTITION BY p ORDER BY o DESC) AS dr FROM w ORDER BY id",
		"SELECT id, rank() OVER (ORDER BY v NULLS FIRST) AS r, row_number() OVER (ORDER BY d DESC, id) AS rn FROM w ORDER BY id",
		"SELECT id, sum(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s, max(d) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS m FROM w ORDER BY id",
		"SELECT id, sum(d) OVER (PARTITION BY p ORDER BY o) AS s, count(v) OVER (PARTITION BY p ORDER BY o) AS c, min(v) OVER (PARTITION BY g ORDER BY o DESC) AS mn FROM w ORDER BY id",
		"SELECT id, sum(v) OVER (PARTITION BY p) AS s, count(*) OVER (PARTITION BY g) AS n, max(f) OVER (PARTITION BY p, g) AS mf, avg(f) OVER (PARTITION BY g) AS af FROM w ORDER BY id",
		// a partition whose values are all null: null sums and minimums, zero counts
		"SELECT id, sum(v) OVER (PARTITION BY id % 5) AS s, min(v) OVER (PARTITION BY id % 5 ORDER BY id) AS m, count(v) OVER (PARTITION BY id % 5) AS c FROM w ORDER BY id",
		"SELECT id, sum(v) OVER () AS total, count(*) OVER () AS n FROM w ORDER BY id",
		// ranks over an aggregate, as TPC-DS writes them (q67)
		"SELECT p, g, s, rank() OVER (PARTITION BY p ORDER BY s DESC) AS r FROM (SELECT p, g, sum(d) AS s FROM w GROUP BY p, g) ORDER BY p NULLS FIRST, g",
		"SELECT * FROM (SELECT id, p, rank() OVER (PARTITION BY p ORDER BY v DESC NULLS LAST, id) AS r FROM w) WHERE r <= 3 ORDER BY p NULLS FIRST, r",
		// distributions: ties share ranks; one-row partitions (id % 97 = 0 alone below 97) give 0
		"SELECT id, percent_rank() OVER (PARTITION BY p ORDER BY o) AS pr, cume_dist() OVER (PARTITION BY p ORDER BY o) AS cd FROM w ORDER BY id",
		"SELECT id, percent_rank() OVER (PARTITION BY id % 97 ORDER BY o) AS pr, cume_dist() OVER (ORDER BY v NULLS FIRST) AS cd FROM w ORDER BY id",
		"SELECT id, ntile(4) OVER (PARTITION BY p ORDER BY id) AS a, ntile(7) OVER (ORDER BY id) AS b, ntile(500) OVER (PARTITION BY g ORDER BY id) AS c FROM w ORDER BY id",
		// other rows' values, nulls among them, strings kept in their dictionary
		"SELECT id, first_value(v) OVER (PARTITION BY p ORDER BY id) AS fv, first_value(p) OVER (PARTITION BY g ORDER BY id) AS fp, last_value(f) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS lf FROM w ORDER BY id",
		"SELECT id, last_value(o) OVER (PARTITION BY p ORDER BY o) AS lo, last_value(d) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS ld FROM w ORDER BY id",
		"SELECT id, lag(v) OVER (PARTITION BY g ORDER BY id) AS l1, lead(d, 2) OVER (PARTITION BY p ORDER BY id) AS l2, lag(p, 3) OVER (ORDER BY id) AS l3 FROM w ORDER BY id",
		"SELECT id, lag(v, 1, -1) OVER (PARTITION BY g ORDER BY id) AS l1, lead(f, 1, 0.5) OVER (PARTITION BY p ORDER BY id) AS l2, lag(o, -2) OVER (ORDER BY id) AS l3, lead(o, 0) OVER (ORDER BY id) AS l4 FROM w ORDER BY id",
		// sliding ROWS frames: sums and counts as differences of running ones,
		// empty frames (null sums, zero counts), frames past either end
		"SELECT id, sum(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS a, count(v) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS b, avg(d) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING) AS c FROM w ORDER BY id",
		"SELECT id, sum(d) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS a, count(*) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING) AS b, sum(v) OVER (PARTITION BY id % 5 ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS c FROM w ORDER BY id",
		"SELECT id, first_value(p) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS a, last_value(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 5 FOLLOWING AND 9 FOLLOWING) AS b FROM w ORDER BY id",
		// RANGE frames with offsets over integer, float (nulls among them)
		// and decimal keys: ties, empty frames, unbounded ends
		"SELECT id, sum(v) OVER (PARTITION BY g ORDER BY id RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) AS s, count(*) OVER (ORDER BY o NULLS FIRST RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS c, sum(d) OVER (PARTITION BY p ORDER BY f RANGE BETWEEN CURRENT ROW AND 2 FOLLOWING) AS e FROM w ORDER BY id",
		"SELECT id, count(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 3 FOLLOWING AND 5 FOLLOWING) AS a, avg(v) OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND UNBOUNDED FOLLOWING) AS b, last_value(o) OVER (PARTITION BY p ORDER BY o RANGE BETWEEN UNBOUNDED PRECEDING AND 2 FOLLOWING) AS c FROM w ORDER BY id",
		// min and max over sliding frames: nulls (an all-null partition),
		// empty frames, frames at either end, long frames (a sparse table
		// of several levels), unbounded ends (scans), RANGE frames
		"SELECT id, min(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS a, max(d) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 3 FOLLOWING) AS b, max(v) OVER (ORDER BY id ROWS BETWEEN 40 PRECEDING AND 25 FOLLOWING) AS c, min(o) OVER (PARTITION BY id % 7 ORDER BY id ROWS BETWEEN 3 PRECEDING AND 1 PRECEDING) AS e FROM w ORDER BY id",
		"SELECT id, max(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 2 FOLLOWING) AS a, min(d) OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 2 PRECEDING AND UNBOUNDED FOLLOWING) AS b, min(v) OVER (PARTITION BY g ORDER BY o RANGE BETWEEN 2 PRECEDING AND 3 FOLLOWING) AS c, max(id) OVER (ORDER BY d RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS e FROM w ORDER BY id",
		// an empty input: no partitions at all
		"SELECT id, lag(v) OVER (ORDER BY id) AS l, ntile(3) OVER (ORDER BY id) AS n, percent_rank() OVER (ORDER BY id) AS pr FROM w WHERE id < 0 ORDER BY id",
	})
}

// Sums and averages of doubles over ordered frames run on the device,
// added in DuckDB's segment tree's order over the sorted rows
// (gpu/segmenttree.go): with PARTITION BY, DuckDB's tree spans the
// partitions of its hash group, so the answers are DuckDB's within a
// float's tolerance (conformance's TestWindowSumsHost holds the cases
// without PARTITION BY, byte for byte).
func TestWindowFloatFrames(t *testing.T) {
	e := NewEngine(memoryDB(t, windowDDL), "window-frames", host.New(), "")
	for _, q := range []string{
		"SELECT id, sum(f) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s FROM w ORDER BY id",
		"SELECT id, avg(f) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN CURRENT ROW AND 3 FOLLOWING) AS m FROM w ORDER BY id",
		"SELECT id, sum(f) OVER (PARTITION BY g ORDER BY id RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) AS s, avg(f) OVER (PARTITION BY p ORDER BY id) AS a FROM w ORDER BY id",
		"SELECT id, sum(f) OVER (ORDER BY id ROWS BETWEEN 20 PRECEDING AND 30 FOLLOWING) AS s, avg(f) OVER (ORDER BY o, id) AS a FROM w ORDER BY id",
	} {
		t.Run(q, func(t *testing.T) {
			if where, reason := queryLikeDuckDB(t, e, q); where != OnHost || reason != "" {
				t.Fatalf("ran on %s (%s), want the host device whole", where, reason)
			}
		})
	}
}

// Averages of integers and decimals are DuckDB's DOUBLEs byte for byte
// (gpu.OpAvgDivide), in aggregates and windows: each sum here has a long
// double quotient on a midpoint between two doubles, where one rounding
// in double gives the other.
func TestAveragesAsDuckDB(t *testing.T) {
	e := NewEngine(memoryDB(t, `CREATE TABLE a AS SELECT g, CASE WHEN i = 0 THEN s ELSE 0 END::DECIMAL(18,2) AS v,
  CASE WHEN i = 0 THEN s ELSE 0 END::BIGINT AS w, (i % 7)::SMALLINT AS h
FROM (VALUES (1, -876601067844.86, 1066), (2, -2955930716895.49, 3987), (3, -2901510332003.06, 421), (4, 4030006335418.37, 409)) t(g, s, n),
  LATERAL (SELECT unnest(range(n)) AS i)`), "averages", host.New(), "")
	for _, q := range []string{
		"SELECT g, avg(v) AS a, avg(w) AS b, avg(h) AS c FROM a GROUP BY g ORDER BY g",
		"SELECT DISTINCT g, avg(v) OVER (PARTITION BY g) AS a FROM a ORDER BY g",
	} {
		t.Run(q, func(t *testing.T) {
			ctx := context.Background()
			got, err := e.Query(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			defer got.Release()
			want, err := e.RunOnDuckDB(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			defer want.Release()
			if got.Where != OnHost || got.Reason != "" {
				t.Fatalf("ran on %s (%s), want the host device whole", got.Where, got.Reason)
			}
			if err := arrowfmt.CompareExact(got.Record, want.Record, false); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// RANGE frames over a DATE key run on the device: offsets in days, and
// INTERVALs of days and hours, for which DuckDB sorts on the date's
// midnight (a frame of whole days: 36 hours after d reaches d + 1). Over
// a TIMESTAMP column the window runs on DuckDB (the device reads no
// timestamp columns) through fallback SQL that writes the offsets back as
// INTERVALs of microseconds; the rest of the plan stays on the device.
func TestDateRangeFrames(t *testing.T) {
	const ddl = `CREATE TABLE e AS SELECT i AS id, i % 3 AS g,
  CASE WHEN i % 13 = 0 THEN NULL ELSE DATE '2024-02-20' + (i * 7 % 40)::INTEGER END AS d,
  TIMESTAMP '2024-02-20 06:00:00' + to_minutes((i * 7919 % 5000)::BIGINT) AS ts,
  (i % 17) * 1.5 AS v
FROM range(400) r(i)`
	checkDDLWholeOnHost(t, "date-range", ddl, []string{
		"SELECT id, count(*) OVER (ORDER BY d RANGE BETWEEN 3 PRECEDING AND 1 FOLLOWING) AS a, sum(v) OVER (PARTITION BY g ORDER BY d NULLS FIRST RANGE BETWEEN CURRENT ROW AND 10 FOLLOWING) AS b FROM e ORDER BY id",
		"SELECT id, max(v) OVER (ORDER BY d RANGE BETWEEN INTERVAL 7 DAYS PRECEDING AND INTERVAL '36 hours' FOLLOWING) AS a, min(id) OVER (PARTITION BY g ORDER BY d RANGE BETWEEN INTERVAL '47 hours' PRECEDING AND CURRENT ROW) AS b FROM e ORDER BY id",
		// A ROWS frame over the date's midnight counts rows, not days.
		"SELECT id, sum(v) OVER (ORDER BY CAST(DATE '2000-01-01' + id::INTEGER AS TIMESTAMP) ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) AS n FROM e ORDER BY id",
	})
	checkSubtreeOnDuckDB(t, NewEngine(memoryDB(t, ddl), "timestamp-range", host.New(), ""),
		"SELECT id, count(*) OVER (ORDER BY ts RANGE BETWEEN INTERVAL 5 HOURS PRECEDING AND INTERVAL 90 MINUTES FOLLOWING) AS n FROM e ORDER BY id")
}

package duckdbbridge

import "testing"

// String literals projected as columns run whole on the device, each
// answer DuckDB's: TPC-DS names the branches of its UNIONs so ('store
// channel' AS channel, q05 and nine more fell back for it) and ROLLUP pads
// its rows with NULL strings (q36 and nine more).
func TestStringLiteralColumns(t *testing.T) {
	checkDDLWholeOnHost(t, "literal-columns", `CREATE TABLE t AS SELECT i AS id, (i * 37) % 101 AS v, CASE WHEN i % 4 = 0 THEN NULL ELSE 'k' || (i % 5) END AS k, 'g' || (i % 3) AS g FROM range(200) r(i);
CREATE TABLE u AS SELECT i AS id, i * 2 AS v FROM range(50) r(i)`, []string{
		"SELECT 'store' AS channel, id, v FROM t WHERE v > 50 ORDER BY id",
		"SELECT channel, count(*) AS n, sum(v) AS s FROM (SELECT 'store' AS channel, v FROM t UNION ALL SELECT 'web' AS channel, v FROM u) GROUP BY channel ORDER BY channel",
		"SELECT CAST(NULL AS VARCHAR) AS s, 'x' AS c, id FROM u WHERE id < 5 ORDER BY id",
		"SELECT k, g, sum(v) AS s FROM t GROUP BY ROLLUP (k, g) ORDER BY k NULLS FIRST, g NULLS FIRST",
		"SELECT channel, k, sum(v) AS s FROM (SELECT 'store' AS channel, k, v FROM t UNION ALL SELECT 'web', CAST(NULL AS VARCHAR), v FROM u) GROUP BY channel, k ORDER BY channel, k NULLS FIRST",
	})
}

// coalesce of strings with a literal among them (TPC-DS q84 joins last
// and first names, each coalesced with the empty string) runs row by row
// on the host device (gpu.StrRowCoalesce; the CUDA device evaluates it on
// the host over its columns, gpu/cuda's rowstrings.go).
func TestStringCoalesceWithLiterals(t *testing.T) {
	checkDDLWholeOnHost(t, "coalesce-literals", `CREATE TABLE t AS SELECT i AS id, CASE WHEN i % 4 = 0 THEN NULL ELSE 'k' || (i % 5) END AS k, CASE WHEN i % 3 = 0 THEN NULL ELSE 'g' || (i % 7) END AS g FROM range(40) r(i)`, []string{
		"SELECT id, coalesce(k, '') || ', ' || coalesce(g, '') AS name FROM t ORDER BY id",
		"SELECT id, coalesce(k, g, 'none') AS a, coalesce('x', k) AS b FROM t ORDER BY id",
	})
}

// DOUBLE and FLOAT constants that are not finite: DuckDB's plan writes
// them as bare NaN, Infinity and -Infinity (not JSON), which made the
// whole plan unreadable; they run on the device, with a string holding
// those words left as it is.
func TestNonFiniteConstants(t *testing.T) {
	checkDDLWholeOnHost(t, "non-finite", `CREATE TABLE t AS SELECT i AS id, (i - 5) / 3.0 AS x, 'NaN Infinity "-Infinity"' || i AS s FROM range(12) r(i)`, []string{
		"SELECT id, x + 'nan'::DOUBLE AS a, x < 'inf'::DOUBLE AS b, x - '-inf'::DOUBLE AS c, x * 'infinity'::FLOAT AS d FROM t ORDER BY id",
		"SELECT id, s, CASE WHEN x > 0 THEN 'inf'::DOUBLE WHEN x < 0 THEN '-inf'::DOUBLE ELSE 'nan'::DOUBLE END AS e FROM t WHERE s <> 'NaN' ORDER BY id",
	})
	for in, want := range map[string]string{
		`{"value": NaN, "s": "a NaN \"Infinity\"", "n": [-Infinity, Infinity, 1e5]}`: `{"value": "NaN", "s": "a NaN \"Infinity\"", "n": ["-Infinity", "Infinity", 1e5]}`,
		`{"v": 1.5}`: `{"v": 1.5}`,
	} {
		if got := quoteNonFinite(in); got != want {
			t.Errorf("quoteNonFinite(%s) = %s, want %s", in, got, want)
		}
	}
}

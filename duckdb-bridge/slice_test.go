package duckdbbridge

import "testing"

// A LIMIT inside the plan (a subquery's, or one under a join or an
// aggregate) runs on the device with the operators above it, each answer
// DuckDB's: TPC-DS q28, q32, q38, q89 and q97 ran such subtrees on DuckDB
// ("an operator above a FetchRel").
func TestLimitInsideThePlan(t *testing.T) {
	checkDDLWholeOnHost(t, "limit-inside", `CREATE TABLE t AS SELECT i AS id, (i * 37) % 101 AS v, CASE WHEN i % 4 = 0 THEN NULL ELSE 'k' || (i % 5) END AS k FROM range(500) r(i);
CREATE TABLE u AS SELECT i AS id, i * 2 AS w FROM range(300) r(i)`, []string{
		"SELECT count(*), sum(v), count(k) FROM (SELECT v, k FROM t ORDER BY v DESC, id LIMIT 37)",
		"SELECT k, count(*) AS n, sum(v) AS s FROM (SELECT k, v FROM t ORDER BY id LIMIT 100 OFFSET 50) GROUP BY k ORDER BY k NULLS FIRST",
		"SELECT x.id, x.v, u.w FROM (SELECT id, v FROM t ORDER BY v, id LIMIT 20) x JOIN u ON u.id = x.id ORDER BY x.id",
		"SELECT * FROM (SELECT id, v FROM (SELECT id, v FROM t ORDER BY id LIMIT 60) ORDER BY v DESC, id LIMIT 10 OFFSET 5) ORDER BY id",
		"SELECT count(*) FROM (SELECT id FROM t ORDER BY id LIMIT 10 OFFSET 495)",
		"SELECT count(*) FROM (SELECT id FROM t ORDER BY id LIMIT 10 OFFSET 900)",
	})
}

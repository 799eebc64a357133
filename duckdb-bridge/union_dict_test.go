package duckdbbridge

import "testing"

// A UNION of two tables' string columns (dictionaries of different
// strings) runs whole on the host device and equals DuckDB: the branches'
// dictionaries are merged (TPC-DS q04, q05, q11 and 11 more fell back to
// DuckDB whole with "dict values from two different dictionaries").
func TestUnionOfDifferentDictionaries(t *testing.T) {
	checkDDLWholeOnHost(t, "union-dict", `CREATE TABLE x AS SELECT i AS id, CASE WHEN i % 5 = 0 THEN NULL ELSE 'store-' || (i % 3) END AS channel FROM range(30) r(i);
CREATE TABLE y AS SELECT i AS id, 'web-' || (i % 4) AS channel FROM range(20) r(i);
CREATE TABLE z AS SELECT i AS id, 'store-1' AS channel FROM range(5) r(i)`, []string{
		"SELECT channel, id FROM x UNION ALL SELECT channel, id FROM y ORDER BY channel NULLS FIRST, id",
		"SELECT channel, count(*) AS n FROM (SELECT channel FROM x UNION ALL SELECT channel FROM y UNION ALL SELECT channel FROM z) GROUP BY channel ORDER BY channel NULLS FIRST",
		"SELECT channel FROM y UNION SELECT channel FROM z ORDER BY channel",
		"SELECT count(*) FROM (SELECT channel FROM x UNION ALL SELECT channel FROM y) WHERE channel >= 'store-2'",
	})
}

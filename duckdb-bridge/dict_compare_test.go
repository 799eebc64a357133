package duckdbbridge

import "testing"

// Two tables' string columns (two dictionaries) compared with every
// operator run on the host device (gpu.DictOrderMap puts one side's codes
// in the other's order), strings missing from either side and nulls
// among them: TPC-DS q19 and q24 compare zip codes and colors so.
func TestStringsOfTwoDictionariesCompared(t *testing.T) {
	checkDDLWholeOnHost(t, "dict-compare", `CREATE TABLE a AS SELECT i AS id, CASE WHEN i % 7 = 0 THEN NULL ELSE 'k' || (i % 11) END AS s FROM range(60) r(i);
CREATE TABLE b AS SELECT i AS id, CASE WHEN i % 5 = 0 THEN NULL ELSE 'k' || (i % 13) END AS s FROM range(60) r(i)`, []string{
		"SELECT a.id, a.s = b.s AS eq, a.s <> b.s AS ne, a.s < b.s AS lt, a.s <= b.s AS le, a.s > b.s AS gt, a.s >= b.s AS ge FROM a JOIN b ON a.id = b.id ORDER BY a.id",
		"SELECT count(*) FROM a JOIN b ON a.id % 10 = b.id % 10 WHERE substr(a.s, 1, 2) <> substr(b.s, 1, 2) OR upper(a.s) < b.s",
	})
}

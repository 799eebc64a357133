package duckdbbridge

import (
	"context"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
)

// A scalar subquery over a subquery that may have several rows (a
// DISTINCT, a filtered set) runs on the device as a left single join: its
// value where it has one row, null where none, DuckDB's error where
// several (TPC-DS q06, q14, q44, q54 and q58 fell back to DuckDB whole over
// its error() check).
func TestScalarSubqueryOverRows(t *testing.T) {
	db := memoryDB(t, `CREATE TABLE d AS SELECT i AS seq, 2000 + i // 12 AS yr, 1 + i % 12 AS moy FROM range(48) r(i);
CREATE TABLE s AS SELECT i AS id, i % 48 AS seq FROM range(200) r(i)`)
	e := NewEngine(db, "subquery-rows", host.New(), "")
	checkWholeOnHost(t, e, []string{
		"SELECT count(*) FROM s WHERE seq = (SELECT DISTINCT seq FROM d WHERE yr = 2001 AND moy = 3)",
		"SELECT id, (SELECT DISTINCT yr FROM d WHERE moy = 99) AS none FROM s WHERE id < 5 ORDER BY id",
		"SELECT id, seq > (SELECT DISTINCT seq FROM d WHERE yr = 2002 AND moy = 1) AS later FROM s WHERE id < 60 ORDER BY id",
	})
	_, err := e.Query(context.Background(), "SELECT count(*) FROM s WHERE seq = (SELECT DISTINCT seq FROM d WHERE yr = 2001)")
	if err == nil || !strings.Contains(err.Error(), "More than one row returned by a subquery") {
		t.Fatalf("a subquery of 12 rows: %v, want DuckDB's error", err)
	}
}

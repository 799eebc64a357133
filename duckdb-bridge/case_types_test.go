package duckdbbridge

import (
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu/host"
)

// A CASE or COALESCE whose branches are decimals of a narrower precision
// than the CASE's own (DuckDB types coalesce(DECIMAL(7,2), 0) as
// DECIMAL(12,2)) runs whole on the device and equals DuckDB; it failed
// while running with "ill-typed expression" (TPC-DS q40 and q80: the
// smallest case is sum(coalesce(cr_refunded_cash, 0))).
func TestCaseOfNarrowerDecimals(t *testing.T) {
	checkDDLWholeOnHost(t, "case-types", `CREATE TABLE cr AS SELECT i AS id,
  CASE WHEN i % 3 = 0 THEN NULL ELSE CAST(i / 3.0 AS DECIMAL(7,2)) END AS cash,
  CAST(i * 1.5 AS DECIMAL(5,1)) AS fee FROM range(40) r(i)`, []string{
		"SELECT sum(coalesce(cash, 0)) FROM cr",
		"SELECT id, coalesce(cash, 0) AS c FROM cr ORDER BY id",
		"SELECT max(coalesce(cash, fee, 0)), min(coalesce(cash, 2)) FROM cr",
		"SELECT sum(CASE WHEN cash > 1 THEN cash ELSE 0 END) FROM cr",
		"SELECT id, CASE WHEN cash > 5 THEN cash WHEN id > 30 THEN fee ELSE 0.5 END AS c FROM cr ORDER BY id",
	})
}

// A CASE with a NULL branch over non-nullable columns (counts) is null on
// the rows that take that branch, and runs whole on the device: TPC-DS q90
// at SF0.01 failed with "typed float64 (not nullable) but produced a null"
// where its denominator was 0 (substrait-go types an IfThen by one branch).
func TestCaseWithNullBranch(t *testing.T) {
	checkDDLWholeOnHost(t, "case-null", `CREATE TABLE r AS SELECT CAST(i AS BIGINT) AS a, CAST(i % 4 AS BIGINT) AS b FROM range(20) t(i)`, []string{
		"SELECT a, CASE WHEN b = 0 THEN NULL ELSE CAST(a AS DECIMAL(15,4)) / CAST(b AS DECIMAL(15,4)) END AS q FROM r ORDER BY a",
		"SELECT a, CASE WHEN b = 0 THEN NULL ELSE a END AS q FROM r ORDER BY a",
		"SELECT a, CASE WHEN b > 1 THEN a END AS q FROM r ORDER BY a",
		"SELECT sum(CASE WHEN b = 0 THEN NULL ELSE a * 2 END) FROM r",
		"SELECT CASE WHEN pmc = 0 THEN NULL ELSE amc END FROM (SELECT count(*) AS amc FROM r) x, (SELECT count(*) AS pmc FROM r WHERE a < 0) y",
		"SELECT CASE WHEN pmc = 0 THEN NULL ELSE CAST(amc AS DECIMAL(15,4)) / CAST(pmc AS DECIMAL(15,4)) END FROM (SELECT count(*) AS amc FROM r) x, (SELECT count(*) AS pmc FROM r WHERE a < 0) y",
		"SELECT CASE WHEN pmc > 0 THEN amc END FROM (SELECT count(*) AS amc FROM r) x, (SELECT count(*) AS pmc FROM r WHERE a < 0) y",
	})
}

// DuckDB's statistics turn a comparison that no value can pass into
// constant_or_null(false, column, constant): false, or null where the
// column is (TPC-DS q13, q15, q48 fell back to DuckDB whole over it). It
// runs on the device as a CASE over IS NULL.
func TestConstantOrNull(t *testing.T) {
	db := memoryDB(t, `CREATE TABLE b AS SELECT i % 10 AS k,
  CASE WHEN i % 7 = 0 THEN NULL ELSE CAST(i AS DECIMAL(7,2)) END AS price FROM range(100) t(i)`)
	var plan string
	if err := db.QueryRow("EXPLAIN SELECT k, price > 5000.00 FROM b").Scan(new(string), &plan); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "constant_or_null") {
		t.Fatalf("DuckDB no longer plans constant_or_null here; the test needs another query:\n%s", plan)
	}
	e := NewEngine(db, "constant-or-null", host.New(), "")
	checkWholeOnHost(t, e, []string{
		"SELECT k, price, price > 5000.00 AS big FROM b ORDER BY k, price",
		"SELECT count(*) FROM b WHERE k < 3 OR price > 5000.00",
		"SELECT count(*) FROM b WHERE NOT (price > 5000.00)",
	})
}

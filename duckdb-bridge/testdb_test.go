package duckdbbridge

import (
	"context"
	"database/sql"
	"os"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// testData fills the TPC-H schema with a few hundred deterministic rows, and
// creates t, a table of every supported type with NULLs in its nullable
// columns.
var testData = []string{
	`INSERT INTO region SELECT i, ['AFRICA','AMERICA','ASIA','EUROPE','MIDDLE EAST'][i+1], 'region ' || i FROM range(5) r(i)`,
	`INSERT INTO nation SELECT i, 'NATION' || i, i % 5, 'nation ' || i FROM range(25) r(i)`,
	`INSERT INTO supplier SELECT i, 'Supplier#' || i, 'addr ' || i, i % 25, '1' || (i % 9) || '-555', (i * 37 % 10000) / 100.0 - 10, 'comment ' || i FROM range(1, 21) r(i)`,
	`INSERT INTO part SELECT i, 'part green ' || i, 'Manufacturer#' || (i % 5 + 1), 'Brand#' || (i % 5 + 1) || (i % 3 + 1),
		['PROMO BRUSHED BRASS','ECONOMY ANODIZED STEEL','MEDIUM POLISHED TIN','STANDARD PLATED BRASS'][i % 4 + 1],
		i % 50 + 1, ['SM CASE','MED BOX','LG PACK','JUMBO JAR'][i % 4 + 1], 900 + i / 10.0, 'part comment ' || i FROM range(1, 51) r(i)`,
	`INSERT INTO partsupp SELECT i % 50 + 1, i % 20 + 1, i * 7 % 9999 + 1, (i * 13 % 100000) / 100.0, 'ps ' || i FROM range(100) r(i)`,
	`INSERT INTO customer SELECT i, 'Customer#' || i, 'caddr ' || i, i % 25, (10 + i % 25) || '-555-' || i, (i * 71 % 20000) / 100.0 - 100,
		['BUILDING','AUTOMOBILE','MACHINERY','HOUSEHOLD','FURNITURE'][i % 5 + 1], 'cust ' || i FROM range(1, 31) r(i)`,
	`INSERT INTO orders SELECT i, i % 30 + 1, ['F','O','P'][i % 3 + 1], (i * 997 % 5000000) / 100.0, DATE '1992-01-01' + CAST(i * 29 % 2400 AS INTEGER),
		['1-URGENT','2-HIGH','3-MEDIUM','4-NOT SPECIFIED','5-LOW'][i % 5 + 1], 'Clerk#' || (i % 10), 0, 'order ' || i FROM range(1, 101) r(i)`,
	`INSERT INTO lineitem SELECT i // 3 + 1, i % 50 + 1, i % 20 + 1, i % 3 + 1, i % 50 + 1, (i * 1237 % 10000000) / 100.0,
		(i % 11) / 100.0, (i % 9) / 100.0, ['A','N','R'][i % 3 + 1], ['F','O'][i % 2 + 1],
		DATE '1992-01-02' + CAST(i * 17 % 2500 AS INTEGER), DATE '1992-01-30' + CAST(i * 13 % 2500 AS INTEGER),
		DATE '1992-02-05' + CAST(i * 11 % 2500 AS INTEGER), ['DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'][i % 4 + 1],
		['AIR','MAIL','SHIP','TRUCK','RAIL','REG AIR','FOB'][i % 7 + 1], 'line ' || i FROM range(300) r(i)`,
	`CREATE TABLE t (a INTEGER NOT NULL, b DECIMAL(15,2), s VARCHAR, d DATE, f DOUBLE, h HUGEINT, ts TIMESTAMP,
		bi BIGINT, bo BOOLEAN, w DECIMAL(30,3))`,
	`INSERT INTO t SELECT i,
		CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 1.25)::DECIMAL(15,2) - 50 END,
		CASE WHEN i % 7 = 0 THEN NULL ELSE 'x' || (i % 9) END,
		CASE WHEN i % 6 = 0 THEN NULL ELSE DATE '1995-01-01' + CAST(i AS INTEGER) END,
		CASE WHEN i % 8 = 0 THEN NULL ELSE i / 3.0 END,
		CASE WHEN i % 4 = 0 THEN NULL ELSE i * 1000000000000 END,
		CASE WHEN i % 9 = 0 THEN NULL ELSE TIMESTAMP '2000-01-01 00:00:00' + to_seconds(i * 3600) END,
		CASE WHEN i % 10 = 0 THEN NULL ELSE i * 3 - 100 END,
		CASE WHEN i % 11 = 0 THEN NULL ELSE i % 2 = 0 END,
		CASE WHEN i % 3 = 0 THEN NULL ELSE 123456789012345678.125 * (i - 100) END
		FROM range(200) r(i)`,
}

// openTestDB opens an in-memory DuckDB database with the TPC-H schema (from
// conformance/tpch/schema.sql), filled with testData unless empty is set.
func openTestDB(t *testing.T, empty bool) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	schema, err := os.ReadFile("../conformance/tpch/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(schema)); err != nil {
		t.Fatal(err)
	}
	if empty {
		return db
	}
	for _, q := range testData {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	return db
}

func testConn(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

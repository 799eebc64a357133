// Command duckdb-dropin is a program written for duckdb-go that runs on
// rigel. Two lines differ from its duckdb-go version:
//
//	import _ "github.com/duckdb/duckdb-go/v2"   became   import _ "github.com/rigel-db/rigel/duckdb-bridge/rigelsql"
//	sql.Open("duckdb", dsn)                      became   sql.Open("rigel", dsn)
//
// Usage: duckdb-dropin [DSN]   (duckdb-go's DSN: a file path, "" for an
// in-memory database, options such as ?threads=4; rigel adds
// rigel_device=auto|cuda|host|duckdb and rigel_cache_size=4GB).
package main

import (
	"database/sql"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/duckdb/duckdb-go/v2" // for duckdb.Decimal, as before

	_ "github.com/rigel-db/rigel/duckdb-bridge/rigelsql" // was: _ "github.com/duckdb/duckdb-go/v2"
)

// driverName is the one other line changed (it was "duckdb"); the test
// runs the same program on duckdb-go to compare.
var driverName = "rigel"

func main() {
	dsn := ""
	if len(os.Args) > 1 {
		dsn = os.Args[1]
	}
	if err := run(os.Stdout, dsn); err != nil {
		fmt.Fprintln(os.Stderr, "duckdb-dropin:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, dsn string) error {
	db, err := sql.Open(driverName, dsn) // was: sql.Open("duckdb", dsn)
	if err != nil {
		return err
	}
	defer db.Close()

	if _, err := db.Exec(`CREATE OR REPLACE TABLE sales(region VARCHAR, day DATE, amount DECIMAL(12,2), units INTEGER)`); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	ins, err := tx.Prepare(`INSERT INTO sales VALUES (?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 30 {
		region := []string{"north", "south", "east"}[i%3]
		if _, err := ins.Exec(region, day.AddDate(0, 0, i), fmt.Sprintf("%d.%02d", 10+i, i), i%7+1); err != nil {
			return err
		}
	}
	ins.Close()
	if err := tx.Commit(); err != nil {
		return err
	}

	const report = `SELECT region, count(*) AS n, sum(amount) AS total, sum(units) AS units
		FROM sales WHERE day >= DATE '2026-01-05' GROUP BY region ORDER BY region`
	if err := printReport(w, db, report); err != nil {
		return err
	}
	// A write, then the same query: it sees the new rows.
	if _, err := db.Exec(`INSERT INTO sales VALUES ('west', DATE '2026-02-01', 99.99, 9), (NULL, DATE '2026-02-02', 1.00, 1)`); err != nil {
		return err
	}
	fmt.Fprintln(w, "after the insert:")
	if err := printReport(w, db, report); err != nil {
		return err
	}

	var first time.Time
	var biggest duckdb.Decimal
	if err := db.QueryRow(`SELECT min(day), max(amount) FROM sales`).Scan(&first, &biggest); err != nil {
		return err
	}
	fmt.Fprintf(w, "first day %s, biggest sale %s\n", first.Format(time.DateOnly), biggest.String())
	return nil
}

func printReport(w io.Writer, db *sql.DB, query string) error {
	rows, err := db.Query(query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var region sql.NullString
		var n int64
		var total duckdb.Decimal
		var units any
		if err := rows.Scan(&region, &n, &total, &units); err != nil {
			return err
		}
		fmt.Fprintf(w, "%-6s %3d %10s %v (%T)\n", region.String, n, total.String(), units, units)
	}
	return rows.Err()
}

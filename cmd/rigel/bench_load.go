package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/internal/offheap"
	"github.com/rigel-db/rigel/internal/sqltext"
	"github.com/rigel-db/rigel/physical"
)

// cmdBenchLoad loads every column of a database's tables into the
// device's column cache, a table at a time, and prints two tables: per
// table, its load's time and speed over the columns' plain size and the
// most host memory the load's buffers held; per column, the device bytes
// it holds against its plain size (what packing saved). With the column
// store on, a second process reads the store instead of DuckDB: the
// column store line under the tables says which it was.
func cmdBenchLoad(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench load", flag.ContinueOnError)
	var ef engineFlags
	ef.register(fs)
	list := fs.String("tables", "", "comma-separated tables (default: every table of the database's main schema)")
	out := fs.String("out", "", "also write the tables to this markdown file")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	eng, closeAll, err := openEngine(&ef)
	if err != nil {
		return err
	}
	defer closeAll()
	if eng.Device() == nil {
		return fmt.Errorf("bench load: no device to load into (--device cuda or host)")
	}
	tables, err := benchTables(ctx, eng, *list)
	if err != nil {
		return err
	}
	var b strings.Builder
	header(ctx, &b, "rigel bench load", eng, ef.db)
	b.WriteString("- plain GB: the columns as the device holds them unpacked (values, validity, dictionaries, characters); device GB: as it holds them; GB/s: plain GB over the load's time\n")
	b.WriteString("- host peak: the most the load's buffers held at once (rigel's, not DuckDB's nor the column store's mapped files)\n\n")
	b.WriteString("| table | columns | rows | load ms | plain GB | GB/s | device GB | plain / device | host peak GB |\n|---|---|---|---|---|---|---|---|---|\n")
	var loaded []physical.CachedColumn
	var total, totalDev int64
	var totalTime time.Duration
	for _, t := range tables {
		fmt.Fprintf(os.Stderr, "rigel: bench load %s\n", t)
		offheap.ResetPeak()
		start := time.Now()
		err := eng.LoadColumns(ctx, "SELECT * FROM "+sqltext.Ident(t))
		took := time.Since(start)
		if err != nil {
			fmt.Fprintf(&b, "| %s | error: %s | | | | | | | |\n", t, strings.ReplaceAll(oneLine(err.Error()), "|", "/"))
			continue
		}
		cols := tableColumns(eng.CachedColumns(), t)
		if len(cols) == 0 {
			fmt.Fprintf(&b, "| %s | none loaded: the table's scan runs on DuckDB (`rigel query --explain` says why) | | | | | | | |\n", t)
			continue
		}
		var plain, dev int64
		for _, c := range cols {
			plain += c.PlainBytes
			dev += c.Bytes
		}
		loaded = append(loaded, cols...)
		total, totalDev, totalTime = total+plain, totalDev+dev, totalTime+took
		fmt.Fprintf(&b, "| %s | %d | %d | %.1f | %.3f | %.2f | %.3f | %.2fx | %.2f |\n", t, len(cols), cols[0].Rows, float64(took.Microseconds())/1e3,
			float64(plain)/1e9, float64(plain)/1e9/max(took.Seconds(), 1e-9), float64(dev)/1e9, ratio(plain, dev), float64(offheap.Peak())/1e9)
	}
	fmt.Fprintf(&b, "| all | %d | | %.1f | %.3f | %.2f | %.3f | %.2fx | |\n", len(loaded), float64(totalTime.Microseconds())/1e3,
		float64(total)/1e9, float64(total)/1e9/max(totalTime.Seconds(), 1e-9), float64(totalDev)/1e9, ratio(total, totalDev))
	b.WriteString("\n| column | type | rows | plain MB | device MB | device bytes a row | plain / device |\n|---|---|---|---|---|---|---|\n")
	for _, c := range loaded {
		fmt.Fprintf(&b, "| %s.%s | %s | %d | %.1f | %.1f | %.2f | %.2fx |\n", c.Table, c.Column, c.Type, c.Rows,
			float64(c.PlainBytes)/1e6, float64(c.Bytes)/1e6, float64(c.Bytes)/float64(max(c.Rows, 1)), ratio(c.PlainBytes, c.Bytes))
	}
	eng.Flush()
	st := eng.ColumnStoreStats()
	fmt.Fprintf(&b, "\n- column store (RIGEL_COLUMN_STORE): %d column file(s) read (%.2f GB), DuckDB scanned for %d; %d written (%.2f GB)\n",
		st.Hits, float64(st.BytesRead)/1e9, st.Misses, st.Written, float64(st.BytesWritten)/1e9)
	fmt.Print(b.String())
	if *out != "" {
		return os.WriteFile(*out, []byte(b.String()), 0o644)
	}
	return nil
}

// benchTables is the tables of list, or every base table of the main
// schema when list is empty.
func benchTables(ctx context.Context, eng *duckdbbridge.Engine, list string) ([]string, error) {
	if list != "" {
		return strings.Split(list, ","), nil
	}
	rows, err := eng.DB().QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_type = 'BASE TABLE' ORDER BY table_name")
	if err != nil {
		return nil, fmt.Errorf("bench load: listing the tables: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench load: the database has no table")
	}
	return out, nil
}

// tableColumns is cols' columns of table t (the cache keys tables in lower case).
func tableColumns(cols []physical.CachedColumn, t string) []physical.CachedColumn {
	var out []physical.CachedColumn
	for _, c := range cols {
		if c.Table == strings.ToLower(t) {
			out = append(out, c)
		}
	}
	return out
}

// ratio is a / b, 0 when b is 0.
func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

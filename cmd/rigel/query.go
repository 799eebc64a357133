package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
)

// sqlFrom takes the SQL from -f FILE or from the positional arguments.
func sqlFrom(file string, pos []string) (string, error) {
	if file == "" {
		return sqlArg(pos)
	}
	if len(pos) > 0 {
		return "", usageError{"give the SQL either with -f FILE or as an argument, not both"}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("read SQL: %w", err)
	}
	return string(b), nil
}

func sqlArg(pos []string) (string, error) {
	if len(pos) == 0 {
		return "", usageError{"no SQL given"}
	}
	return strings.Join(pos, " "), nil
}

func cmdQuery(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	ef := engineFlags{inMemory: true}
	ef.register(fs)
	format := fs.String("format", "table", "output format: table, csv or json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	query, err := sqlFrom(ef.file, pos)
	if err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	eng, closeAll, err := openEngine(&ef)
	if err != nil {
		return err
	}
	defer closeAll()
	start := time.Now()
	res, err := eng.Query(ctx, query)
	if errors.Is(err, duckdbbridge.ErrNotAQuery) {
		// SHOW, PRAGMA, SET and the like: the catalog is this user's own
		// (opened read-only), so DuckDB runs them as its CLI would.
		res, err = eng.RunOnDuckDB(ctx, query)
	}
	if err != nil {
		return err
	}
	defer res.Release()
	elapsed := time.Since(start)
	if err := writeResult(os.Stdout, res.Record, *format); err != nil {
		return err
	}
	status := fmt.Sprintf("rigel: %s in %s, ran on %s", plural(res.Record.NumRows(), "row"), elapsed.Round(time.Microsecond), res.Where)
	if res.Reason != "" && res.Reason != eng.NoDeviceReason { // that one was said once already
		status += ": " + oneLine(res.Reason)
	}
	fmt.Fprintln(os.Stderr, status)
	return nil
}

func cmdExplain(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	ef := engineFlags{inMemory: true}
	ef.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	query, err := sqlFrom(ef.file, pos)
	if err != nil {
		return err
	}
	eng, closeAll, err := openEngine(&ef)
	if err != nil {
		return err
	}
	defer closeAll()
	text, err := eng.Explain(ctx, query)
	if err != nil {
		return err
	}
	fmt.Print(text)
	return nil
}

// checkFormat refuses an output format writeResult does not write, before
// any work is done.
func checkFormat(format string) error {
	if format != "table" && format != "csv" && format != "json" {
		return usageError{fmt.Sprintf("--format must be table, csv or json, not %q", format)}
	}
	return nil
}

// writeResult writes a result as --format asks, through the shell's
// writers: table is sqlite's box, csv and json as the shell's modes (json:
// one object a row, columns in order, NaN and infinities as text).
func writeResult(w io.Writer, rec arrow.RecordBatch, format string) error {
	mode := format
	if format == "table" {
		mode = "box"
	}
	return renderResult(w, arrowTable(rec), mode, 0)
}

// jsonValue keeps numbers as JSON numbers (decimals as exact literals).
func jsonValue(dt arrow.DataType, v string) any {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
		arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.DECIMAL256:
		return json.Number(v)
	case arrow.BOOL:
		return v == "true"
	}
	return v
}

func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

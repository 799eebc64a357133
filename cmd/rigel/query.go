package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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
	if *format != "table" {
		// csv and json need no column widths: rows go out as they come, so
		// an answer larger than memory that DuckDB streams is never held
		// whole.
		st, err := eng.QueryStream(ctx, query)
		if err == nil {
			defer st.Release()
			rows, err := writeStream(os.Stdout, st, *format)
			if err != nil {
				return err
			}
			printStatus(eng, rows, time.Since(start), st.Where, st.Reason)
			return nil
		}
		if !errors.Is(err, duckdbbridge.ErrNotAQuery) {
			return err
		}
	}
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
	printStatus(eng, res.Record.NumRows(), elapsed, res.Where, res.Reason)
	return nil
}

// printStatus writes a query's status line to stderr.
func printStatus(eng *duckdbbridge.Engine, rows int64, elapsed time.Duration, where duckdbbridge.Where, reason string) {
	status := fmt.Sprintf("rigel: %s in %s, ran on %s", plural(rows, "row"), elapsed.Round(time.Microsecond), where)
	if reason != "" && reason != eng.NoDeviceReason { // that one was said once already
		status += ": " + oneLine(reason)
	}
	fmt.Fprintln(os.Stderr, status)
}

// writeStream writes a stream's batches as csv or json as they come and
// returns the rows written.
func writeStream(w io.Writer, rr array.RecordReader, format string) (int64, error) {
	names := make([]string, rr.Schema().NumFields())
	for i, f := range rr.Schema().Fields() {
		names[i] = f.Name
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var cw *csv.Writer
	var jw *jsonRows
	if format == "csv" {
		cw = csv.NewWriter(bw)
		cw.Write(names)
	} else {
		jw = newJSONRows(bw, names)
	}
	var rows int64
	for rr.Next() {
		rec := rr.RecordBatch()
		t := arrowTable(rec)
		if cw != nil {
			for r := range t.nrows {
				cw.Write(t.row(r))
			}
		} else {
			jw.add(t)
		}
		rows += rec.NumRows()
	}
	if err := rr.Err(); err != nil {
		return rows, err
	}
	if cw != nil {
		cw.Flush()
		if err := cw.Error(); err != nil {
			return rows, err
		}
	} else if err := jw.close(); err != nil {
		return rows, err
	}
	return rows, bw.Flush()
}

func cmdExplain(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	ef := engineFlags{inMemory: true}
	ef.register(fs)
	analyze := fs.Bool("analyze", false, "run the query and show what each operator did: time, rows, kernel launches, the pipelines that ran on the precompiled interpreter, and what the compiler cost")
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
	explain := eng.Explain
	if *analyze {
		explain = eng.ExplainAnalyze
	}
	text, err := explain(ctx, query)
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

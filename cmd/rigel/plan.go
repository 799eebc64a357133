package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"
)

// cmdPlan runs a Substrait plan file (JSON or binary protobuf) against the
// tables of a DuckDB database.
func cmdPlan(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	var ef engineFlags
	ef.register(fs)
	format := fs.String("format", "table", "output format: table, csv or json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageError{"plan needs one Substrait plan file"}
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	data, err := os.ReadFile(pos[0])
	if err != nil {
		return fmt.Errorf("read plan: %w", err)
	}
	eng, closeAll, err := openEngine(&ef)
	if err != nil {
		return err
	}
	defer closeAll()
	start := time.Now()
	res, err := eng.RunPlan(ctx, data)
	if err != nil {
		return err
	}
	defer res.Release()
	for _, n := range res.Notes { // rigel departed from the plan's declarations
		fmt.Fprintf(os.Stderr, "rigel: note: %s\n", n)
	}
	if err := writeResult(os.Stdout, res.Record, *format); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "rigel: %s in %s, ran on %s\n", plural(res.Record.NumRows(), "row"), time.Since(start).Round(time.Microsecond), res.Where)
	return nil
}

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rigel-db/rigel/conformance/tpch"
)

func cmdTPCHGen(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("tpch-gen", flag.ContinueOnError)
	sf := fs.Float64("sf", 1, "scale factor")
	db := fs.String("db", "", "DuckDB file to create")
	force := fs.Bool("force", false, "replace the file if it exists")
	gen := fs.String("tpchgen", "", "path of tpchgen-cli (default: $RIGEL_TPCHGEN, .tools/bin, $PATH)")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *db == "" {
		return usageError{"--db FILE is required"}
	}
	if *sf <= 0 {
		return usageError{fmt.Sprintf("--sf must be positive, not %g", *sf)}
	}
	if _, err := os.Lstat(*db); err == nil && !*force {
		return fmt.Errorf("%s exists; rigel tpch-gen replaces it only with --force", *db)
	}
	if *gen == "" {
		wd, _ := os.Getwd()
		p, err := tpch.FindGenerator(wd)
		if err != nil {
			return err
		}
		*gen = p
	}
	if err := os.MkdirAll(filepath.Dir(*db), 0o755); err != nil {
		return err
	}
	return tpch.Build(ctx, *gen, *sf, *db, func(s string) { fmt.Fprintln(os.Stderr, "rigel: "+s) })
}

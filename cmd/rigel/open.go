package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io"
	"os"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
)

// common flags of commands that run queries.
type engineFlags struct {
	db     string
	device string
	file   string
}

func (f *engineFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.db, "db", "", "DuckDB database file (required)")
	fs.StringVar(&f.device, "device", "auto", "where to run: auto (GPU if there is one, else DuckDB), cuda, host (rigel's reference engine on the CPU), duckdb")
	fs.StringVar(&f.file, "f", "", "read the SQL from this file")
}

// openDevice opens the chosen device (duckdbbridge.OpenDevice); a bad mode
// is a usage error.
func openDevice(mode string) (gpu.Device, string, error) {
	switch mode {
	case "auto", "cuda", "host", "duckdb":
		return duckdbbridge.OpenDevice(mode)
	}
	return nil, "", usageError{fmt.Sprintf("--device must be %s, not %q", duckdbbridge.DeviceModes, mode)}
}

// openDB opens an existing DuckDB file read-only.
func openDB(path string) (*sql.DB, string, error) {
	if path == "" {
		return nil, "", usageError{"--db FILE is required"}
	}
	return duckdbbridge.OpenCatalog(context.Background(), duckdbbridge.CatalogSpec{DB: path})
}

// openEngine opens database and device together.
func openEngine(f *engineFlags) (*duckdbbridge.Engine, func(), error) {
	db, id, err := openDB(f.db)
	if err != nil {
		return nil, nil, err
	}
	dev, reason, err := openDevice(f.device)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	if dev == nil && f.device == "auto" {
		fmt.Fprintln(os.Stderr, "rigel: "+reason+"; DuckDB runs the queries (--device=host runs rigel's reference engine on the CPU)")
	}
	eng := duckdbbridge.NewEngine(db, id, dev, reason)
	eng.SetProgress(func(msg string) { fmt.Fprintln(os.Stderr, "rigel: "+msg) })
	closeAll := func() {
		if dev != nil {
			dev.Close()
		}
		db.Close()
	}
	return eng, closeAll, nil
}

// parseFlags parses flags placed before, between or after the positional
// arguments, and returns the positionals.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	// The flag package's own usage text is silenced: main prints rigel's.
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError{err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

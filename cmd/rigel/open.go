package main

import (
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/cuda"
	"github.com/rigel-db/rigel/gpu/host"
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

// openDevice opens the chosen device. With auto and no GPU, it returns no
// device and the reason, and every query runs on DuckDB.
func openDevice(mode string) (gpu.Device, string, error) {
	switch mode {
	case "duckdb":
		return nil, "--device=duckdb", nil
	case "host":
		return host.New(), "", nil
	case "cuda", "auto":
		d, err := cuda.Open()
		if err == nil {
			return d, "", nil
		}
		if mode == "cuda" {
			return nil, "", err
		}
		return nil, fmt.Sprintf("no GPU (%v)", err), nil
	}
	return nil, "", usageError{fmt.Sprintf("--device must be auto, cuda, host or duckdb, not %q", mode)}
}

// openDB opens an existing DuckDB file read-only: DuckDB would silently
// create a missing one.
func openDB(path string) (*sql.DB, string, error) {
	if path == "" {
		return nil, "", usageError{"--db FILE is required"}
	}
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", fmt.Errorf("database file %s does not exist (make one with `rigel tpch-gen --sf 1 --db %s`, or give the path of a DuckDB file)", path, path)
		}
		return nil, "", err
	}
	if st.IsDir() {
		return nil, "", fmt.Errorf("database file %s is a folder, not a DuckDB file", path)
	}
	abs, _ := filepath.Abs(path)
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return nil, "", err
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("open %s: %w", path, err)
	}
	return db, abs, nil
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

// Package tpch generates TPC-H data with tpchgen-cli (data identical to
// dbgen), loads it into a DuckDB database file, and holds the 22 queries.
package tpch

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // the "duckdb" database/sql driver
)

//go:embed queries/*.sql schema.sql
var files embed.FS

// Tables are the TPC-H tables in load order.
var Tables = []string{"nation", "region", "part", "supplier", "partsupp", "customer", "orders", "lineitem"}

// Query returns the text of TPC-H query n (1..22).
func Query(n int) (string, error) {
	if n < 1 || n > 22 {
		return "", fmt.Errorf("TPC-H has queries 1 to 22, not %d", n)
	}
	b, err := files.ReadFile(fmt.Sprintf("queries/q%02d.sql", n))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// Schema returns the CREATE TABLE statements.
func Schema() string {
	b, _ := files.ReadFile("schema.sql")
	return string(b)
}

// FindGenerator locates tpchgen-cli: $RIGEL_TPCHGEN, the project's tool
// folder (make setup installs it there), then $PATH.
func FindGenerator(repoRoot string) (string, error) {
	if p := os.Getenv("RIGEL_TPCHGEN"); p != "" {
		return p, nil
	}
	for _, p := range []string{filepath.Join(repoRoot, ".tools", "bin", "tpchgen-cli")} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath("tpchgen-cli"); err == nil {
		return p, nil
	}
	return "", errors.New("tpchgen-cli not found: run `make setup` (it installs it under .tools/bin) or set RIGEL_TPCHGEN")
}

// Build generates scale factor sf and loads it into a new DuckDB database
// file at dbPath (replacing it), one table at a time: a table's Parquet
// is generated into a folder beside dbPath, inserted, and removed before
// the next table's is generated, so that the Parquet of the whole scale
// factor and the database never sit on the disk together (at SF100 they
// would not fit a 64 GB disk; lineitem's Parquet alone is about 20 GB).
func Build(ctx context.Context, generator string, sf float64, dbPath string, progress func(string)) error {
	if progress == nil {
		progress = func(string) {}
	}
	parquetDir := strings.TrimSuffix(dbPath, filepath.Ext(dbPath)) + "-parquet"
	if err := os.MkdirAll(parquetDir, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(parquetDir)
	tmp := dbPath + ".loading"
	os.Remove(tmp)
	os.Remove(tmp + ".wal")
	db, err := sql.Open("duckdb", tmp)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, Schema()); err != nil {
		return fmt.Errorf("create TPC-H schema: %w", err)
	}
	for _, t := range Tables {
		progress(fmt.Sprintf("generating %s of TPC-H SF%g with %s into %s", t, sf, generator, parquetDir))
		cmd := exec.CommandContext(ctx, generator, "parquet", "-s", fmt.Sprint(sf), "--tables="+t, "--output-dir="+parquetDir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("tpchgen-cli (table %s): %v: %s", t, err, strings.TrimSpace(string(out)))
		}
		progress("loading " + t)
		file := filepath.Join(parquetDir, t+".parquet")
		q := fmt.Sprintf("INSERT INTO %s SELECT * FROM read_parquet('%s')", t, strings.ReplaceAll(file, "'", "''"))
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("load %s: %w", t, err)
		}
		if err := os.Remove(file); err != nil {
			return err
		}
	}
	if _, err := db.ExecContext(ctx, "CHECKPOINT"); err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dbPath)
}

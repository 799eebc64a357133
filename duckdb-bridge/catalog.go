package duckdbbridge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/rigel-db/rigel/internal/duckguard"
	"github.com/rigel-db/rigel/internal/sqltext"
)

var catalogSeq atomic.Int64

// CatalogSpec says where a catalog's tables come from.
type CatalogSpec struct {
	// DB is a DuckDB database file (optional). It must exist: DuckDB would
	// silently create a missing one.
	DB string
	// Parquet lists folders of Parquet data (optional). In each folder, a
	// file NAME.parquet becomes table NAME, and a subfolder NAME holding
	// .parquet files (a partitioned dataset) becomes table NAME.
	Parquet []string
	// Writable asks for a catalog that takes new tables (RegisterArrow, SQL
	// CREATE TABLE). Without it, a catalog that is only a DuckDB file is
	// opened read-only, which lets the engine cache plans.
	Writable bool
}

// OpenCatalog opens the DuckDB database that holds a catalog's tables, and
// returns it with an id naming it in cache keys and messages.
//
// A lone DuckDB file (not Writable) is opened read-only. Otherwise the
// catalog is an in-memory DuckDB database: the file, if any, is attached
// read-only and each of its tables gets a view of the same name in the main
// schema (so that bare table names work); each Parquet table is read once
// into an in-memory table (a snapshot: rigel's scans need a table that can
// be read again and again; restart to see new files).
func OpenCatalog(ctx context.Context, spec CatalogSpec) (*sql.DB, string, error) {
	warmExtensions()
	if spec.DB != "" {
		if err := checkFile(spec.DB); err != nil {
			return nil, "", err
		}
	}
	for _, dir := range spec.Parquet {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, "", fmt.Errorf("parquet folder %s does not exist or is not a folder", dir)
		}
	}
	if spec.DB != "" && len(spec.Parquet) == 0 && !spec.Writable {
		return openReadOnly(ctx, spec.DB)
	}
	db, err := openDuckDB("")
	if err != nil {
		return nil, "", err
	}
	// One in-memory database is shared by every connection of the pool
	// (duckdb-go opens them from one connector), so tables made on one
	// connection are seen by all.
	var ids []string
	if spec.DB != "" {
		abs, _ := filepath.Abs(spec.DB)
		if err := attachWithViews(ctx, db, abs); err != nil {
			db.Close()
			return nil, "", err
		}
		ids = append(ids, abs)
	}
	for _, dir := range spec.Parquet {
		abs, _ := filepath.Abs(dir)
		if err := loadParquetFolder(ctx, db, abs); err != nil {
			db.Close()
			return nil, "", err
		}
		ids = append(ids, "parquet:"+abs)
	}
	if len(ids) == 0 {
		ids = append(ids, "memory")
	}
	// The id must be unique per open: two in-memory catalogs never share
	// cached columns.
	return db, fmt.Sprintf("%s (catalog %d)", strings.Join(ids, " + "), catalogSeq.Add(1)), nil
}

// openDuckDB opens a DuckDB database whose statements keep clear of plan
// production (duckguard).
func openDuckDB(dsn string) (*sql.DB, error) {
	c, err := duckguard.NewConnector(dsn, nil)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

func checkFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("database file %s does not exist (make one with `rigel tpch-gen --sf 1 --db %s`, or give the path of a DuckDB file)", path, path)
		}
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("database file %s is a folder, not a DuckDB file (a folder of Parquet files goes with --parquet)", path)
	}
	return nil
}

func openReadOnly(ctx context.Context, path string) (*sql.DB, string, error) {
	abs, _ := filepath.Abs(path)
	db, err := openDuckDB(path + "?access_mode=read_only")
	if err != nil {
		return nil, "", fmt.Errorf("open %s: %w", path, err)
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("open %s: %w", path, err)
	}
	return db, abs, nil
}

// attachWithViews attaches a DuckDB file read-only and makes a view in the
// main schema for each of its tables. DuckDB expands views while binding, so
// plans scan the attached tables themselves.
func attachWithViews(ctx context.Context, db *sql.DB, path string) error {
	alias := "db_" + sanitizeIdent(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if _, err := db.ExecContext(ctx, fmt.Sprintf("ATTACH %s AS %s (READ_ONLY)", sqltext.String(path), sqltext.Ident(alias))); err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	rows, err := db.QueryContext(ctx, "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY 1, 2", alias)
	if err != nil {
		return fmt.Errorf("list the tables of %s: %w", path, err)
	}
	var stmts []string
	for rows.Next() {
		var schema, table string
		if err := rows.Scan(&schema, &table); err != nil {
			rows.Close()
			return err
		}
		if schema != "main" {
			continue // reachable as alias.schema.table
		}
		stmts = append(stmts, fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM %s.main.%s", sqltext.Ident(table), sqltext.Ident(alias), sqltext.Ident(table)))
	}
	rows.Close()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("open %s: %w", path, err)
		}
	}
	return nil
}

// loadParquetFolder makes one table per Parquet file or dataset folder.
func loadParquetFolder(ctx context.Context, db *sql.DB, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("parquet folder %s: %w", dir, err)
	}
	tables := map[string]string{} // table name -> read_parquet glob
	for _, e := range entries {
		name := e.Name()
		switch {
		case !e.IsDir() && strings.HasSuffix(strings.ToLower(name), ".parquet"):
			tables[name[:len(name)-len(".parquet")]] = filepath.Join(dir, name)
		case e.IsDir() && holdsParquet(filepath.Join(dir, name)):
			// DuckDB's ** matches any depth, zero included (hive partitions).
			tables[name] = filepath.Join(dir, name, "**", "*.parquet")
		}
	}
	if len(tables) == 0 {
		return fmt.Errorf("parquet folder %s holds no .parquet files (want NAME.parquet files or NAME/ folders of them)", dir)
	}
	names := make([]string, 0, len(tables))
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		q := fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM read_parquet(%s)", sqltext.Ident(n), sqltext.String(tables[n]))
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("parquet table %s (%s): %w", n, tables[n], err)
		}
	}
	return nil
}

// holdsParquet says whether a folder holds a .parquet file at any depth.
func holdsParquet(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(strings.ToLower(p), ".parquet") {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

func sanitizeIdent(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

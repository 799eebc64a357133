package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// The program prints the same through rigel (host device) as through
// duckdb-go, on a database file of its own.
func TestSameOutputAsDuckDB(t *testing.T) {
	dir := t.TempDir()
	var got, want bytes.Buffer
	driverName = "rigel"
	if err := run(&got, filepath.Join(dir, "rigel.duckdb")+"?rigel_device=host"); err != nil {
		t.Fatal(err)
	}
	driverName = "duckdb"
	defer func() { driverName = "rigel" }()
	if err := run(&want, filepath.Join(dir, "duckdb.duckdb")); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("rigel printed\n%s\nduckdb-go printed\n%s", got.String(), want.String())
	}
	if !strings.Contains(got.String(), "west") || strings.Count(got.String(), "\n") < 8 {
		t.Fatalf("unexpected output:\n%s", got.String())
	}
	t.Logf("\n%s", got.String())
}

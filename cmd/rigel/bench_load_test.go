package main

import (
	"strings"
	"testing"
)

// bench load loads every table's columns and reports each table's load
// and each column's device bytes against its plain size; a table that
// does not exist is named in its row, and the others still load.
func TestBenchLoad(t *testing.T) {
	db := smallDB(t)
	o := rigel(t, "bench", "load", "--db", db, "--device", "host")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	for _, want := range []string{"| t | 1 | 3 |", "| all | 1 |", "| t.a | int64 | 3 | 0.0 | 0.0 | 8.00 | 1.00x |"} {
		if !strings.Contains(o.stdout, want) {
			t.Fatalf("no %q in:\n%s", want, o.stdout)
		}
	}
	o = rigel(t, "bench", "load", "--db", db, "--device", "host", "--tables", "missing,t")
	if o.code != 0 || !strings.Contains(o.stdout, "| missing | error: ") || !strings.Contains(o.stdout, "| t | 1 | 3 |") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr: %s", o.code, o.stdout, o.stderr)
	}
}

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// One engine, several host threads: every answer right, error texts per
// thread, and a close while calls are in flight neither crashes nor cuts a
// running call short (threads.c checks and exits 3 otherwise).
func TestCThreads(t *testing.T) {
	prog := compileC(t, "example/threads.c", "-pthread")
	dir := t.TempDir()
	dbFile := filepath.Join(dir, "th.duckdb")
	db := testDB(t, dbFile)
	planFile := writeFile(t, dir, "q.pb", plan(t, db, planQuery))
	db.Close()
	const query = "SELECT s, count(*) AS n, sum(b) AS sb FROM t GROUP BY s ORDER BY s NULLS FIRST"
	out, err := exec.Command(prog, dbFile, "host", planFile, query).CombinedOutput()
	if err != nil {
		t.Fatalf("threads: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), " 0 wrong") {
		t.Fatalf("threads:\n%s", out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}

package main

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"google.golang.org/protobuf/proto"
)

// compileC builds one of the example programs against the library.
func compileC(t *testing.T, src string, extra ...string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no gcc on this machine")
		}
		t.Skip("no gcc on this machine")
	}
	prog := filepath.Join(t.TempDir(), strings.TrimSuffix(filepath.Base(src), ".c"))
	args := append([]string{"-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror", "-I", ".", "-o", prog, src,
		"-L", libDir, "-lrigel", "-Wl,-rpath," + libDir}, extra...)
	if out, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", src, err, out)
	}
	return prog
}

// unknownFunctionPlan is a good plan whose "add" function is renamed to
// one no extension declares.
func unknownFunctionPlan(t *testing.T, db *sql.DB, query string) []byte {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	p, err := duckdbbridge.ProducePlan(ctx, conn, query)
	if err != nil {
		t.Fatal(err)
	}
	renamed := false
	for _, ext := range p.Extensions {
		if f := ext.GetExtensionFunction(); f != nil && strings.HasPrefix(f.Name, "add:") {
			f.Name = "frobnicate:i64_i64"
			renamed = true
		}
	}
	if !renamed {
		t.Fatalf("the plan of %q declares no add function to rename", query)
	}
	b, err := proto.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Bad input through the C ABI: each is -1 with a text naming the problem,
// the engine keeps answering, out parameters stay untouched, registered
// streams are released exactly once (errors.c checks those and exits 3 if
// one is broken), and an answer stream outlives its engine's close.
func TestCErrors(t *testing.T) {
	prog := compileC(t, "example/errors.c")
	dir := t.TempDir()
	dbFile := filepath.Join(dir, "e.duckdb")
	db := testDB(t, dbFile)
	write := func(name string, b []byte) string { return writeFile(t, dir, name, b) }
	good := write("good.pb", plan(t, db, planQuery))
	fn := write("fn.pb", unknownFunctionPlan(t, db, "SELECT a + b AS x FROM t"))
	// A plan over a table the catalog does not have: made on another
	// database that has one.
	other, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec("CREATE TABLE ghost_table AS SELECT range AS x FROM range(10)"); err != nil {
		t.Fatal(err)
	}
	ghost := write("ghost.pb", plan(t, other, "SELECT sum(x) FROM ghost_table"))
	wantRows := answer(t, db, planQuery).NumRows()
	db.Close()

	cmd := exec.Command(prog, dbFile, "host", good, "unknown-table="+ghost, "unknown-function="+fn)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("errors: %v\n%s\n%s", err, stdout, stderr.String())
	}
	lines := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(stdout)), "\n") {
		f := strings.Split(line, "\t")
		lines[f[0]] = f[1:]
	}
	if got := lines["good"]; len(got) != 1 || got[0] != strconv.FormatInt(wantRows, 10) {
		t.Fatalf("the good plan gave %v rows, want %d", got, wantRows)
	}
	want := map[string]string{ // label: a piece of the text it must give
		"unknown-table":             `table "ghost_table" does not exist`,
		"unknown-function":          `unknown function "frobnicate:i64_i64"`,
		"truncated":                 "malformed substrait plan",
		"null-plan":                 "the plan is NULL or empty",
		"empty-plan":                "the plan is NULL or empty",
		"null-out":                  "out stream pointer is NULL",
		"null-sql":                  "the query is NULL",
		"bad-sql":                   "Parser Error",
		"unknown-table-sql":         "no_such_table",
		"ddl-sql":                   "this is a CREATE statement",
		"attach-sql":                "this is an ATTACH/DETACH statement",
		"copy-sql":                  "this is a COPY/EXPORT statement",
		"set-sql":                   "this is a SET statement",
		"explain-analyze-write-sql": "EXPLAIN ANALYZE: only queries",
		"two-statements-sql":        "one statement at a time",
		"handle-0":                  "engine handle 0 is no engine",
		"null-stream":               "the stream is NULL",
		"null-name":                 "table name is NULL or empty",
		"released-stream":           "released already",
		"failing-stream":            "the disk is on fire",
		"bad-handle-register":       "not open",
		"bad-handle":                "not open",
		"missing-catalog":           "/nonexistent/catalog.duckdb",
		"bad-device":                `"tpu"`,
		"closed-handle":             "not open",
		"c-stream":                  "", // succeeds
	}
	for label, text := range want {
		got, ok := lines[label]
		if !ok || len(got) != 2 {
			t.Errorf("%s: no line from errors (stdout:\n%s)", label, stdout)
			continue
		}
		if text == "" {
			if got[0] != "0" || got[1] != "" {
				t.Errorf("%s: rc %s, error %q; want 0 and no error", label, got[0], got[1])
			}
			continue
		}
		if got[0] != "-1" {
			t.Errorf("%s: rc %s, want -1", label, got[0])
		}
		if !strings.Contains(got[1], text) {
			t.Errorf("%s: error %q does not say %q", label, got[1], text)
		}
	}
	// The stream made in C (c_stream.h): 5 batches of 1000 rows of 1..5000,
	// multiples of 10 NULL.
	var nx, sx int64
	for v := int64(1); v <= 5000; v++ {
		if v%10 != 0 {
			nx++
			sx += v
		}
	}
	if got, want := strings.Join(lines["c_ints"], " "), "5000 "+strconv.FormatInt(nx, 10)+" "+strconv.FormatInt(sx, 10); got != want {
		t.Errorf("the C stream registered and summed: %s, want %s", got, want)
	}
	if got := lines["after-close-rows"]; len(got) != 1 || got[0] != strconv.FormatInt(wantRows, 10) {
		t.Errorf("a stream read after its engine's close gave %v rows, want %d", got, wantRows)
	}
}

package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rigel-db/rigel/gpu/cuda"
)

var rigelBin string

// TestMain builds the real binary once: exit codes and stderr are part of
// the command line's contract.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rigel-cli")
	if err != nil {
		panic(err)
	}
	rigelBin = filepath.Join(dir, "rigel")
	build := exec.Command("go", "build", "-o", rigelBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building rigel: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type outcome struct {
	code           int
	stdout, stderr string
}

func rigel(t *testing.T, args ...string) outcome {
	t.Helper()
	cmd := exec.Command(rigelBin, args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return outcome{code, so.String(), se.String()}
}

// oneLineError checks a failed command: non-zero exit, one stderr line
// naming the problem, no Go panic.
func oneLineError(t *testing.T, o outcome, want string) {
	t.Helper()
	if o.code == 0 {
		t.Fatalf("exit 0, want failure; stdout %q", o.stdout)
	}
	if strings.Contains(o.stderr, "panic") || strings.Contains(o.stderr, "goroutine ") {
		t.Fatalf("panicked: %s", o.stderr)
	}
	lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
	if len(lines) != 1 {
		t.Fatalf("stderr has %d lines, want 1: %q", len(lines), o.stderr)
	}
	if !strings.Contains(lines[0], want) {
		t.Fatalf("stderr %q does not mention %q", lines[0], want)
	}
}

// smallDB makes a DuckDB file with table t(a BIGINT NOT NULL) = 1, 2, 3.
func smallDB(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "small.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE t (a BIGINT NOT NULL); INSERT INTO t VALUES (1), (2), (3)"); err != nil {
		t.Fatal(err)
	}
	return path
}

func haveGPU() bool {
	d, err := cuda.Open()
	if err != nil {
		return false
	}
	d.Close()
	return true
}

func TestDoctorWithoutGPU(t *testing.T) {
	if haveGPU() {
		t.Skip("SKIP: this machine has a GPU; the no-GPU message cannot be checked here")
	}
	o := rigel(t, "doctor")
	if o.code != 0 {
		t.Fatalf("doctor exit %d, want 0 (stderr %q)", o.code, o.stderr)
	}
	out := strings.TrimSpace(o.stdout)
	if strings.Count(out, "\n") != 0 || !strings.HasPrefix(out, "rigel doctor: no GPU") {
		t.Fatalf("doctor said %q, want one line starting 'rigel doctor: no GPU'", out)
	}
}

func TestQueryDeviceCudaWithoutGPU(t *testing.T) {
	if haveGPU() {
		t.Skip("SKIP: this machine has a GPU")
	}
	oneLineError(t, rigel(t, "query", "--db", smallDB(t), "--device", "cuda", "SELECT 1"), "no GPU")
}

func TestMissingDatabaseFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.duckdb")
	oneLineError(t, rigel(t, "query", "--db", missing, "--device", "host", "SELECT 1"), "does not exist")
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("the missing database file was created")
	}
}

func TestMalformedPlan(t *testing.T) {
	oneLineError(t, rigel(t, "plan", "--db", smallDB(t), "--device", "host", "testdata/malformed.json"), "malformed substrait plan")
}

func TestGarbagePlan(t *testing.T) {
	p := filepath.Join(t.TempDir(), "garbage.pb")
	os.WriteFile(p, []byte{0xff, 0xff, 0xff, 0x01, 0x02}, 0o644)
	oneLineError(t, rigel(t, "plan", "--db", smallDB(t), "--device", "host", p), "malformed substrait plan")
}

func TestUnknownFunction(t *testing.T) {
	oneLineError(t, rigel(t, "plan", "--db", smallDB(t), "--device", "host", "testdata/unknown-function.json"), "frobnicate")
}

func TestPlanRunsOnHost(t *testing.T) {
	o := rigel(t, "plan", "--db", smallDB(t), "--device", "host", "--format", "csv", "testdata/add.json")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if want := "a,a_plus_a\n1,2\n2,4\n3,6\n"; o.stdout != want {
		t.Fatalf("stdout %q, want %q", o.stdout, want)
	}
}

func TestSQLErrorFromDuckDB(t *testing.T) {
	o := rigel(t, "query", "--db", smallDB(t), "--device", "host", "SELECT nope FROM t")
	oneLineError(t, o, "nope")
}

func TestQueryOnHostDevice(t *testing.T) {
	o := rigel(t, "query", "--db", smallDB(t), "--device", "host", "--format", "csv",
		"SELECT sum(a) AS s, count(*) AS n FROM t WHERE a > 1")
	if o.code != 0 {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if want := "s,n\n5,2\n"; o.stdout != want {
		t.Fatalf("stdout %q, want %q", o.stdout, want)
	}
	if !strings.Contains(o.stderr, "ran on host") {
		t.Fatalf("stderr %q does not say it ran on host", o.stderr)
	}
}

// SQL text that begins with a comment or a minus sign is SQL, not a flag;
// "--" ends the flags.
func TestSQLThatLooksLikeAFlag(t *testing.T) {
	db := smallDB(t)
	o := rigel(t, "query", "--db", db, "--device", "host", "--format", "csv", "-- total\nSELECT sum(a) AS s FROM t")
	if o.code != 0 || o.stdout != "s\n6\n" {
		t.Fatalf("a query starting with a comment: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	o = rigel(t, "query", "--db", db, "--device", "host", "--format", "csv", "--", "-a AS n FROM t ORDER BY n")
	if o.code == 0 || strings.Contains(o.stderr, "flag provided but not defined") {
		t.Fatalf("after --, the text went to the flag parser: exit %d, stderr %q", o.code, o.stderr)
	}
	o = rigel(t, "query", "--db", db, "--device", "host", "--format", "csv", "--", "SELECT -min(a) AS n FROM t")
	if o.code != 0 || o.stdout != "n\n-1\n" {
		t.Fatalf("SQL after --: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	if o := rigel(t, "query", "--db", db, "--nope", "SELECT 1"); o.code == 0 || !strings.Contains(o.stderr, "flag provided but not defined: -nope") {
		t.Fatalf("an unknown flag: exit %d, stderr %q", o.code, o.stderr)
	}
}

// Without --db, rigel query runs on an in-memory DuckDB and reads files,
// as DuckDB's CLI does; commands that need tables still ask for --db.
func TestQueryWithoutDatabaseReadsFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(fmt.Sprintf("COPY (SELECT range AS a FROM range(5)) TO '%s'", path)); err != nil {
		t.Fatal(err)
	}
	o := rigel(t, "query", "--device", "host", "--format", "csv", fmt.Sprintf("SELECT sum(a) AS s FROM '%s'", path))
	if o.code != 0 || o.stdout != "s\n10\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	if o := rigel(t, "bench", "tpch", "--device", "host"); o.code == 0 || !strings.Contains(o.stderr, "--db FILE is required") {
		t.Fatalf("bench without --db: exit %d, stderr %q", o.code, o.stderr)
	}
}

// --format json keeps the columns in order, duplicate names included, and
// writes NaN and infinities (no JSON numbers) as text; --format table
// lines up wide characters.
func TestQueryOutputFormats(t *testing.T) {
	o := rigel(t, "query", "--device", "host", "--format", "json",
		"SELECT 2 AS b, 1 AS a, 3 AS a, 'nan'::DOUBLE AS n, '-inf'::DOUBLE AS i, 0.5::DOUBLE AS f, NULL::INTEGER AS z")
	if want := `[{"b":2,"a":1,"a":3,"n":"nan","i":"-inf","f":0.5,"z":null}]` + "\n"; o.code != 0 || o.stdout != want {
		t.Fatalf("json: exit %d, stdout %q, want %q; stderr %q", o.code, o.stdout, want, o.stderr)
	}
	o = rigel(t, "query", "--device", "host", "SELECT * FROM (VALUES ('日本語', 'é'), ('x', 'ab😀')) v(wide, mixed) ORDER BY 1")
	if o.code != 0 {
		t.Fatalf("table: exit %d, stderr %q", o.code, o.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n")
	if len(lines) != 6 || !strings.Contains(o.stdout, "日本語") {
		t.Fatalf("table:\n%s", o.stdout)
	}
	for _, l := range lines {
		if w := runewidth.StringWidth(l); w != runewidth.StringWidth(lines[0]) {
			t.Fatalf("table lines differ in width (%d, %d):\n%s", runewidth.StringWidth(lines[0]), w, o.stdout)
		}
	}
}

// --host-memory sets the host device's budget: past it a query falls back
// to DuckDB and says why; a bad size or another device is refused.
func TestHostMemoryFlag(t *testing.T) {
	db := smallDB(t)
	o := rigel(t, "query", "--db", db, "--device", "host", "--host-memory", "1KB", "--format", "csv", "SELECT x.a AS a FROM t x, t y, t z, t w ORDER BY 1 LIMIT 1")
	if o.code != 0 || o.stdout != "a\n1\n" || !strings.Contains(o.stderr, "--host-memory") {
		t.Fatalf("a 1 KB budget: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--device", "host", "--host-memory", "lots"}, `--host-memory: "lots" is not a positive size`},
		{[]string{"--device", "duckdb", "--host-memory", "1GB"}, "--host-memory goes with --device host"},
	} {
		o := rigel(t, append(append([]string{"query", "--db", db}, c.args...), "SELECT 1")...)
		if o.code == 0 || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, o.code, o.stderr, c.want)
		}
	}
}

// --device-memory bounds what plans may use: under a budget far below a
// table, EXPLAIN shows its scan streamed in segments and the answer stays
// DuckDB's; a bad size is refused.
func TestDeviceMemoryFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t AS SELECT range AS a, range % 7 AS g FROM range(50000)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	q := "SELECT g, sum(a) AS s, count(*) AS n FROM t GROUP BY g ORDER BY g"
	// The host device's own memory (--host-memory) holds a segment and its
	// groups; the plan is made for 64 KB.
	o := rigel(t, "explain", "--db", path, "--device", "host", "--host-memory", "4MB", "--device-memory", "64KB", q)
	if o.code != 0 || !strings.Contains(o.stdout, "Chunked scan of t in 13 segment(s) of 4096 rows") {
		t.Fatalf("explain under 64 KB: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	got := rigel(t, "query", "--db", path, "--device", "host", "--host-memory", "4MB", "--device-memory", "64KB", "--format", "csv", q)
	want := rigel(t, "query", "--db", path, "--device", "duckdb", "--format", "csv", q)
	if got.code != 0 || got.stdout != want.stdout || !strings.Contains(got.stderr, "ran on host") {
		t.Fatalf("query under 64 KB: exit %d, stdout %q (DuckDB %q), stderr %q", got.code, got.stdout, want.stdout, got.stderr)
	}
	for _, device := range []string{"auto", "host"} { // with host it would be the host device's budget too
		if o := rigel(t, "query", "--db", path, "--device", device, "--device-memory", "lots", "SELECT 1"); o.code == 0 || !strings.Contains(o.stderr, `--device-memory: "lots" is not a positive size`) {
			t.Errorf("--device %s --device-memory lots: exit %d, stderr %q", device, o.code, o.stderr)
		}
	}
}

// csv and json stream the answer batch by batch: an answer of many
// batches comes out whole, one header, one JSON array.
func TestQueryStreamsManyBatches(t *testing.T) {
	const n = 50000 // DuckDB hands out 2,048 rows a batch
	o := rigel(t, "query", "--device", "duckdb", "--format", "csv", fmt.Sprintf("SELECT range AS a FROM range(%d)", n))
	if lines := strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n"); o.code != 0 || len(lines) != n+1 || lines[0] != "a" || lines[n] != fmt.Sprint(n-1) {
		t.Fatalf("csv: exit %d, %d lines, stderr %q", o.code, len(lines), o.stderr)
	}
	if !strings.Contains(o.stderr, fmt.Sprintf("%d rows", n)) {
		t.Fatalf("csv status: %q", o.stderr)
	}
	o = rigel(t, "query", "--device", "duckdb", "--format", "json", fmt.Sprintf("SELECT range AS a FROM range(%d)", n))
	var rows []map[string]int64
	if err := json.Unmarshal([]byte(o.stdout), &rows); err != nil || len(rows) != n || rows[n-1]["a"] != n-1 {
		t.Fatalf("json: exit %d, %d rows, %v; stderr %q", o.code, len(rows), err, o.stderr)
	}
}

package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// The tests build the shared library for real (go build -buildmode=c-shared)
// and drive it from C and from Python, as a host would. RIGEL_LIBRIGEL may
// name a library built already (make capi builds bin/librigel.so).

var libDir string

func TestMain(m *testing.M) {
	code := func() int {
		if lib := os.Getenv("RIGEL_LIBRIGEL"); lib != "" {
			libDir = filepath.Dir(lib)
			return m.Run()
		}
		dir, err := os.MkdirTemp("", "rigel-capi")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(dir)
		build := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(dir, "librigel.so"), ".")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			panic("building librigel.so: " + err.Error())
		}
		libDir = dir
		return m.Run()
	}()
	os.Exit(code)
}

// testTable has every type the examples print, with NULLs in each nullable
// column.
const testTable = `CREATE TABLE t AS SELECT
	i::INTEGER AS a,
	CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1000003 END::BIGINT AS b,
	CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 12.34)::DECIMAL(15,2) END AS d,
	CASE WHEN i % 4 = 0 THEN NULL ELSE 'k' || (i % 3) END AS s,
	CASE WHEN i % 6 = 0 THEN NULL ELSE DATE '1990-01-01' + i::INTEGER END AS dt,
	CASE WHEN i % 9 = 0 THEN NULL ELSE i / 7.0 END::DOUBLE AS f
	FROM range(1, 500) r(i)`

const planQuery = `SELECT s, count(*) AS n, sum(d) AS total, min(a) AS first, max(b) AS mb, sum(f) AS sf
	FROM t WHERE a > 3 GROUP BY s ORDER BY s NULLS FIRST`

// testDB makes a DuckDB file at path holding testTable; the caller closes
// it (before a C program opens the file).
func testDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(testTable); err != nil {
		t.Fatal(err)
	}
	return db
}

// writeFile writes b into dir and returns the path.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// plan produces the Substrait plan of a query over db, as bytes.
func plan(t *testing.T, db *sql.DB, query string) []byte {
	t.Helper()
	b, err := duckdbbridge.PlanBytes(context.Background(), db, query)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// answer is DuckDB's own answer (the oracle).
func answer(t *testing.T, db *sql.DB, query string) arrow.RecordBatch {
	t.Helper()
	e := duckdbbridge.NewEngine(db, "oracle", nil, "oracle")
	r, err := e.RunOnDuckDB(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Release)
	return r.Record
}

func TestCProgram(t *testing.T) {
	prog := compileC(t, "example/run_plan.c")
	dir := t.TempDir()
	dbFile := filepath.Join(dir, "c.duckdb")
	db := testDB(t, dbFile)
	planFile := writeFile(t, dir, "q.pb", plan(t, db, planQuery))
	const sqlQuery = "SELECT a, b, d, s, dt, f FROM t WHERE a % 50 = 1 ORDER BY a"
	wantPlan, wantSQL := answer(t, db, planQuery), answer(t, db, sqlQuery)
	db.Close() // the C program opens the file itself

	cmd := exec.Command(prog, dbFile, "host", planFile, sqlQuery)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("run_plan: %v\n%s", err, stderr.String())
	}
	planOut, sqlOut, ok := strings.Cut(string(stdout), "--sql\n")
	if !ok {
		t.Fatalf("run_plan printed no SQL answer:\n%s", stdout)
	}
	if err := arrowfmt.CompareTSV(planOut, wantPlan); err != nil {
		t.Fatalf("the plan through C: %v", err)
	}
	if err := arrowfmt.CompareTSV(sqlOut, wantSQL); err != nil {
		t.Fatalf("the SQL through C: %v", err)
	}
	for _, check := range []string{"error-check truncated plan: malformed", "error-check SQL: Parser Error", "error-check open: "} {
		if !strings.Contains(stderr.String(), check) {
			t.Fatalf("run_plan's stderr lacks %q:\n%s", check, stderr.String())
		}
	}
}

// Python hands a pyarrow table over as an Arrow C stream (ctypes), runs a
// Substrait plan and SQL over it, and takes the answers back as streams.
func TestPythonCtypes(t *testing.T) {
	py, _ := filepath.Abs(filepath.Join("..", ".tools", "py"))
	if _, err := os.Stat(filepath.Join(py, "pyarrow")); err != nil {
		msg := "pyarrow not found under .tools/py: run `make setup`"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(strings.Replace(testTable, "CREATE TABLE t", "CREATE TABLE py_t", 1)); err != nil {
		t.Fatal(err)
	}
	parquet := filepath.Join(dir, "py_t.parquet")
	if _, err := db.Exec(fmt.Sprintf("COPY py_t TO '%s' (FORMAT parquet)", parquet)); err != nil {
		t.Fatal(err)
	}
	q := strings.ReplaceAll(planQuery, "FROM t ", "FROM py_t ")
	planFile := writeFile(t, dir, "q.pb", plan(t, db, q))
	const sqlQuery = "SELECT s, count(*) AS n, sum(b) AS sb FROM py_t GROUP BY s ORDER BY s NULLS LAST"
	cmd := exec.Command("python3", "example/run_plan.py", filepath.Join(libDir, "librigel.so"), parquet, "py_t", planFile, sqlQuery, dir)
	// A library with this much static TLS (DuckDB's and Go's thread
	// locals) needs glibc to reserve more of it to be dlopen'ed: see
	// capi/README.md.
	cmd.Env = append(os.Environ(), "PYTHONPATH="+py, "GLIBC_TUNABLES=glibc.rtld.optional_static_tls=16384")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run_plan.py: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "error-check garbage plan: malformed") {
		t.Fatalf("run_plan.py did not report the garbage plan's error:\n%s", out)
	}
	for file, query := range map[string]string{"plan.arrow": q, "sql.arrow": sqlQuery} {
		got, err := arrowfmt.ReadIPCFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := arrowfmt.Compare(got, answer(t, db, query), true); err != nil {
			t.Fatalf("%s through Python and the C ABI: %v", file, err)
		}
		got.Release()
	}
}

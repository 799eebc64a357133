package serve

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// Clients nobody here wrote, against the server: ADBC's Flight SQL driver
// and pyarrow.flight (Python), and Apache Arrow's Flight SQL JDBC driver
// (Java). make setup installs them under .tools; without them the tests
// skip, except under CI, where a missing client is a failure.

const jdbcJar = "../.tools/jars/flight-sql-jdbc-driver-18.3.0.jar"

func needTool(t *testing.T, what, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	msg := fmt.Sprintf("%s not found at %s: run `make setup`", what, path)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// clientQueries are the TPC-H queries the outside clients run: Q1 and Q6 on
// the device, Q3 on the DuckDB fallback.
var clientQueries = []int{1, 3, 6}

func writeQueries(t *testing.T, dir string) []string {
	var files []string
	for _, n := range clientQueries {
		f := filepath.Join(dir, fmt.Sprintf("q%d.sql", n))
		if err := os.WriteFile(f, []byte(tpchQuery(t, n)), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

func runClient(t *testing.T, name string, args []string, env ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func TestPythonClients(t *testing.T) {
	py := filepath.Join("..", ".tools", "py")
	needTool(t, "adbc_driver_flightsql and pyarrow", filepath.Join(py, "adbc_driver_flightsql"))
	ts := startServer(t, Options{Token: "py-token"})
	dir := t.TempDir()
	files := writeQueries(t, dir)
	q6 := tpchQuery(t, 6)
	planFile := filepath.Join(dir, "q6.pb")
	if err := os.WriteFile(planFile, producePlan(t, ts, q6), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"clients/flightsql_client.py", "grpc://" + ts.addr, dir}, files...)
	args = append(args, "--plan", planFile, "--token", "py-token")
	abs, _ := filepath.Abs(py)
	runClient(t, "python3", args, "PYTHONPATH="+abs)
	for _, n := range clientQueries {
		want := duckAnswer(t, ts, tpchQuery(t, n))
		for _, via := range []string{"adbc", "flight"} {
			got, err := arrowfmt.ReadIPCFile(filepath.Join(dir, fmt.Sprintf("q%d.sql.%s.arrow", n, via)))
			if err != nil {
				t.Fatal(err)
			}
			if err := arrowfmt.Compare(got, want, true); err != nil {
				t.Fatalf("Q%d through Python %s: %v", n, via, err)
			}
			got.Release()
		}
	}
	got, err := arrowfmt.ReadIPCFile(filepath.Join(dir, "q6.pb.adbc.arrow"))
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if err := arrowfmt.Compare(got, duckAnswer(t, ts, q6), true); err != nil {
		t.Fatalf("the Substrait plan of Q6 through ADBC: %v", err)
	}
	if !ts.log.has("(substrait): ran on host") {
		t.Fatal("the query log shows no Substrait plan run on the device")
	}
}

func TestJDBCClient(t *testing.T) {
	needTool(t, "the Flight SQL JDBC driver", jdbcJar)
	java, err := exec.LookPath("java")
	if err != nil {
		needTool(t, "java", "java")
	}
	ts := startServer(t, Options{Token: "jdbc-token"})
	dir := t.TempDir()
	files := writeQueries(t, dir)
	url := "jdbc:arrow-flight-sql://" + ts.addr + "?useEncryption=false&token=jdbc-token"
	args := append([]string{"--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", jdbcJar, "clients/JdbcClient.java", url, dir}, files...)
	runClient(t, java, args)
	for _, n := range clientQueries {
		want := duckAnswer(t, ts, tpchQuery(t, n))
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("q%d.sql.jdbc.tsv", n)))
		if err != nil {
			t.Fatal(err)
		}
		if err := arrowfmt.CompareTSV(string(data), want); err != nil {
			t.Fatalf("Q%d through JDBC: %v", n, err)
		}
	}
	tables, err := os.ReadFile(filepath.Join(dir, "tables.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tables), "lineitem") {
		t.Fatalf("JDBC's getTables does not list lineitem: %q", tables)
	}
}

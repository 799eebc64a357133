package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/rigel-db/rigel/conformance/tpch"
)

// The shell tests open TPC-H SF0.01, built once into .tools/data with
// tpchgen-cli (make setup installs it), as the server's tests do.
var (
	shellDBOnce sync.Once
	shellDBPath string
	shellDBErr  error
)

func shellTPCH(t *testing.T) string {
	shellDBOnce.Do(func() {
		root := filepath.Join("..", "..")
		dir := filepath.Join(root, ".tools", "data")
		shellDBPath = filepath.Join(dir, "tpch-sf0.01.duckdb")
		if _, err := os.Stat(shellDBPath); err == nil {
			return
		}
		if shellDBErr = os.MkdirAll(dir, 0o755); shellDBErr != nil {
			return
		}
		gen, err := tpch.FindGenerator(root)
		if err != nil {
			shellDBErr = err
			return
		}
		shellDBErr = tpch.Build(context.Background(), gen, 0.01, shellDBPath, nil)
	})
	if shellDBErr != nil {
		t.Fatalf("TPC-H database: %v", shellDBErr)
	}
	return shellDBPath
}

const shellQuery = `SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, count(*) AS n
FROM lineitem WHERE l_shipdate <= DATE '1998-09-02' GROUP BY 1, 2 ORDER BY 1, 2`

// duckRows runs a query on DuckDB through database/sql (the oracle), every
// value cast to text by DuckDB itself.
func duckRows(t *testing.T, dbPath, query string, ncol int) [][]string {
	t.Helper()
	db, err := sql.Open("duckdb", dbPath+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT COLUMNS(*)::VARCHAR FROM (" + query + ")")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, ncol)
		ptrs := make([]any, ncol)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, ncol)
		for i, v := range vals {
			row[i] = v.String
			if !v.Valid {
				row[i] = "NULL"
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// boxRows reads the data rows of duckbox output: the lines between the
// ├ rule and the └ rule, split at │.
func boxRows(out string) [][]string {
	var rows [][]string
	in := false
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r ")
		switch {
		case strings.HasPrefix(line, "├"):
			in = true
		case strings.HasPrefix(line, "└"):
			in = false
		case in && strings.HasPrefix(line, "│"):
			var row []string
			for _, cell := range strings.Split(strings.Trim(line, "│"), "│") {
				row = append(row, strings.TrimSpace(cell))
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// ptyShell is `rigel shell` on a pseudo-terminal, with everything it wrote.
type ptyShell struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan error
}

func startPtyShell(t *testing.T, env []string, args ...string) *ptyShell {
	cmd := exec.Command(rigelBin, append([]string{"shell"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		t.Fatalf("start rigel shell on a pty: %v", err)
	}
	s := &ptyShell{t: t, cmd: cmd, tty: tty, done: make(chan error, 1)}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
		tty.Close()
	})
	return s
}

func (s *ptyShell) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.ReplaceAll(s.out.String(), "\r\n", "\n")
}

// mark is the length of the output so far: expect looks after it.
func (s *ptyShell) mark() int { return len(s.output()) }

func (s *ptyShell) send(keys string) {
	s.t.Helper()
	if _, err := s.tty.Write([]byte(keys)); err != nil {
		s.t.Fatalf("write to the pty: %v", err)
	}
}

// expect waits until the output after mark holds want, and returns that
// output.
func (s *ptyShell) expect(from int, want string) string {
	s.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out := s.output()[from:]
		if strings.Contains(out, want) {
			return out
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no %q in the shell's output within 60s; it wrote:\n%s", want, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestShellOnPty(t *testing.T) {
	dbPath := shellTPCH(t)
	hist := filepath.Join(t.TempDir(), "history")
	s := startPtyShell(t, []string{"RIGEL_HISTORY=" + hist, "HOME=" + t.TempDir()}, "--db", dbPath, "--device", "host")
	s.expect(0, "D ")

	m := s.mark()
	s.send(".timer on\r")
	s.expect(m, "D ")

	// The query over two lines: the second gets the continuation prompt.
	lines := strings.SplitN(shellQuery, "\n", 2)
	m = s.mark()
	s.send(lines[0] + "\r")
	s.expect(m, shellContPrompt)
	s.send(lines[1] + ";\r")
	out := s.expect(m, "Run Time (s): real ")
	out = s.expect(m, "D ")
	want := duckRows(t, dbPath, shellQuery, 4)
	got := boxRows(out)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("query rows %v, DuckDB says %v; output:\n%s", got, want, out)
	}
	if !strings.Contains(out, "ran on host") {
		t.Fatalf("the timer line does not say where the query ran:\n%s", out)
	}
	if !strings.Contains(out, "decimal(38,2)") || !strings.Contains(out, "sum_qty") {
		t.Fatalf("no duckbox header (names and types):\n%s", out)
	}

	// EXPLAIN shows where each operator runs.
	m = s.mark()
	s.send("EXPLAIN " + strings.ReplaceAll(shellQuery, "\n", " ") + ";\r")
	out = s.expect(m, "Run Time (s)")
	for _, op := range []string{"[host] Sort", "HashAggregate", "[host] Scan lineitem"} {
		if !strings.Contains(out, op) {
			t.Fatalf("EXPLAIN output lacks %q:\n%s", op, out)
		}
	}
	m = s.mark()
	s.send("EXPLAIN SELECT * FROM range(3);\r")
	s.expect(m, "[FALLBACK] the whole query runs on DuckDB: ")
	// EXPLAIN ANALYZE of a query runs it on rigel and says what each
	// operator did.
	m = s.mark()
	s.send("EXPLAIN ANALYZE " + strings.ReplaceAll(shellQuery, "\n", " ") + ";\r")
	out = s.expect(m, "Run Time (s)")
	for _, part := range []string{"[host] Scan lineitem", " rows", "run: 4 rows; plan ", "compiler: ", "precompiled path: "} {
		if !strings.Contains(out, part) {
			t.Fatalf("EXPLAIN ANALYZE output lacks %q:\n%s", part, out)
		}
	}

	// A table wider than the terminal (160 columns) is fitted into it.
	m = s.mark()
	s.send("SELECT * FROM lineitem ORDER BY l_orderkey, l_linenumber LIMIT 3;\r")
	out = s.expect(m, "16 columns (")
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "│") && width(l) > 160 {
			t.Fatalf("a line of %d characters on a 160-column terminal:\n%s", width(l), out)
		}
	}

	// A wrong statement shows DuckDB's error and the shell goes on.
	m = s.mark()
	s.send("SELECT nope FROM lineitem;\r")
	s.expect(m, `Binder Error: Referenced column "nope" not found`)
	s.expect(m, "D ")

	// Arrow-up recalls the last statement from the history, and Enter runs
	// it again: its result box comes twice.
	m = s.mark()
	s.send("SELECT 40 + 2 AS answer;\r")
	s.expect(m, "│     42 │")
	s.expect(m, "D ")
	m = s.mark()
	s.send("\x1b[A")
	s.expect(m, "SELECT 40 + 2 AS answer;")
	s.send("\r")
	s.expect(m, "│     42 │")
	s.expect(m, "D ")

	// Ctrl-C at the prompt drops the unfinished statement.
	m = s.mark()
	s.send("SELECT 1\r")
	s.expect(m, shellContPrompt)
	s.send("\x03")
	s.send("SELECT 5 AS five;\r")
	s.expect(m, "│     5 │")

	// Ctrl-C cancels a running statement, not the shell.
	m = s.mark()
	s.send("SELECT count(*) FROM range(100000000000) a;\r")
	s.expect(m, "range(100000000000) a;\n")
	// Ctrl-C again until the statement reports its cancellation: one sent
	// before the shell has left line editing would reach the prompt
	// instead, on a loaded machine.
	for i := 0; !strings.Contains(s.output()[m:], "Interrupt"); i++ {
		if i == 100 {
			t.Fatalf("Ctrl-C did not cancel the running query; output:\n%s", s.output()[m:])
		}
		s.send("\x03")
		time.Sleep(300 * time.Millisecond)
	}
	m = s.mark()
	s.send("SELECT 6 * 7 AS still_here;\r")
	s.expect(m, "│         42 │")

	s.send(".quit\r")
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf(".quit: %v; output:\n%s", err, s.output())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the shell did not exit within 20s of .quit; output:\n%s", s.output())
	}
	h, err := os.ReadFile(hist)
	if err != nil {
		t.Fatalf("no history file: %v", err)
	}
	if st, err := os.Stat(hist); err != nil || st.Mode().Perm()&0o077 != 0 {
		t.Fatalf("history file mode %v (%v), want readable by its owner alone", st.Mode(), err)
	}
	if !strings.Contains(string(h), "SELECT 40 + 2 AS answer;") || !strings.Contains(string(h), ".timer on") {
		t.Fatalf("history file lacks the statements:\n%s", h)
	}
	if !strings.Contains(string(h), strings.ReplaceAll(shellQuery, "\n", " ")+";") {
		t.Fatalf("history file lacks the two-line query as one entry:\n%s", h)
	}
}

func TestShellCtrlDLeaves(t *testing.T) {
	s := startPtyShell(t, []string{"RIGEL_HISTORY=" + filepath.Join(t.TempDir(), "h")}, "--db", smallDB(t), "--device", "host")
	s.expect(0, "D ")
	s.send("\x04")
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("Ctrl-D: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the shell did not exit within 20s of Ctrl-D")
	}
}

// shellPiped runs the shell with stdin from a string (not a terminal).
func shellPiped(t *testing.T, input string, args ...string) outcome {
	t.Helper()
	cmd := exec.Command(rigelBin, append([]string{"shell"}, args...)...)
	cmd.Stdin = strings.NewReader(input)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return outcome{code, so.String(), se.String()}
}

func TestShellPiped(t *testing.T) {
	db := smallDB(t)
	o := shellPiped(t, ".mode csv\nSELECT a, a * 10 AS b, NULL AS c\nFROM t -- one ; in a comment\nWHERE a > 1 ORDER BY a; SELECT 'x;y' AS s;\n.mode line\nSELECT sum(a) AS total, count(*) AS n FROM t\n",
		"--db", db, "--device", "host")
	if o.code != 0 {
		t.Fatalf("exit %d, stderr %q", o.code, o.stderr)
	}
	want := "a,b,c\n2,20,NULL\n3,30,NULL\ns\nx;y\ntotal = 6\n    n = 3\n"
	if o.stdout != want {
		t.Fatalf("stdout %q, want %q", o.stdout, want)
	}
	if strings.Contains(o.stdout, "D ") {
		t.Fatal("a prompt in non-interactive output")
	}
}

func TestShellPipedErrors(t *testing.T) {
	db := smallDB(t)
	o := shellPiped(t, "SELECT nope FROM t;\n.frobnicate\nCREATE TABLE u (x INT);\nSELECT 1 AS one;\n", "--db", db, "--device", "host")
	if o.code == 0 {
		t.Fatal("exit 0 after failed statements, want 1 (as DuckDB's CLI)")
	}
	for _, msg := range []string{`Referenced column "nope" not found`, `unknown command or invalid arguments: "frobnicate". Enter ".help" for help`, "read-only"} {
		if !strings.Contains(o.stderr, msg) {
			t.Fatalf("stderr lacks %q:\n%s", msg, o.stderr)
		}
	}
	if !strings.Contains(o.stdout, "│     1 │") {
		t.Fatalf("the statement after the errors did not run:\n%s", o.stdout)
	}
}

func TestShellDotCommands(t *testing.T) {
	dbPath := shellTPCH(t)
	o := shellPiped(t, ".tables\n.schema region\n.device\n.mode markdown\nSELECT r_regionkey, r_name FROM region ORDER BY 1 LIMIT 2;\n.mode json\nSELECT r_regionkey, r_name FROM region ORDER BY 1 LIMIT 1;\n.mode\n",
		"--db", dbPath, "--device", "host")
	if o.code != 0 {
		t.Fatalf("exit %d, stderr %q", o.code, o.stderr)
	}
	for _, want := range []string{
		"customer  lineitem  nation    orders    part      partsupp  region    supplier\n",
		"CREATE TABLE region(r_regionkey BIGINT NOT NULL, r_name VARCHAR NOT NULL, r_comment VARCHAR NOT NULL);\n",
		"device host: rigel's reference engine on the CPU\n",
		"| r_regionkey | r_name  |\n|------------:|---------|\n|           0 | AFRICA  |\n|           1 | AMERICA |\n",
		"[{\"r_regionkey\":0,\"r_name\":\"AFRICA\"}]\n",
		"current output mode: json\n",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Fatalf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
}

// Without --db the shell says it runs on an in-memory database, which reads
// files.
func TestShellWithoutDatabase(t *testing.T) {
	s := startPtyShell(t, []string{"HOME=" + t.TempDir()}, "--device", "host")
	s.expect(0, "rigel shell on an in-memory database")
	m := s.mark()
	s.send("SELECT 40 + 2 AS answer;\r")
	s.expect(m, "42")
	s.send(".quit\r")
}

// A statement the shell hands to DuckDB may change the catalog even of a
// read-only file (a temporary table): the same query text afterwards is
// planned again, not answered from the plan made before.
func TestShellReplansAfterCatalogChange(t *testing.T) {
	q := "SELECT sum(a) AS s FROM x WHERE a > 0;\n"
	o := shellPiped(t, ".mode csv\nCREATE TEMP TABLE x AS SELECT 1 AS a;\n"+q+
		"DROP TABLE x;\nCREATE TEMP TABLE x AS SELECT 2 AS b, 5 AS a;\n"+q,
		"--db", smallDB(t), "--device", "host")
	if o.code != 0 || !strings.Contains(o.stdout, "s\n1\n") || !strings.Contains(o.stdout, "s\n5\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
}

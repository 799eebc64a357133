package serve

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The security suite: what a hostile or careless Flight SQL client tried
// against earlier versions, each refused with a clear error while the
// server goes on answering and the catalog and the device's column cache
// stay as they were.

// parquetCatalog writes nation and region of the TPC-H database as Parquet
// files named prefix+table and returns their folder: a Parquet catalog is
// an in-memory DuckDB database, which a write would change (a DuckDB file
// alone is opened read-only).
func parquetCatalog(t *testing.T, prefix string) string {
	t.Helper()
	dir := t.TempDir()
	db, _, err := duckdbbridge.OpenCatalog(context.Background(), duckdbbridge.CatalogSpec{DB: tpchDB(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, table := range []string{"nation", "region"} {
		if _, err := db.Exec(fmt.Sprintf("COPY %s TO '%s' (FORMAT parquet)", table, filepath.Join(dir, prefix+table+".parquet"))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// count answers SELECT count(*) FROM table through the server (on the
// device), and on DuckDB directly.
func count(t *testing.T, ts *testServer, c *flightsql.Client, table string) (served, duck int64) {
	t.Helper()
	ctx := context.Background()
	q := "SELECT count(*) FROM " + table
	info, err := c.Execute(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	rec, err := Fetch(ctx, c, info)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rec.Release()
	served = rec.Column(0).(*array.Int64).Value(0)
	if err := ts.db.QueryRow(q).Scan(&duck); err != nil {
		t.Fatal(err)
	}
	return served, duck
}

// wantSame checks that a table still has n rows, on the device and on
// DuckDB alike (a write that got through, or a stale column cache, shows).
func wantSame(t *testing.T, ts *testServer, c *flightsql.Client, table string, n int64) {
	t.Helper()
	served, duck := count(t, ts, c, table)
	if served != n || duck != n {
		t.Fatalf("%s: %d rows served, %d in DuckDB, want %d in both", table, served, duck, n)
	}
}

// A ticket the server did not sign is refused before anything reads it:
// a SET, a DROP VIEW, a CREATE VIEW in place of a table, a genuine ticket
// with its statement changed, a signature made with another key.
func TestForgedTicketsAreRefused(t *testing.T) {
	ts := startServerOn(t, duckdbbridge.CatalogSpec{DB: tpchDB(t), Parquet: []string{parquetCatalog(t, "lake_")}}, Options{})
	c := dial(t, ts, "", nil)
	ctx := context.Background()
	nations, _ := count(t, ts, c, "nation")
	memLimit := func() string {
		var v string
		if err := ts.db.QueryRow("SELECT current_setting('memory_limit')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	limit := memLimit()

	forge := func(body []byte) *flight.Ticket {
		tkt, err := flightsql.CreateStatementQueryTicket(body)
		if err != nil {
			t.Fatal(err)
		}
		return &flight.Ticket{Ticket: tkt}
	}
	otherKey := make([]byte, sha256.Size)
	_, _ = rand.Read(otherKey)
	info, err := c.Execute(ctx, "SELECT count(*) FROM lineitem")
	if err != nil {
		t.Fatal(err)
	}
	genuine := info.Endpoint[0].Ticket
	// The genuine ticket's statement swapped for another of the same length.
	inner, err := flightsql.GetStatementQueryTicket(genuine)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(inner.GetStatementHandle()), "lineitem", "orders  ", 1)
	for name, tkt := range map[string]*flight.Ticket{
		"unsigned SET":            forge([]byte("qSET memory_limit='10MB'")),
		"unsigned DROP VIEW":      forge([]byte("qDROP VIEW nation")),
		"unsigned CREATE VIEW":    forge([]byte("qCREATE OR REPLACE VIEW nation AS SELECT * FROM nation LIMIT 5")),
		"SET signed by other key": forge(append([]byte("qSET memory_limit='10MB'"), otherKey...)),
		"edited statement":        forge([]byte(edited)),
		"raw bytes":               {Ticket: []byte("qSET threads = 1")},
		"empty":                   {Ticket: nil},
	} {
		rdr, err := c.DoGet(ctx, tkt)
		if err == nil {
			for rdr.Next() {
			}
			err = rdr.Err()
			rdr.Release()
		}
		if name == "raw bytes" || name == "empty" {
			// Not a Flight SQL command at all: arrow-go's dispatcher
			// refuses it before the server sees it.
			if err == nil {
				t.Fatalf("%s: taken", name)
			}
			continue
		}
		wantCode(t, err, codes.PermissionDenied, "not made by this server")
	}
	if got := memLimit(); got != limit {
		t.Fatalf("memory_limit changed from %s to %s", limit, got)
	}
	wantSame(t, ts, c, "nation", nations)
	// The genuine ticket runs, and again (tickets are not single-use).
	for i := 0; i < 2; i++ {
		rec, err := Fetch(ctx, c, info)
		if err != nil {
			t.Fatalf("genuine ticket, run %d: %v", i+1, err)
		}
		rec.Release()
	}
}

// EXPLAIN ANALYZE runs the statement it explains: of a write, it is a
// write, whatever the spelling, and is refused on every path that takes
// SQL. EXPLAIN ANALYZE of a query answers.
func TestExplainAnalyzeOfWritesIsRefused(t *testing.T) {
	ts := startServerOn(t, duckdbbridge.CatalogSpec{Parquet: []string{parquetCatalog(t, "")}}, Options{})
	c := dial(t, ts, "", nil)
	ctx := context.Background()
	nations, duck := count(t, ts, c, "nation")
	if nations != 25 || duck != 25 {
		t.Fatalf("nation has %d rows served, %d in DuckDB", nations, duck)
	}
	for _, q := range []string{
		"EXPLAIN ANALYZE DELETE FROM nation",
		"explain analyse delete from nation",
		"EXPLAIN (ANALYZE) DELETE FROM nation",
		"EXPLAIN (ANALYZE, FORMAT json) DELETE FROM nation",
		"EXPLAIN (FORMAT 'json', ANALYZE true) UPDATE nation SET n_name = 'x'",
		"/* c */ EXPLAIN /* c */ ANALYZE -- c\n DELETE FROM nation",
		"EXPLAIN ANALYZE INSERT INTO nation SELECT * FROM nation",
		"EXPLAIN ANALYZE CREATE TABLE copy AS SELECT * FROM nation",
		"EXPLAIN DELETE FROM nation",
	} {
		_, err := c.Execute(ctx, q)
		wantCode(t, err, codes.PermissionDenied, "only queries")
		_, err = c.Prepare(ctx, q)
		wantCode(t, err, codes.PermissionDenied, "only queries")
		_, err = c.GetExecuteSchema(ctx, q)
		wantCode(t, err, codes.PermissionDenied, "only queries")
		wantSame(t, ts, c, "nation", 25)
	}
	info, err := c.Execute(ctx, "EXPLAIN ANALYZE SELECT count(*) FROM nation")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Fetch(ctx, c, info)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	wantSame(t, ts, c, "nation", 25)
}

// Prepared statements belong to the connection that made them: bounded per
// client and in all, invisible to other clients, freed when the client
// goes.
func TestPreparedStatementsArePerClient(t *testing.T) {
	ts := startServer(t, Options{MaxPrepared: 5, MaxPreparedPerClient: 3})
	ctx := context.Background()
	a := dial(t, ts, "", nil)
	b := dial(t, ts, "", nil)
	q := "SELECT count(*) FROM nation"
	var mine []*flightsql.PreparedStatement
	for i := 0; i < 3; i++ {
		ps, err := a.Prepare(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		mine = append(mine, ps)
	}
	_, err := a.Prepare(ctx, q)
	wantCode(t, err, codes.ResourceExhausted, "the most one client may hold")
	// Another client still gets its own slots, up to the server's bound.
	for i := 0; i < 2; i++ {
		if _, err := b.Prepare(ctx, q); err != nil {
			t.Fatalf("second client, statement %d: %v", i+1, err)
		}
	}
	_, err = b.Prepare(ctx, q)
	wantCode(t, err, codes.ResourceExhausted, "from all clients")

	// b knows a's handle (say it guessed it): it can neither run nor
	// close it.
	stolen, err := b.LoadPreparedStatementFromResult(&flightsql.CreatePreparedStatementResult{PreparedStatementHandle: mine[0].Handle()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = stolen.Execute(ctx)
	wantCode(t, err, codes.NotFound, "no such prepared statement on this connection")
	err = stolen.Close(ctx)
	wantCode(t, err, codes.NotFound, "no such prepared statement on this connection")
	// a's statement still runs for a.
	info, err := mine[0].Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Fetch(ctx, a, info)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()

	// a goes away without closing anything: its statements go with it.
	a.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		total, _ := ts.srv.prepared.count(0)
		if total == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d prepared statements open after the first client left, want the second client's 2", total)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Its freed slots are there for others.
	c := dial(t, ts, "", nil)
	for i := 0; i < 3; i++ {
		if _, err := c.Prepare(ctx, q); err != nil {
			t.Fatalf("third client, statement %d: %v", i+1, err)
		}
	}
}

// A client's words reach the log and its errors cut to a bounded length:
// a megabyte of bad SQL makes neither a megabyte log line nor an error too
// large for a gRPC trailer.
func TestLongTextsAreCut(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts, "", nil)
	ctx := context.Background()
	// DuckDB's error names the table, whole.
	huge := "SELECT * FROM " + strings.Repeat("x", 1<<20)
	_, err := c.Execute(ctx, huge)
	if err == nil {
		t.Fatal("bad SQL was taken")
	}
	if n := len(err.Error()); n > MaxErrorText+200 {
		t.Fatalf("the error is %d bytes, more than %d", n, MaxErrorText)
	}
	if !strings.Contains(err.Error(), "more bytes cut") {
		t.Fatalf("a cut error does not say so: %.200s", err)
	}
	// A query that runs logs it with its statement-free lines; a failing
	// one with its error: every line is bounded.
	info, err := c.Execute(ctx, "SELECT count(*) FROM nation")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(ctx, c, info); err != nil {
		t.Fatal(err)
	}
	ts.log.mu.Lock()
	defer ts.log.mu.Unlock()
	for _, l := range ts.log.lines {
		if len(l) > MaxLogLine {
			t.Fatalf("a log line of %d bytes, more than %d", len(l), MaxLogLine)
		}
	}
}

func TestCutLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 100, "short"},
		{strings.Repeat("a", 100), 40, strings.Repeat("a", 15) + " ... (85 more bytes cut)"},
		// A cut never splits a character.
		{strings.Repeat("é", 50), 41, strings.Repeat("é", 8) + " ... (84 more bytes cut)"},
	} {
		if got := cutLine(c.in, c.max); got != c.want || len(got) > c.max {
			t.Errorf("cutLine(%d bytes, %d) = %q, want %q", len(c.in), c.max, got, c.want)
		}
	}
}

// A query past the server's time bound is cancelled, wherever it runs,
// and the server answers the next one.
func TestQueryTimeout(t *testing.T) {
	ts := startServer(t, Options{QueryTimeout: 300 * time.Millisecond})
	c := dial(t, ts, "", nil)
	ctx := context.Background()
	// About 3.6 billion pairs of lineitem rows: minutes of work on any
	// engine.
	slow := "SELECT count(*) FROM lineitem a, lineitem b WHERE a.l_comment < b.l_comment"
	t0 := time.Now()
	info, err := c.Execute(ctx, slow)
	if err == nil {
		_, err = Fetch(ctx, c, info)
	}
	wantCode(t, err, codes.DeadlineExceeded, "")
	if d := time.Since(t0); d > 20*time.Second {
		t.Fatalf("the query was stopped after %s, its bound is 300ms", d)
	}
	wantSame(t, ts, c, "nation", 25)
}

// writeArrowFile writes one BIGINT column a = 1..n as an Arrow IPC file.
func writeArrowFile(t *testing.T, path string, n int) {
	t.Helper()
	a := make([]int64, n)
	for i := range a {
		a[i] = int64(i + 1)
	}
	if err := arrowfmt.WriteInt64File(path, "a", a); err != nil {
		t.Fatal(err)
	}
}

// Plans and SQL read files only inside the folders the operator allows
// (none by default): never the server's own files, devices, pipes, nor
// through links out of the folders; the errors quote nothing of a file.
func TestFilesOutsideTheAllowedFoldersAreRefused(t *testing.T) {
	ctx := context.Background()
	lake := t.TempDir()
	writeArrowFile(t, filepath.Join(lake, "ok.arrow"), 10)
	if _, err := os.Create(filepath.Join(lake, "ok.csv")); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret.arrow")
	writeArrowFile(t, secret, 3)
	if err := os.Symlink(secret, filepath.Join(lake, "link.arrow")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(lake, "pipe.arrow")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Another catalog: servers of one DuckDB file in one process share
	// DuckDB's settings, file access among them.
	open := startServerOn(t, duckdbbridge.CatalogSpec{Parquet: []string{parquetCatalog(t, "")}}, Options{AllowFiles: []string{lake}})
	closed := startServer(t, Options{})
	cClosed, cOpen := dial(t, closed, "", nil), dial(t, open, "", nil)

	run := func(c *flightsql.Client, plan []byte) (int64, error) {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second) // a FIFO must not stall the read
		defer cancel()
		info, err := c.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: plan})
		if err != nil {
			return 0, err
		}
		rec, err := Fetch(ctx, c, info)
		if err != nil {
			return 0, err
		}
		defer rec.Release()
		return rec.NumRows(), nil
	}
	if n, err := run(cOpen, LocalFilesPlan(filepath.Join(lake, "ok.arrow"))); err != nil || n != 10 {
		t.Fatalf("a file inside the allowed folder: %d rows, %v; want 10", n, err)
	}
	for _, c := range []struct {
		name   string
		client *flightsql.Client
		plan   []byte
		code   codes.Code
	}{
		{"a file, no folder allowed", cClosed, LocalFilesPlan(filepath.Join(lake, "ok.arrow")), codes.PermissionDenied},
		{"/etc/passwd", cOpen, LocalFilesPlan("/etc/passwd"), codes.PermissionDenied},
		{"/dev/zero", cOpen, LocalFilesPlan("/dev/zero"), codes.PermissionDenied},
		{"a file outside", cOpen, LocalFilesPlan(secret), codes.PermissionDenied},
		{"dot-dot out", cOpen, LocalFilesPlan(filepath.Join(lake, "..", filepath.Base(filepath.Dir(secret)), "secret.arrow")), codes.PermissionDenied},
		{"a link out", cOpen, LocalFilesPlan(filepath.Join(lake, "link.arrow")), codes.PermissionDenied},
		{"a glob of /etc", cOpen, LocalFilesGlobPlan("/etc/*"), codes.PermissionDenied},
		{"a FIFO inside", cOpen, LocalFilesPlan(fifo), codes.InvalidArgument},
	} {
		_, err := run(c.client, c.plan)
		wantCode(t, err, c.code, "")
		for _, leak := range []string{"root:", "nologin", "1953460082"} {
			if strings.Contains(err.Error(), leak) {
				t.Fatalf("%s: the error quotes the file: %v", c.name, err)
			}
		}
	}
	// DuckDB's readers follow the same folders.
	sqlRun := func(c *flightsql.Client, q string) error {
		info, err := c.Execute(ctx, q)
		return fetchAll(ctx, c, info, err)
	}
	if err := sqlRun(cOpen, fmt.Sprintf("SELECT count(*) FROM read_csv('%s', header = false, columns = {'a': 'VARCHAR'})", filepath.Join(lake, "ok.csv"))); err != nil {
		t.Fatalf("read_csv inside the allowed folder: %v", err)
	}
	wantCode(t, sqlRun(cOpen, "SELECT * FROM read_csv('/etc/passwd')"), codes.PermissionDenied, "")
	wantCode(t, sqlRun(cClosed, fmt.Sprintf("SELECT * FROM read_csv('%s')", filepath.Join(lake, "ok.csv"))), codes.PermissionDenied, "")
	wantSame(t, open, cOpen, "nation", 25)
}

// Hostile requests mixed into a load of good ones: every hostile one is
// refused with its code, every good answer is DuckDB's, none is lost, and
// the server's memory and goroutines come back to where they were.
func TestHostileClientsAmongGoodOnes(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := context.Background()
	var queries []LoadQuery
	for _, n := range []int{1, 3, 6, 10, 12} {
		q := tpchQuery(t, n)
		queries = append(queries, LoadQuery{Name: fmt.Sprintf("Q%d", n), SQL: q, Want: duckAnswer(t, ts, q)})
	}
	probes := HostileProbes(producePlan(t, ts, tpchQuery(t, 6)))
	// Warm-up: columns and plans cached, every probe once.
	if rep, err := RunLoad(ctx, LoadOptions{Addr: ts.addr, Clients: 1, PerClient: len(probes), Queries: queries, Hostile: probes, HostileEvery: 1}); err != nil || rep.Errors+rep.Wrong+rep.Taken > 0 {
		t.Fatalf("warm-up: %v %v", rep, err)
	}
	g0, h0 := LiveMemory()
	dropped := ts.eng.Cache().Stats().Invalidations
	rep, err := RunLoad(ctx, LoadOptions{Addr: ts.addr, Clients: 16, Duration: 8 * time.Second, Queries: queries, Hostile: probes, Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	// A request too large for the device fails alone: the good queries'
	// cached columns stay.
	if n := ts.eng.Cache().Stats().Invalidations - dropped; n > 0 {
		t.Fatalf("hostile requests dropped %d cached columns of the good queries", n)
	}
	t.Logf("hostile load: %s", rep)
	if rep.Errors+rep.Wrong+rep.Taken > 0 || rep.Probes < len(probes) {
		t.Fatalf("hostile load: %s", rep)
	}
	memoryBack(t, g0, h0, "the hostile load")
	c := dial(t, ts, "", nil)
	wantSame(t, ts, c, "nation", 25)
	var limit string
	if err := ts.db.QueryRow("SELECT current_setting('memory_limit')").Scan(&limit); err != nil || strings.Contains(limit, "10.0 MiB") {
		t.Fatalf("memory_limit %q (%v)", limit, err)
	}
}

// Each hostile request alone: refused with its code and a message that
// says why, and the server answers the next good query with the catalog
// as it was.
func TestEachHostileRequestIsRefused(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts, "", nil)
	ctx := context.Background()
	for _, p := range HostileProbes(producePlan(t, ts, tpchQuery(t, 6))) {
		err := p.Send(ctx, c)
		if err == nil {
			t.Fatalf("%s: taken", p.Name)
		}
		st, _ := status.FromError(err)
		if st.Code() != p.Want || len(st.Message()) < 20 {
			t.Fatalf("%s: %s %q, want %s with a reason", p.Name, st.Code(), st.Message(), p.Want)
		}
		t.Logf("%s: %s: %.300s", p.Name, st.Code(), st.Message())
		wantSame(t, ts, c, "nation", 25)
	}
}

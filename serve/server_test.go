package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/conformance/tpch"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
	substraitpb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// The tests serve TPC-H SF0.01 (built once into .tools/data with
// tpchgen-cli) through the host device, so that CI without a GPU runs the
// whole server.
const testSF = 0.01

var (
	dbOnce sync.Once
	dbPath string
	dbErr  error
)

func tpchDB(t testing.TB) string {
	dbOnce.Do(func() {
		dir := filepath.Join("..", ".tools", "data")
		dbPath = filepath.Join(dir, fmt.Sprintf("tpch-sf%g.duckdb", testSF))
		if _, err := os.Stat(dbPath); err == nil {
			return
		}
		if dbErr = os.MkdirAll(dir, 0o755); dbErr != nil {
			return
		}
		gen, err := tpch.FindGenerator("..")
		if err != nil {
			dbErr = err
			return
		}
		dbErr = tpch.Build(context.Background(), gen, testSF, dbPath, nil)
	})
	if dbErr != nil {
		t.Fatalf("TPC-H database: %v", dbErr)
	}
	return dbPath
}

// testServer is a server on a loopback port and the engine behind it.
type testServer struct {
	addr string
	srv  *Server
	eng  *duckdbbridge.Engine
	db   *sql.DB
	log  *logLines
	done chan error
}

type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(s string) { l.mu.Lock(); l.lines = append(l.lines, s); l.mu.Unlock() }
func (l *logLines) has(sub string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func startServer(t testing.TB, opts Options) *testServer {
	t.Helper()
	return startServerOn(t, duckdbbridge.CatalogSpec{DB: tpchDB(t)}, opts)
}

// startServerOn serves a catalog through the host device.
func startServerOn(t testing.TB, spec duckdbbridge.CatalogSpec, opts Options) *testServer {
	t.Helper()
	ctx := context.Background()
	db, id, err := duckdbbridge.OpenCatalog(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	dev := host.New()
	eng := duckdbbridge.NewEngine(db, id, dev, "")
	ts := &testServer{eng: eng, db: db, log: &logLines{}, done: make(chan error, 1)}
	opts.Log = ts.log.add
	ts.srv, err = New(eng, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = ln.Addr().String()
	go func() { ts.done <- ts.srv.Serve(ln) }()
	t.Cleanup(func() {
		ts.srv.Shutdown(5 * time.Second)
		if err := <-ts.done; err != nil {
			t.Errorf("serve: %v", err)
		}
		dev.Close()
		db.Close()
	})
	return ts
}

func dial(t testing.TB, ts *testServer, token string, cfg *tls.Config) *flightsql.Client {
	t.Helper()
	c, err := Dial(ts.addr, token, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func tpchQuery(t testing.TB, n int) string {
	q, err := tpch.Query(n)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// duckAnswer is DuckDB's own answer to a query (the oracle).
func duckAnswer(t testing.TB, ts *testServer, query string) arrow.RecordBatch {
	t.Helper()
	r, err := ts.eng.RunOnDuckDB(context.Background(), query)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Release)
	return r.Record
}

func wantCode(t *testing.T, err error, code codes.Code, says string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s saying %q", code, says)
	}
	st, _ := status.FromError(err)
	if st.Code() != code || !strings.Contains(st.Message(), says) {
		t.Fatalf("got %s %q, want %s saying %q", st.Code(), st.Message(), code, says)
	}
}

func producePlan(t testing.TB, ts *testServer, query string) []byte {
	t.Helper()
	b, err := duckdbbridge.PlanBytes(context.Background(), ts.db, query)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// SQL and Substrait, direct and prepared, each equal to DuckDB; Q1, Q3 and
// Q6 run on the device, a window function falls back (and the log says so).
func TestStatements(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts, "", nil)
	ctx := context.Background()
	queries := map[int]string{
		1: tpchQuery(t, 1), 3: tpchQuery(t, 3), 6: tpchQuery(t, 6),
		0: "SELECT n_nationkey, max(n_name) OVER (ORDER BY n_nationkey DESC ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS r FROM nation ORDER BY 1",
	}
	for _, n := range []int{1, 3, 6, 0} {
		q := queries[n]
		want := duckAnswer(t, ts, q)
		info, err := c.Execute(ctx, q)
		if err != nil {
			t.Fatalf("Q%d: %v", n, err)
		}
		got, err := Fetch(ctx, c, info)
		if err != nil {
			t.Fatalf("Q%d: %v", n, err)
		}
		if err := arrowfmt.Compare(got, want, true); err != nil {
			t.Fatalf("Q%d over Flight SQL: %v", n, err)
		}
		got.Release()

		prep, err := c.Prepare(ctx, q)
		if err != nil {
			t.Fatalf("prepare Q%d: %v", n, err)
		}
		if prep.DatasetSchema() == nil || prep.DatasetSchema().NumFields() != int(want.NumCols()) {
			t.Fatalf("prepared Q%d: dataset schema %v, want %d fields", n, prep.DatasetSchema(), want.NumCols())
		}
		info, err = prep.Execute(ctx)
		if err != nil {
			t.Fatalf("prepared Q%d: %v", n, err)
		}
		got, err = Fetch(ctx, c, info)
		if err != nil {
			t.Fatalf("prepared Q%d: %v", n, err)
		}
		if err := arrowfmt.Compare(got, want, true); err != nil {
			t.Fatalf("prepared Q%d: %v", n, err)
		}
		got.Release()
		if err := prep.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := prep.Execute(ctx); err == nil {
			t.Fatal("a closed prepared statement still ran")
		}
	}
	// A query with a window the device lacks (a string's max over a
	// sliding frame) runs its other parts on the device and the window on DuckDB:
	// the log says so and why.
	if !ts.log.has("ran on host in") || !ts.log.has("subtree(s) on DuckDB: ProjectRel") {
		t.Fatalf("the query log does not say where queries ran: %v", ts.log.lines)
	}

	q6 := tpchQuery(t, 6)
	plan := producePlan(t, ts, q6)
	want := duckAnswer(t, ts, q6)
	info, err := c.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: plan, Version: "0.85.0"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Fetch(ctx, c, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := arrowfmt.Compare(got, want, true); err != nil {
		t.Fatalf("Substrait Q6: %v", err)
	}
	got.Release()
	prep, err := c.PrepareSubstrait(ctx, flightsql.SubstraitPlan{Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	info, err = prep.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err = Fetch(ctx, c, info)
	if err != nil {
		t.Fatal(err)
	}
	if err := arrowfmt.Compare(got, want, true); err != nil {
		t.Fatalf("prepared Substrait Q6: %v", err)
	}
	got.Release()
	prep.Close(ctx)
}

func TestCatalogCalls(t *testing.T) {
	ts := startServer(t, Options{})
	c := dial(t, ts, "", nil)
	ctx := context.Background()
	fetch := func(info *flight.FlightInfo, err error) [][]string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		rec, err := Fetch(ctx, c, info)
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		return arrowfmt.Rows(rec)
	}
	pattern := "line%"
	tables := fetch(c.GetTables(ctx, &flightsql.GetTablesOpts{TableNameFilterPattern: &pattern, IncludeSchema: true}))
	if len(tables) != 1 || tables[0][2] != "lineitem" || tables[0][3] != "TABLE" {
		t.Fatalf("GetTables line%%: %v", tables)
	}
	all := fetch(c.GetTables(ctx, &flightsql.GetTablesOpts{}))
	if len(all) != 8 {
		t.Fatalf("GetTables: %d tables, want TPC-H's 8: %v", len(all), all)
	}
	if s := fetch(c.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{})); len(s) == 0 {
		t.Fatal("GetDBSchemas: none")
	}
	var current string
	if err := ts.db.QueryRow("SELECT current_database()").Scan(&current); err != nil {
		t.Fatal(err)
	}
	if cats := fetch(c.GetCatalogs(ctx)); len(cats) != 1 || cats[0][0] != current {
		t.Fatalf("GetCatalogs: %v", cats)
	}
	if tt := fetch(c.GetTableTypes(ctx)); len(tt) != 2 {
		t.Fatalf("GetTableTypes: %v", tt)
	}
	info := fetch(c.GetSqlInfo(ctx, []flightsql.SqlInfo{flightsql.SqlInfoFlightSqlServerName, flightsql.SqlInfoFlightSqlServerSubstrait}))
	if len(info) != 2 || !strings.Contains(strings.Join(info[0], " "), "rigel") {
		t.Fatalf("GetSqlInfo: %v", info)
	}
	res, err := c.GetExecuteSchema(ctx, "SELECT l_orderkey, l_extendedprice FROM lineitem")
	if err != nil {
		t.Fatal(err)
	}
	schema, err := flight.DeserializeSchema(res.Schema, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	if schema.NumFields() != 2 || schema.Field(1).Type.ID() != arrow.DECIMAL128 {
		t.Fatalf("GetExecuteSchema: %v", schema)
	}
}

// Bad input gets a Flight error that names the problem, and the server
// keeps serving.
func TestBadInput(t *testing.T) {
	ts := startServer(t, Options{MaxRequestBytes: 1 << 20})
	c := dial(t, ts, "", nil)
	ctx := context.Background()
	q6 := tpchQuery(t, 6)
	plan := producePlan(t, ts, q6)
	stillServes := func() {
		t.Helper()
		info, err := c.Execute(ctx, q6)
		if err != nil {
			t.Fatalf("after bad input the server fails: %v", err)
		}
		rec, err := Fetch(ctx, c, info)
		if err != nil {
			t.Fatalf("after bad input the server fails: %v", err)
		}
		rec.Release()
	}
	_, err := c.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: plan[:len(plan)/2]})
	wantCode(t, err, codes.InvalidArgument, "malformed")
	stillServes()

	info, err := c.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: []byte(strings.Replace(
		producePlanJSON(t, ts, q6), `"lineitem"`, `"no_such_table"`, 1))})
	if err == nil { // the table is looked up when the plan runs
		_, err = Fetch(ctx, c, info)
	}
	wantCode(t, err, codes.NotFound, "no_such_table")
	stillServes()

	unknownFn, err := os.ReadFile("../cmd/rigel/testdata/unknown-function.json")
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: unknownFn})
	wantCode(t, err, codes.Unimplemented, "frobnicate")
	stillServes()

	_, err = c.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: make([]byte, 1<<20+1)})
	wantCode(t, err, codes.InvalidArgument, "more than this server takes")
	_, err = c.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: make([]byte, 3<<20)})
	wantCode(t, err, codes.ResourceExhausted, "larger than max")
	stillServes()

	info, err = c.Execute(ctx, "SELEC 1")
	if err == nil {
		_, err = Fetch(ctx, c, info)
	}
	wantCode(t, err, codes.InvalidArgument, "syntax error")
	info, err = c.Execute(ctx, "SELECT * FROM no_such_table")
	if err == nil {
		_, err = Fetch(ctx, c, info)
	}
	wantCode(t, err, codes.InvalidArgument, "no_such_table")
	// The catalog is served read-only, and the server's files stay closed.
	for q, says := range map[string]string{
		"CREATE TABLE x (a INTEGER)":              "this is a CREATE statement",
		"SET threads = 1":                         "this is a SET statement",
		"DROP TABLE lineitem":                     "this is a DROP statement",
		"ATTACH '/tmp/other.duckdb'":              "ATTACH",
		"SELECT * FROM read_csv('/etc/hostname')": "disabled",
	} {
		info, err = c.Execute(ctx, q)
		if err == nil {
			_, err = Fetch(ctx, c, info)
		}
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Fatalf("%s: got %v, want an error saying %q", q, err, says)
		}
	}
	_, err = c.Execute(ctx, "SELECT 1; SELECT 2")
	wantCode(t, err, codes.PermissionDenied, "one statement at a time")
	if _, err := c.ExecuteUpdate(ctx, "DELETE FROM lineitem"); err == nil {
		t.Fatal("an update was taken")
	}
	_, err = c.DoGet(ctx, &flight.Ticket{Ticket: []byte("garbage")})
	if err == nil {
		t.Fatal("a garbage ticket was taken")
	}
	stillServes()
}

// producePlanJSON is producePlan as Substrait's JSON form.
func producePlanJSON(t testing.TB, ts *testServer, query string) string {
	t.Helper()
	var p substraitpb.Plan
	if err := proto.Unmarshal(producePlan(t, ts, query), &p); err != nil {
		t.Fatal(err)
	}
	return protojson.Format(&p)
}

// A client that goes away mid-stream stops its query; nothing is left
// running and others are served.
func TestClientDisconnectsMidStream(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := context.Background()
	c := dial(t, ts, "", nil)
	warm, err := c.Execute(ctx, "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if r, err := Fetch(ctx, c, warm); err == nil {
		r.Release()
	}
	before := runtime.NumGoroutine()
	for range 5 {
		cctx, cancel := context.WithCancel(ctx)
		// A cross product falls back to DuckDB, which streams 600k rows in
		// many batches.
		info, err := c.Execute(cctx, "SELECT l_comment, r.range FROM lineitem, range(10) r")
		if err != nil {
			t.Fatal(err)
		}
		rdr, err := c.DoGet(cctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		if !rdr.Next() {
			t.Fatalf("no first batch: %v", rdr.Err())
		}
		cancel() // the client goes away after one batch
		rdr.Release()
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Fatalf("%d goroutines after the cancelled streams, %d before", n, before)
	}
	for !ts.log.has("stopped: the client went away") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !ts.log.has("stopped: the client went away") {
		t.Fatalf("the query log does not say the client went away: %v", ts.log.lines)
	}
	info, err := c.Execute(ctx, tpchQuery(t, 6))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Fetch(ctx, c, info)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
}

func TestBearerTokenAndTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	ts := startServer(t, Options{Token: "s3cret", TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
	ctx := context.Background()
	clientTLS := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"}
	for _, c := range []struct {
		token string
		ok    bool
	}{{"", false}, {"wrong", false}, {"s3cret", true}} {
		cl := dial(t, ts, c.token, clientTLS)
		_, err := cl.Execute(ctx, "SELECT 42")
		if c.ok && err != nil {
			t.Fatalf("token %q: %v", c.token, err)
		}
		if !c.ok {
			wantCode(t, err, codes.Unauthenticated, "bearer token")
		}
	}
	// Plain text against a TLS server fails.
	cl := dial(t, ts, "s3cret", nil)
	if _, err := cl.Execute(ctx, "SELECT 42"); err == nil {
		t.Fatal("a plain-text client got through to the TLS server")
	}
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "rigel test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// Shutdown lets a running query finish.
func TestShutdownFinishesRunningQueries(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := context.Background()
	c := dial(t, ts, "", nil)
	info, err := c.Execute(ctx, "SELECT * FROM lineitem")
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := c.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	stopped := make(chan struct{})
	go func() { ts.srv.Shutdown(10 * time.Second); close(stopped) }()
	rows := int64(0)
	for rdr.Next() {
		rows += rdr.RecordBatch().NumRows()
	}
	if err := rdr.Err(); err != nil {
		t.Fatalf("the running query was cut by the shutdown: %v", err)
	}
	rdr.Release()
	want := duckAnswer(t, ts, "SELECT count(*) FROM lineitem")
	if fmt.Sprint(rows) != arrowfmt.Rows(want)[0][0] {
		t.Fatalf("%d rows streamed during shutdown, want %s", rows, arrowfmt.Rows(want)[0][0])
	}
	<-stopped
	if _, err := c.Execute(ctx, "SELECT 1"); err == nil {
		t.Fatal("the server still takes calls after shutdown")
	}
}

// The load test: 16 clients x 200 TPC-H queries (all 22 in turn), every
// answer checked; then no goroutines or heap left behind. It prints
// throughput and latency (a benchmark's numbers, not asserted).
func TestLoad(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := context.Background()
	var queries []LoadQuery
	for n := 1; n <= 22; n++ {
		q := tpchQuery(t, n)
		queries = append(queries, LoadQuery{Name: fmt.Sprintf("Q%d", n), SQL: q, Want: duckAnswer(t, ts, q)})
	}
	// One warm-up pass fills the column cache and plan caches, which are
	// meant to stay.
	if rep, err := RunLoad(ctx, LoadOptions{Addr: ts.addr, Clients: 1, PerClient: len(queries), Queries: queries}); err != nil || rep.Errors+rep.Wrong > 0 {
		t.Fatalf("warm-up: %v %v", rep, err)
	}
	g0, h0 := LiveMemory()
	rep, err := RunLoad(ctx, LoadOptions{Addr: ts.addr, Clients: 16, PerClient: 200, Queries: queries, Timeout: 8 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("load: %s", rep)
	fmt.Printf("rigel serve load test (TPC-H SF%g, host device, loopback): %s\n", testSF, rep)
	if rep.Errors+rep.Wrong > 0 || rep.Queries != 16*200 {
		t.Fatalf("load test: %s", rep)
	}
	memoryBack(t, g0, h0, "the load test")
}

// memoryBack fails t when the goroutines or live heap (LiveMemory) grew
// past g0 and h0 over what.
func memoryBack(t *testing.T, g0 int, h0 uint64, what string) {
	t.Helper()
	g1, h1 := LiveMemory()
	t.Logf("goroutines %d -> %d, heap %d MB -> %d MB", g0, g1, h0>>20, h1>>20)
	if g1 > g0+4 {
		t.Fatalf("goroutines grew from %d to %d over %s", g0, g1, what)
	}
	if h1 > h0+64<<20 {
		t.Fatalf("heap grew from %d MB to %d MB over %s", h0>>20, h1>>20, what)
	}
}

// One client's errors and cancellations do not disturb the others: a load
// of good queries runs while another client sends bad plans, SQL errors and
// streams it abandons.
func TestErrorsDoNotDisturbOthers(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := context.Background()
	var queries []LoadQuery
	for _, n := range []int{1, 3, 6, 10} {
		q := tpchQuery(t, n)
		queries = append(queries, LoadQuery{Name: fmt.Sprintf("Q%d", n), SQL: q, Want: duckAnswer(t, ts, q)})
	}
	plan := producePlan(t, ts, tpchQuery(t, 6))
	stop := make(chan struct{})
	troubled := make(chan int)
	go func() {
		c, err := Dial(ts.addr, "", nil)
		if err != nil {
			troubled <- 0
			return
		}
		defer c.Close()
		n := 0
		for {
			select {
			case <-stop:
				troubled <- n
				return
			default:
			}
			n++
			_, _ = c.ExecuteSubstrait(ctx, flightsql.SubstraitPlan{Plan: plan[:len(plan)/3]})
			if info, err := c.Execute(ctx, "SELECT * FROM nowhere"); err == nil {
				_, _ = Fetch(ctx, c, info)
			}
			cctx, cancel := context.WithCancel(ctx)
			if info, err := c.Execute(cctx, "SELECT l_comment, r.range FROM lineitem, range(10) r"); err == nil {
				if rdr, err := c.DoGet(cctx, info.Endpoint[0].Ticket); err == nil {
					rdr.Next()
					cancel()
					rdr.Release()
				}
			}
			cancel()
		}
	}()
	rep, err := RunLoad(ctx, LoadOptions{Addr: ts.addr, Clients: 4, PerClient: 40, Queries: queries, Timeout: 3 * time.Minute})
	close(stop)
	rounds := <-troubled
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors+rep.Wrong > 0 {
		t.Fatalf("good clients were disturbed by a bad one: %s", rep)
	}
	if rounds == 0 {
		t.Fatal("the troublesome client never ran")
	}
	t.Logf("%s; the troublesome client ran %d rounds meanwhile", rep, rounds)
}

// A panic inside a call becomes that call's INTERNAL error.
func TestPanicBecomesAnError(t *testing.T) {
	ts := startServer(t, Options{})
	_, err := ts.srv.unaryAuth(context.Background(), nil, &grpc.UnaryServerInfo{FullMethod: "/test"},
		func(context.Context, any) (any, error) { panic("boom") })
	wantCode(t, err, codes.Internal, "boom")
	if !ts.log.has("internal error (a bug) in /test: boom") {
		t.Fatal("the panic was not logged")
	}
}

package duckdbbridge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// oomDevice is the host device, except that its first failures Runs report
// that device memory ran out.
type oomDevice struct {
	*host.Device
	failures atomic.Int32
}

func (d *oomDevice) Run(ctx context.Context, p *gpu.Pipeline, in []gpu.Column) ([]gpu.Column, error) {
	if d.failures.Add(-1) >= 0 {
		return nil, fmt.Errorf("pipeline output: %w", gpu.ErrOutOfMemory)
	}
	return d.Device.Run(ctx, p, in)
}

func engineOn(t *testing.T, dev gpu.Device) *Engine {
	path := filepath.Join(t.TempDir(), "e.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE TABLE t (a BIGINT NOT NULL); INSERT INTO t SELECT range FROM range(1000)"); err != nil {
		t.Fatal(err)
	}
	return NewEngine(db, path, dev, "")
}

const oomQuery = "SELECT sum(a) AS s, count(*) AS n FROM t WHERE a >= 500"

func checkAnswer(t *testing.T, e *Engine, r *Result) {
	t.Helper()
	want, err := e.RunOnDuckDB(context.Background(), oomQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	if err := arrowfmt.Compare(r.Record, want.Record, true); err != nil {
		t.Fatal(err)
	}
}

// One out-of-memory failure: the engine drops its column cache, retries,
// and the device answers.
func TestOutOfMemoryRetriesAfterDroppingTheCache(t *testing.T) {
	dev := &oomDevice{Device: host.New()}
	dev.failures.Store(1)
	e := engineOn(t, dev)
	r, err := e.Query(context.Background(), oomQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if r.Where != OnHost {
		t.Fatalf("ran on %s (%s), want the device after a retry", r.Where, r.Reason)
	}
	checkAnswer(t, e, r)
}

// Out of memory again after the retry: DuckDB answers, and says why.
func TestOutOfMemoryFallsBack(t *testing.T) {
	dev := &oomDevice{Device: host.New()}
	dev.failures.Store(2)
	e := engineOn(t, dev)
	r, err := e.Query(context.Background(), oomQuery)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if r.Where != OnFallback || !strings.Contains(r.Reason, "out of device memory") {
		t.Fatalf("ran on %s with reason %q, want a fallback naming device memory", r.Where, r.Reason)
	}
	checkAnswer(t, e, r)
}

// LoadColumns puts a query's columns in the device cache and keeps no
// plan: the query's first run then plans, and reads nothing from DuckDB.
func TestLoadColumnsLoadsWithoutPlanning(t *testing.T) {
	e := NewEngine(openTestDB(t, false), "load-columns", host.New(), "")
	q := "SELECT l_returnflag, sum(l_quantity) FROM lineitem GROUP BY l_returnflag ORDER BY 1"
	if err := e.LoadColumns(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if n := e.Cache().Len(); n == 0 {
		t.Fatal("LoadColumns left the column cache empty")
	}
	r, err := e.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if r.Where != OnHost {
		t.Fatalf("ran on %s: %s", r.Where, r.Reason)
	}
	if r.PlanNanos == 0 {
		t.Error("the first run after LoadColumns did not plan: LoadColumns kept its plan")
	}
	if s := r.Stats.Scan; s.CacheMisses != 0 || s.BytesFromHost != 0 {
		t.Errorf("the first run read from DuckDB (%d misses, %d bytes): LoadColumns did not load its columns", s.CacheMisses, s.BytesFromHost)
	}
	if err := e.LoadColumns(context.Background(), "DELETE FROM lineitem"); !errors.Is(err, ErrNotAQuery) {
		t.Errorf("LoadColumns of a DELETE: %v, want ErrNotAQuery", err)
	}
}

// On a read-only database the producer's catalog lookups are kept across
// plans, and TablesChanged forgets them: a temporary table made again with
// other columns is planned with its new ones (the old lookup would not
// match the plan's columns).
func TestCatalogMemoForgetsOnTablesChanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ro.duckdb")
	w, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("CREATE TABLE t (a BIGINT NOT NULL); INSERT INTO t VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	db, id, err := OpenCatalog(context.Background(), CatalogSpec{DB: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := NewEngine(db, id, host.New(), "")
	if e.catalog == nil {
		t.Fatal("a read-only database has no catalog memo")
	}
	count := func(q string, want int64) {
		t.Helper()
		r, err := e.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Release()
		if got := arrowfmt.Value(r.Record.Column(0), 0); got != fmt.Sprint(want) {
			t.Fatalf("%s = %s (ran on %s), want %d", q, got, r.Where, want)
		}
	}
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	count("SELECT sum(a) FROM t WHERE a > 1", 2)
	if len(e.catalog.tables) == 0 {
		t.Fatal("the plan left the catalog memo empty")
	}
	exec("CREATE TEMP TABLE u (a BIGINT NOT NULL); INSERT INTO u VALUES (1), (2), (3)")
	count("SELECT count(a) FROM u WHERE a < 2 OR a IS NULL", 1)
	exec("DROP TABLE u; CREATE TEMP TABLE u (b BIGINT, a BIGINT); INSERT INTO u VALUES (7, 1), (8, NULL), (9, NULL)")
	e.TablesChanged()
	count("SELECT count(a) AS n FROM u WHERE a < 2 OR a IS NULL", 1)
}

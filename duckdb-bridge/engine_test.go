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

package duckdbbridge

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/internal/arrowrec"
)

// Out of device memory, the engine drops the cached columns and retries
// only where that could help: not for a request larger than the budget
// less what the cache does not hold.
func TestCacheCouldMakeRoom(t *testing.T) {
	oom := func(asked, inUse, budget int64) error {
		return fmt.Errorf("run: %w", &gpu.OutOfMemory{Device: "host", What: "a join", Asked: asked, InUse: inUse, Budget: budget})
	}
	for _, c := range []struct {
		name   string
		err    error
		cached int64
		want   bool
	}{
		{"the cache holds what is missing", oom(300, 900, 1000), 500, true},
		{"more than the whole budget", oom(5000, 900, 1000), 900, false},
		{"more than the budget less the rest", oom(700, 900, 1000), 500, false},
		{"an empty cache", oom(10, 995, 1000), 0, false},
		{"a device that does not say", fmt.Errorf("cuMemAlloc: %w", gpu.ErrOutOfMemory), 1, true},
		{"more rows than a column holds", fmt.Errorf("a cross join: %w", gpu.ErrBeyondDevice), 1 << 30, false},
		{"the host's memory", fmt.Errorf("loading t.c: %w", gpu.ErrHostMemory), 1 << 30, false},
	} {
		if got := cacheCouldMakeRoom(c.err, c.cached); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// An answer the engine holds whole (Query, a whole plan or a subtree run
// on DuckDB) is bounded: past the bound it is an error, not memory without
// end; a streamed answer (QueryStream) is not held and has no bound.
func TestAnswersHeldWholeAreBounded(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	e := NewEngine(db, "bounded", nil, "no device in this test")
	e.maxAnswer = 1 << 20
	ctx := context.Background()
	big := "SELECT range AS a, range * 2 AS b FROM range(1000000)"
	_, err = e.Query(ctx, big)
	if !errors.Is(err, arrowrec.ErrTooLarge) || !strings.Contains(err.Error(), "over the bound of 1048576 bytes") {
		t.Fatalf("Query of 16 MB: %v, want ErrTooLarge", err)
	}
	_, err = e.runner().RunOver(ctx, big, nil, nil)
	if !errors.Is(err, arrowrec.ErrTooLarge) {
		t.Fatalf("RunOver of 16 MB: %v, want ErrTooLarge", err)
	}
	res, err := e.Query(ctx, "SELECT range AS a FROM range(1000)")
	if err != nil || res.Record.NumRows() != 1000 {
		t.Fatalf("a small answer: %v", err)
	}
	res.Release()
	s, err := e.QueryStream(ctx, big)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	var rows int64
	for s.Next() {
		rows += s.RecordBatch().NumRows()
	}
	if s.Err() != nil || rows != 1000000 {
		t.Fatalf("the streamed answer: %d rows, %v", rows, s.Err())
	}
}

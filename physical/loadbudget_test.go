package physical

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// A load waits while others hold the budget, goes on when they give it
// back, stops with its context, and one larger than the whole budget is
// refused at once as out of memory.
func TestLoadBudget(t *testing.T) {
	b := &loadBudget{total: 100, changed: make(chan struct{})}
	ctx := context.Background()
	r1, err := b.acquire(ctx, 60, "t.a")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		r2, err := b.acquire(ctx, 60, "t.b")
		if err == nil {
			r2()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("the second load did not wait: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	r1()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if _, err := b.acquire(ctx, 101, "t.huge"); !errors.Is(err, gpu.ErrHostMemory) || !errors.Is(err, gpu.ErrOutOfMemory) || !strings.Contains(err.Error(), "t.huge") || !strings.Contains(err.Error(), "RIGEL_LOAD_MEMORY") {
		t.Fatalf("a load beyond the budget: %v", err)
	}
	r3, _ := b.acquire(ctx, 100, "t.c")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b.acquire(cctx, 1, "t.d"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v", err)
	}
	r3()
	if b.held != 0 {
		t.Fatalf("%d bytes still held", b.held)
	}
}

// countedSource is memSource with a row count, so that the cache bounds
// its loads.
type countedSource struct{ memSource }

func (countedSource) Rows(context.Context, string) (int64, error) { return 10, nil }

// The cache takes each column's estimate from the budget: a column that
// cannot fit is refused as out of memory (the query then runs on DuckDB),
// and what loads gives its share back.
func TestCacheLoadsWithinTheBudget(t *testing.T) {
	c := NewColumnCache()
	c.budget = &loadBudget{total: loadBytes(10, i64) - 1, changed: make(chan struct{})}
	var pins []*cacheEntry
	var st ScanStats
	dev := host.New()
	scan := &Scan{Table: "t", Columns: []string{"k"}, Types: []gpu.Type{i64}}
	if _, err := c.get(context.Background(), dev, &countedSource{}, scan, &st, &pins); !errors.Is(err, gpu.ErrOutOfMemory) {
		t.Fatalf("a column beyond the budget: %v", err)
	}
	c.budget.total = loadBytes(10, i64)
	if _, err := c.get(context.Background(), dev, &countedSource{}, scan, &st, &pins); err != nil {
		t.Fatal(err)
	}
	c.unpin(pins)
	if c.budget.held != 0 {
		t.Fatalf("%d bytes still held after the load", c.budget.held)
	}
}

// A long load says how far it got while it runs, then stops saying it.
func TestProgressEvery(t *testing.T) {
	c := NewColumnCache()
	lines := make(chan string, 100)
	c.Progress = func(msg string) { lines <- msg }
	stop := c.progressEvery(5*time.Millisecond, func() string { return "so far" })
	time.Sleep(40 * time.Millisecond)
	stop()
	got := len(lines)
	time.Sleep(20 * time.Millisecond)
	if got == 0 || len(lines) != got || <-lines != "so far" {
		t.Fatalf("%d progress lines, then %d", got, len(lines))
	}
	NewColumnCache().progressEvery(time.Millisecond, func() string { t.Fatal("no Progress, yet a line"); return "" })()
}

package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rigel-db/rigel/gpu"
)

// stopsSoon runs op, cancels its ctx after 100 ms and wants it to return
// context.Canceled within 2 s of the cancel: a liveness bound (op alone
// would run for many seconds), not a speed test.
func stopsSoon(t *testing.T, d *Device, op func(ctx context.Context) error) {
	t.Helper()
	live := d.Stats().BytesLive
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- op(ctx) }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	cancelled := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		t.Logf("returned %v after the cancel", time.Since(cancelled).Round(time.Millisecond))
	case <-time.After(2 * time.Second):
		// Wait for it: its columns are released when the test returns.
		t.Fatalf("still running 2 s after the cancel; it returned %v after %v",
			<-done, time.Since(cancelled).Round(time.Millisecond))
	}
	if got := d.Stats().BytesLive; got != live {
		t.Fatalf("%d bytes live after the cancelled operation, %d before", got, live)
	}
}

// An IN list of a large number of values is an OR of as many comparisons
// (translate's inList); 50,000 of them over a chunk of rows take seconds,
// so the run must check its ctx inside a chunk, not only between chunks.
func TestRunOfAHugeOrStopsSoonAfterCancel(t *testing.T) {
	d := budgeted(t, 1<<30)
	x := upload(t, d, 4*chunkRows, func(i int) int64 { return int64(i) })
	defer x.Release()
	eqs := make([]*gpu.Expr, 50_000)
	for i := range eqs {
		eqs[i] = gpu.Call(gpu.OpEq, gpu.Type{Kind: gpu.Bool}, gpu.Col(0, i64t), gpu.Const(i64t, gpu.Value{I64: -int64(i) - 1}))
	}
	p := &gpu.Pipeline{
		Inputs:  []gpu.Type{i64t},
		Filter:  gpu.Call(gpu.OpOr, gpu.Type{Kind: gpu.Bool}, eqs...),
		Project: []*gpu.Expr{gpu.Col(0, i64t)},
		Sink:    gpu.SinkMaterialize,
	}
	stopsSoon(t, d, func(ctx context.Context) error {
		out, err := d.Run(ctx, p, []gpu.Column{x})
		releaseAll(out)
		return err
	})
}

// A sort of millions of rows is one long loop unless it checks its ctx.
func TestSortStopsSoonAfterCancel(t *testing.T) {
	d := budgeted(t, 1<<30)
	const n = 8 << 20
	x := upload(t, d, n, func(i int) int64 { return int64((i * 7919) % n) })
	defer x.Release()
	stopsSoon(t, d, func(ctx context.Context) error {
		out, err := d.Sort(ctx, []gpu.Column{x}, []gpu.SortKey{{Col: 0, Descending: true}}, 0)
		releaseAll(out)
		return err
	})
}

// The merge sort gives slices.SortFunc's order: ties keep input order.
func TestSortPermMatchesAStableSort(t *testing.T) {
	d := budgeted(t, 1<<30)
	for _, n := range []int{0, 1, sortRun - 1, sortRun, sortRun + 1, 3*sortRun + 17, 5 * sortRun} {
		keys := make([]int64, n)
		for i := range keys {
			keys[i] = int64((i * 48271) % 97)
		}
		cmp := func(a, b int32) int {
			if keys[a] != keys[b] {
				return cmpInt(keys[a], keys[b])
			}
			return cmpInt(int64(a), int64(b))
		}
		perm := make([]int32, n)
		for i := range perm {
			perm[i] = int32(i)
		}
		if err := d.sortPerm(context.Background(), perm, cmp); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < n; i++ {
			if cmp(perm[i-1], perm[i]) >= 0 {
				t.Fatalf("%d rows: rows %d and %d out of order at %d", n, perm[i-1], perm[i], i)
			}
		}
		seen := make([]bool, n)
		for _, r := range perm {
			if seen[r] {
				t.Fatalf("%d rows: row %d twice", n, r)
			}
			seen[r] = true
		}
	}
}

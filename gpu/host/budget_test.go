package host

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

var i64t = gpu.Type{Kind: gpu.Int64}

// budgeted is a host device with a memory limit of limit bytes.
func budgeted(t *testing.T, limit int64) *Device {
	t.Helper()
	d, err := NewWithOptions(Options{MemoryLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// upload puts n int64 values f(i) on d.
func upload(t *testing.T, d *Device, n int, f func(i int) int64) gpu.Column {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append(f(i))
	}
	return uploadArray(t, d, b)
}

// uploadIndex puts n row indexes f(i) on d.
func uploadIndex(t *testing.T, d *Device, n int, f func(i int) int32) gpu.Column {
	t.Helper()
	b := array.NewInt32Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append(f(i))
	}
	return uploadArray(t, d, b)
}

// uploadArray puts what b holds on d.
func uploadArray(t *testing.T, d *Device, b array.Builder) gpu.Column {
	t.Helper()
	arr := b.NewArray()
	defer arr.Release()
	c, err := d.Upload(context.Background(), arr)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// allocated is the bytes the Go heap has handed out so far.
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// BytesLive counts what columns hold, from their creation to their
// Release, and every operation gives back its scratch.
func TestBytesLiveFollowsColumns(t *testing.T) {
	d := budgeted(t, 1<<30)
	if live := d.Stats().BytesLive; live != 0 {
		t.Fatalf("a new device holds %d bytes", live)
	}
	keys := upload(t, d, 1000, func(i int) int64 { return int64(i % 10) })
	if got, want := d.Stats().BytesLive, int64(1000*8); got != want {
		t.Fatalf("after one upload of 1000 int64: %d bytes live, want %d", got, want)
	}
	ctx := context.Background()
	p, b, err := d.HashJoin(ctx, []gpu.Column{keys}, []gpu.Column{keys}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sorted, err := d.Sort(ctx, []gpu.Column{keys}, []gpu.SortKey{{Col: 0}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	sums, err := d.Run(ctx, &gpu.Pipeline{
		Inputs:  []gpu.Type{i64t},
		Project: []*gpu.Expr{gpu.Col(0, i64t)},
		Keys:    []int{0},
		Aggs:    []gpu.Agg{{Kind: gpu.AggCountStar, Type: i64t}},
		Sink:    gpu.SinkAggregate,
	}, []gpu.Column{keys})
	if err != nil {
		t.Fatal(err)
	}
	held := []gpu.Column{keys, p, b, sorted[0], sums[0], sums[1]}
	var want int64
	for _, c := range held {
		want += vecBytes(c.(*column).data)
	}
	if got := d.Stats().BytesLive; got != want {
		t.Fatalf("%d bytes live, the columns hold %d", got, want)
	}
	releaseAll(held)
	if live := d.Stats().BytesLive; live != 0 {
		t.Fatalf("after every column's Release: %d bytes live", live)
	}
}

// An output whose size is known (a gather of a million rows) is refused
// before it is allocated, with what it was, the bytes and the budget.
func TestGatherPastTheBudgetAllocatesNothing(t *testing.T) {
	d := budgeted(t, 16<<20)
	cols := []gpu.Column{
		upload(t, d, 1000, func(i int) int64 { return int64(i) }),
		upload(t, d, 1000, func(i int) int64 { return int64(-i) }),
	}
	idx := uploadIndex(t, d, 1<<20, func(i int) int32 { return int32(i % 1000) }) // 8 MiB
	before, live := allocated(), d.Stats().BytesLive
	_, err := d.Gather(context.Background(), cols, idx, false)
	if !errors.Is(err, gpu.ErrOutOfMemory) {
		t.Fatalf("got %v, want ErrOutOfMemory", err)
	}
	for _, s := range []string{"gather of 1048576 rows", "memory budget", "16.0 MiB", "MemoryLimit"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error %q does not say %q", err, s)
		}
	}
	if grew := allocated() - before; grew > 1<<20 {
		t.Fatalf("the refused gather allocated %d bytes first", grew)
	}
	if got := d.Stats().BytesLive; got != live {
		t.Fatalf("%d bytes live after the refusal, %d before", got, live)
	}
}

// Keys that repeat on both sides multiply: 4096 x 4096 pairs (256 MiB of
// row indexes) pass a 64 MiB budget, and HashJoin stops when its pairs
// would, not after.
func TestHashJoinPairsStopAtTheBudget(t *testing.T) {
	const limit = 64 << 20
	d := budgeted(t, limit)
	same := upload(t, d, 4096, func(int) int64 { return 7 })
	live := d.Stats().BytesLive
	before := allocated()
	_, _, err := d.HashJoin(context.Background(), []gpu.Column{same}, []gpu.Column{same}, nil)
	if !errors.Is(err, gpu.ErrOutOfMemory) || !strings.Contains(err.Error(), "hash join of 4096 build rows and 4096 probe rows") {
		t.Fatalf("got %v, want ErrOutOfMemory naming the join", err)
	}
	// The pairs grow by half their room at a time, each growth reserved
	// first: what was allocated stays within the budget and the room
	// given up on the way.
	if grew := allocated() - before; grew > 3*limit {
		t.Fatalf("the refused join allocated %d bytes, for a budget of %d", grew, limit)
	}
	if got := d.Stats().BytesLive; got != live {
		t.Fatalf("%d bytes live after the refusal, %d before", got, live)
	}
}

// The device's checks of outputs the engine can size beforehand.
func TestCheckRows(t *testing.T) {
	d := budgeted(t, 1<<20)
	if err := d.CheckRows("small", 1000, []gpu.Type{i64t, i64t}); err != nil {
		t.Fatal(err)
	}
	err := d.CheckRows("a join without equal keys over 600000 x 25 rows", 15_000_000, []gpu.Type{i64t})
	if !errors.Is(err, gpu.ErrOutOfMemory) || !strings.Contains(err.Error(), "600000 x 25") {
		t.Fatalf("got %v", err)
	}
	// A row count times a width beyond int64 is refused, not wrapped.
	if err := d.CheckRows("huge", 1<<62, []gpu.Type{i64t, i64t, i64t}); !errors.Is(err, gpu.ErrOutOfMemory) {
		t.Fatalf("got %v", err)
	}
	if live := d.Stats().BytesLive; live != 0 {
		t.Fatalf("CheckRows left %d bytes reserved", live)
	}
}

func TestMemoryLimitOptions(t *testing.T) {
	if _, err := NewWithOptions(Options{MemoryLimit: -1}); err == nil || !strings.Contains(err.Error(), "MemoryLimit") {
		t.Fatalf("a negative limit: %v", err)
	}
	d, err := NewWithOptions(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.MemoryLimit() != DefaultMemoryLimit() || New().MemoryLimit() != DefaultMemoryLimit() {
		t.Fatalf("default limit %d, New %d, want %d", d.MemoryLimit(), New().MemoryLimit(), DefaultMemoryLimit())
	}
	if DefaultMemoryLimit() <= 0 || DefaultMemoryLimit() > gpu.ProcessMemory()/2 {
		t.Fatalf("default limit %d of %d bytes of memory", DefaultMemoryLimit(), gpu.ProcessMemory())
	}
}

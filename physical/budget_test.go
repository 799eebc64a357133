package physical

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// counting is a Values node of n int64 rows 0..n-1.
func counting(n int) *Values {
	v := &Values{Types: []gpu.Type{i64}, Rows: make([][]gpu.Value, n)}
	for i := range v.Rows {
		v.Rows[i] = []gpu.Value{{I64: int64(i)}}
	}
	return v
}

func budgetedHost(t *testing.T, limit int64) *host.Device {
	t.Helper()
	d, err := host.NewWithOptions(host.Options{MemoryLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func heapAllocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// A cross join whose pairs cannot fit the device's budget is refused before
// its pairs are listed (SELECT * FROM lineitem, nation killed the process):
// 3,000 x 3,000 rows make 9M pairs, 288 MiB on the host device, for a
// budget of 64 MiB.
func TestCrossJoinPastTheBudgetBuildsNothing(t *testing.T) {
	dev := budgetedHost(t, 64<<20)
	x := &Executor{Dev: dev, Source: &memSource{}, Cache: NewColumnCache()}
	join := &Join{Left: counting(3000), Right: counting(3000), Type: JoinInner}
	before := heapAllocated()
	_, _, err := x.Run(context.Background(), join, []string{"a", "b"})
	if !errors.Is(err, gpu.ErrOutOfMemory) || !strings.Contains(err.Error(), "3000 x 3000 rows") {
		t.Fatalf("got %v, want ErrOutOfMemory naming the cross join", err)
	}
	// The two Values tables and their uploads: well under the 72 MiB the
	// pair lists alone would take.
	if grew := heapAllocated() - before; grew > 16<<20 {
		t.Fatalf("the refused cross join allocated %d bytes", grew)
	}
	if live := dev.Stats().BytesLive; live != 0 {
		t.Fatalf("%d bytes live after the refused run", live)
	}
}

// A union past the budget is refused before its parts are concatenated.
func TestUnionPastTheBudgetIsRefused(t *testing.T) {
	dev := budgetedHost(t, 1<<20)
	x := &Executor{Dev: dev, Source: &memSource{}, Cache: NewColumnCache()}
	u := &Union{Inputs: []Node{counting(40_000), counting(40_000)}} // 640 KiB of inputs, as much again to concatenate
	_, _, err := x.Run(context.Background(), u, []string{"a"})
	if !errors.Is(err, gpu.ErrOutOfMemory) || !strings.Contains(err.Error(), "a union of 80000 rows") {
		t.Fatalf("got %v, want ErrOutOfMemory naming the union", err)
	}
	if live := dev.Stats().BytesLive; live != 0 {
		t.Fatalf("%d bytes live after the refused run", live)
	}
}

// A query cancelled while the device evaluates it (an IN list of 50,000
// values, which runs for many seconds on the host device) returns
// context.Canceled within a liveness bound of 2 s, and gives back all the
// memory it held.
func TestCancelledQueryStopsAndFreesItsMemory(t *testing.T) {
	dev := budgetedHost(t, 1<<30)
	x := &Executor{Dev: dev, Source: &memSource{}, Cache: NewColumnCache()}
	eqs := make([]*gpu.Expr, 50_000)
	for i := range eqs {
		eqs[i] = gpu.Call(gpu.OpEq, gpu.Type{Kind: gpu.Bool}, gpu.Col(0, i64), gpu.Const(i64, gpu.Value{I64: -int64(i) - 1}))
	}
	plan := &Pipeline{Input: counting(40_000), Pipe: &gpu.Pipeline{
		Inputs:  []gpu.Type{i64},
		Filter:  gpu.Call(gpu.OpOr, gpu.Type{Kind: gpu.Bool}, eqs...),
		Project: []*gpu.Expr{gpu.Col(0, i64)},
		Sink:    gpu.SinkMaterialize,
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		rec, _, err := x.Run(ctx, plan, []string{"a"})
		if rec != nil {
			rec.Release()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	cancelled := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
		// The node's text in the error is cut (errorText): the filter's
		// own is 1.2 MB.
		if len(err.Error()) > 2*maxErrorText {
			t.Fatalf("a %d-byte error", len(err.Error()))
		}
	case <-time.After(2 * time.Second):
		t.Fatalf("still running 2 s after the cancel; it returned %v after %v", <-done, time.Since(cancelled).Round(time.Millisecond))
	}
	if live := dev.Stats().BytesLive; live != 0 {
		t.Fatalf("%d bytes live after the cancelled query", live)
	}
}

// unbudgeted hides the host device's own budget, as the CUDA device has
// none of its kind (gpu.MemoryBudget), and says it has total bytes.
type unbudgeted struct {
	gpu.Device // an interface: the host device's CheckRows is not promoted
	total      int64
}

func (u unbudgeted) Info() gpu.Info {
	in := u.Device.Info()
	in.TotalMemory, in.FreeMemory = u.total, u.total
	return in
}

// On a device without a budget of its own, a cross join no device column
// could hold is refused before its pair lists are built in host memory:
// past 2^31-1 rows (row indexes are 32-bit), or past the device's memory.
func TestCrossJoinNoDeviceCouldHoldIsRefused(t *testing.T) {
	dev := unbudgeted{host.New(), 1 << 20}
	x := &Executor{Dev: dev, Source: &memSource{}, Cache: NewColumnCache()}
	for _, c := range []struct {
		left, right int
		says        string
	}{
		{50_000, 50_000, "more than a device column holds"},
		{1000, 1000, "needs 15.3 MiB more"},
	} {
		join := &Join{Left: counting(c.left), Right: counting(c.right), Type: JoinInner}
		before := heapAllocated()
		_, _, err := x.Run(context.Background(), join, []string{"a", "b"})
		if !errors.Is(err, gpu.ErrOutOfMemory) || !strings.Contains(err.Error(), c.says) {
			t.Fatalf("%d x %d: got %v, want ErrOutOfMemory saying %q", c.left, c.right, err, c.says)
		}
		if grew := heapAllocated() - before; grew > 16<<20 {
			t.Fatalf("%d x %d: the refused cross join allocated %d bytes", c.left, c.right, grew)
		}
	}
}

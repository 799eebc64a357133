package physical

import (
	"context"
	"testing"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// A join streams the side its type keeps whole per row: both sides of an
// inner join, the left of left, semi, anti and single joins, the right of
// a right join, neither side of a full join.
func TestJoinTypeStreamsSide(t *testing.T) {
	for _, c := range []struct {
		t           JoinType
		left, right bool
	}{
		{JoinInner, true, true}, {JoinLeft, true, false}, {JoinSemi, true, false}, {JoinAnti, true, false},
		{JoinSingle, true, false}, {JoinRight, false, true}, {JoinFull, false, false},
	} {
		if got := c.t.streamsSide(true); got != c.left {
			t.Errorf("%s join streams its left side: %v, want %v", c.t, got, c.left)
		}
		if got := c.t.streamsSide(false); got != c.right {
			t.Errorf("%s join streams its right side: %v, want %v", c.t, got, c.right)
		}
	}
}

// The segments' groups merge by the same keys: counts summed (as
// decimals, then cast back to their int64), sums summed, minimums and
// maximums kept; the merged types are the aggregate's own.
func TestMergeAggregates(t *testing.T) {
	i64 := gpu.Type{Kind: gpu.Int64}
	dec := gpu.Type{Kind: gpu.Decimal64, Precision: 15, Scale: 2}
	sum := gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: 2, Nullable: true}
	p := &gpu.Pipeline{Inputs: []gpu.Type{gpu.Type{Kind: gpu.Dict}, dec}, Sink: gpu.SinkAggregate,
		Project: []*gpu.Expr{gpu.Col(0, gpu.Type{Kind: gpu.Dict}), gpu.Col(1, dec)}, Keys: []int{0},
		Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: i64}, {Kind: gpu.AggSum, Arg: 1, Type: sum},
			{Kind: gpu.AggMin, Arg: 1, Type: dec.WithNullable(true)}, {Kind: gpu.AggCount, Arg: 1, Type: i64}}}
	merge, final := mergeAggregates(p)
	if merge == nil || final == nil {
		t.Fatal("no merge for count, sum, min and count")
	}
	kinds := []gpu.AggKind{gpu.AggSum, gpu.AggSum, gpu.AggMin, gpu.AggSum}
	for j, a := range merge.Aggs {
		if a.Kind != kinds[j] || a.Arg != 1+j {
			t.Errorf("merge aggregate %d: %s of #%d, want %s of #%d", j, a.Kind, a.Arg, kinds[j], 1+j)
		}
	}
	want, got := p.OutputTypes(), final.OutputTypes()
	for i := range want {
		if got[i].Kind != want[i].Kind || got[i].Scale != want[i].Scale {
			t.Errorf("merged column %d is %s, the aggregate's %s", i, got[i], want[i])
		}
	}
	if e := final.Project[1]; e.Op != gpu.OpCast {
		t.Errorf("the merged count is %s, want a cast to int64", e)
	}
	if m, f := mergeAggregates(&gpu.Pipeline{Inputs: []gpu.Type{dec}, Sink: gpu.SinkAggregate,
		Project: []*gpu.Expr{gpu.Col(0, dec)}, Aggs: []gpu.Agg{{Kind: gpu.AggMax, Arg: 0, Type: dec.WithNullable(true)}}}); m == nil || f != nil {
		t.Errorf("a max merges with no cast: merge %v, final %v", m, f)
	}
}

// Out of device memory, the engine frees the cached device columns
// (FreeDeviceColumns) and keeps what host memory holds: a streamed table's
// columns and their spilled segments, which the retry streams again
// without reading the source.
func TestFreeDeviceColumnsKeepsHostColumns(t *testing.T) {
	dev := host.New()
	c := NewColumnCache()
	src := &memSource{}
	s := &Scan{Table: "t", Columns: []string{"k", "v"}, Types: []gpu.Type{i64, i64}}
	var pins []*cacheEntry
	var st ScanStats
	if _, err := c.get(context.Background(), dev, src, &Scan{Table: "u", Columns: []string{"k"}, Types: []gpu.Type{i64}}, &st, &pins); err != nil {
		t.Fatal(err)
	}
	c.unpin(pins)
	held, err := c.hostColumns(context.Background(), src, s, 4)
	if err != nil {
		t.Fatal(err)
	}
	for k := int64(0); k < 3; k++ {
		col, release, err := c.segmentColumn(context.Background(), dev, held[0], i64, 4, k, 4*k, min(4*k+4, 10), &st)
		if err != nil {
			t.Fatal(err)
		}
		if col.Len() != int(min(4*k+4, 10)-4*k) {
			t.Fatalf("segment %d: %d rows", k, col.Len())
		}
		release()
	}
	c.unpinHost(held)
	before := c.Stats()
	c.FreeDeviceColumns()
	after := c.Stats()
	if after.Entries != 0 || after.Bytes != 0 || after.HostBytes != before.HostBytes || after.HostBytes == 0 {
		t.Fatalf("after FreeDeviceColumns: %+v (before: %+v)", after, before)
	}
	scans := src.scans
	held, err = c.hostColumns(context.Background(), src, s, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer c.unpinHost(held)
	col, release, err := c.segmentColumn(context.Background(), dev, held[0], i64, 4, 0, 0, 4, &st)
	if err != nil {
		t.Fatal(err)
	}
	release()
	if col == nil || src.scans != scans || st.SegmentsRestored == 0 {
		t.Fatalf("the retry read the source again (%d scans, %d before) or restored nothing (%+v)", src.scans, scans, st)
	}
}

// Segments hold a quarter of the budget at 64 bytes a row, whatever the
// scan; a scan of strings in Arrow layout takes at most 2^23 rows a
// segment, so that a segment's characters stay within 32-bit offsets
// (TPC-H SF100's o_comment: 7.3 GB in all).
func TestSegmentRowsFor(t *testing.T) {
	i64 := gpu.Type{Kind: gpu.Int64}
	plain := &Scan{Types: []gpu.Type{i64, i64}}
	strs := &Scan{Types: []gpu.Type{i64, {Kind: gpu.Str}}}
	for _, c := range []struct {
		budget int64
		s      *Scan
		want   int64
	}{
		{16 << 30, plain, 1 << 26},
		{16 << 30, strs, 1 << 23},
		{2 << 30, plain, 1 << 23},
		{2 << 30, strs, 1 << 23},
		{16 << 20, strs, 1 << 16},
	} {
		if got := segmentRowsFor(c.budget, c.s, 1<<30); got != c.want {
			t.Errorf("budget %d, %d columns (strings: %v): %d rows a segment, want %d", c.budget, len(c.s.Types), scansStr(c.s), got, c.want)
		}
	}
}

// Strings in Arrow layout may reach the aggregate where the segments meet
// when they come from a side that runs once (TPC-H Q10 groups lineitem's
// revenue by customer's names and comments): every segment's groups are
// views of that side's upload, which the devices put together. When the
// streamed scan reads strings as well, nothing tells whose the grouped
// ones are, and nothing streams.
func TestChunkedGroupsByOtherSidesStrings(t *testing.T) {
	str := gpu.Type{Kind: gpu.Str}
	plan := func(ordersStr bool) (Node, *Scan) {
		customer := &Scan{Table: "customer", Columns: []string{"c_custkey", "c_name"}, Types: []gpu.Type{i64, str}}
		orders := &Scan{Table: "orders", Columns: []string{"o_custkey", "o_total"}, Types: []gpu.Type{i64, i64}}
		var probe Node = orders
		if ordersStr {
			orders.Columns, orders.Types = append(orders.Columns, "o_comment"), append(orders.Types, str)
			probe = &Pipeline{Input: orders, Pipe: &gpu.Pipeline{Inputs: orders.Types, Sink: gpu.SinkMaterialize,
				Filter:  gpu.Call(gpu.OpStrPred, gpu.Type{Kind: gpu.Bool}, gpu.Col(2, str)),
				Project: []*gpu.Expr{gpu.Col(0, i64), gpu.Col(1, i64)}}}
		}
		join := &Join{Left: probe, Right: customer, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}
		in := join.OutputTypes() // o_custkey, o_total, c_custkey, c_name
		sum := gpu.Type{Kind: gpu.Decimal128, Precision: 38, Nullable: true}
		return &Pipeline{Input: join, Pipe: &gpu.Pipeline{Inputs: in, Sink: gpu.SinkAggregate,
			Project: []*gpu.Expr{gpu.Col(2, i64), gpu.Col(3, str), gpu.Col(1, i64)}, Keys: []int{0, 1},
			Aggs: []gpu.Agg{{Kind: gpu.AggSum, Arg: 2, Type: sum}}}}, orders
	}
	ctx := context.Background()
	x := &Executor{Dev: host.New(), Source: plannedSource{"customer": 1 << 16, "orders": 1 << 24}, DeviceMemory: 256 << 20}
	root, orders := plan(false)
	c, ok := x.PlanChunks(ctx, root).(*Chunked)
	if !ok || c.Stream != orders || c.Merge == nil {
		t.Fatalf("grouped by customer's strings, orders without: got %s, want orders streamed to a merged aggregate", Explain(x.PlanChunks(ctx, root), "host"))
	}
	root, _ = plan(true)
	if got := x.PlanChunks(ctx, root); got != root {
		t.Errorf("orders reads strings too: got %s, want the plan resident", Explain(got, "host"))
	}
}

package physical

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
)

// A partition cut keeps every row in exactly one partition: rows with
// equal keys together (an int32 key on one side and an int64 one on the
// other hash alike), null keys in the first; and the hash spreads
// sequential, strided and TPC-H's sparse order keys evenly.
func TestPartitionCutKeepsEveryRowOnce(t *testing.T) {
	ctx := context.Background()
	dev := host.New()
	const parts, n = 8, 1 << 14
	for _, keys := range []struct {
		name string
		key  func(i int) int64
	}{
		{"sequential", func(i int) int64 { return int64(i) }},
		{"order keys", func(i int) int64 { return int64(i/8*32 + i%8 + 1) }},
		{"multiples of 1024", func(i int) int64 { return int64(i) * 1024 }},
		{"negative", func(i int) int64 { return -int64(i) }},
	} {
		partOf := map[int64]int{}
		for _, kind := range []gpu.Kind{gpu.Int32, gpu.Int64} {
			kb := array.NewInt64Builder(memory.DefaultAllocator)
			var kcol gpu.Column
			var err error
			if kind == gpu.Int64 {
				for i := range n {
					if i%97 == 0 {
						kb.AppendNull()
					} else {
						kb.Append(keys.key(i))
					}
				}
				arr := kb.NewArray()
				kcol, err = dev.Upload(ctx, arr)
				arr.Release()
			} else {
				b := array.NewInt32Builder(memory.DefaultAllocator)
				for i := range n {
					if i%97 == 0 {
						b.AppendNull()
					} else {
						b.Append(int32(keys.key(i)))
					}
				}
				arr := b.NewArray()
				kcol, err = dev.Upload(ctx, arr)
				arr.Release()
				b.Release()
			}
			kb.Release()
			if err != nil {
				t.Fatal(err)
			}
			types := []gpu.Type{{Kind: kind, Nullable: true}}
			pc := newPartitionCut(types, 0, parts)
			h, err := dev.Run(ctx, pc.hash, []gpu.Column{kcol})
			if err != nil {
				t.Fatalf("%s %s: hash: %v", keys.name, kind, err)
			}
			seen, nulls := 0, 0
			for k, keep := range pc.keep {
				piece, err := dev.Run(ctx, keep, []gpu.Column{kcol, h[0]})
				if err != nil {
					t.Fatalf("%s %s: partition %d: %v", keys.name, kind, k, err)
				}
				arr, err := dev.Download(ctx, piece[0])
				if err != nil {
					t.Fatal(err)
				}
				rows := arr.Len()
				if spread := float64(rows) * parts / n; spread < 0.9 || spread > 1.1 {
					t.Errorf("%s %s: partition %d holds %d rows of %d, %.2f times an even share", keys.name, kind, k, rows, n, spread)
				}
				for i := range rows {
					if arr.IsNull(i) {
						nulls++
						if k != 0 {
							t.Errorf("%s %s: a null key in partition %d", keys.name, kind, k)
						}
						continue
					}
					var v int64
					if a, ok := arr.(*array.Int64); ok {
						v = a.Value(i)
					} else {
						v = int64(arr.(*array.Int32).Value(i))
					}
					if p, ok := partOf[v]; ok && p != k {
						t.Errorf("%s %s: key %d in partitions %d and %d", keys.name, kind, v, p, k)
					}
					partOf[v] = k
				}
				seen += rows
				arr.Release()
				releaseColumns(piece)
			}
			if seen != n || nulls != (n+96)/97 {
				t.Errorf("%s %s: the partitions hold %d rows (%d null keys), the input %d (%d)", keys.name, kind, seen, nulls, n, (n+96)/97)
			}
			releaseColumns(h)
			kcol.Release()
		}
	}
}

// A partitioned join runs in one partition when its build side, measured,
// fits beside the cache, else in enough that a partition of both sides
// and the hash table take a partitionShare of the budget, a power of two
// at most the partitions the build side was cut in.
func TestPartitionedJoinPartsFor(t *testing.T) {
	p := &PartitionedJoin{Parts: 16, Budget: 64 << 20, ProbeBytes: 32 << 20}
	for _, c := range []struct {
		build int64
		want  int
	}{
		{1 << 20, 1},   // 2 MiB with its hash table, against half of 64
		{16 << 20, 1},  // 32 MiB: exactly half
		{17 << 20, 16}, // (32 + 34) / 8 MiB = 8.25: 16
		{12 << 30, 16}, // far more: the 16 it was cut in
	} {
		if got := p.partsFor(c.build); got != c.want {
			t.Errorf("a build side of %d bytes: %d partitions, want %d", c.build, got, c.want)
		}
	}
	p.ProbeBytes = 0
	if got := p.partsFor(17 << 20); got != 8 {
		t.Errorf("a build side of 17 MiB and no probe side: %d partitions, want 8 (34 / 8 MiB: 4.25)", got)
	}
}

// plannedSource is a TableSource for planning alone: it counts tables'
// rows and reads nothing.
type plannedSource map[string]int64

func (c plannedSource) ID() string { return "planned" }
func (c plannedSource) TableSchema(ctx context.Context, table string) (*arrow.Schema, error) {
	return nil, errors.New("planning only")
}
func (c plannedSource) ScanColumns(ctx context.Context, table string, cols []string) (array.RecordReader, error) {
	return nil, errors.New("planning only")
}
func (c plannedSource) Rows(ctx context.Context, table string) (int64, error) { return c[table], nil }

// customerOrders is SELECT count(*) FROM customer LEFT JOIN orders ON
// c_custkey = o_custkey AND o_comment LIKE ..., the strings of orders in
// Arrow layout: TPC-H Q13's shape.
func customerOrders() Node {
	str := gpu.Type{Kind: gpu.Str}
	customer := &Scan{Table: "customer", Columns: []string{"c_custkey"}, Types: []gpu.Type{i64}}
	orders := &Scan{Table: "orders", Columns: []string{"o_custkey", "o_comment"}, Types: []gpu.Type{i64, str}}
	like := &Pipeline{Input: orders, Pipe: &gpu.Pipeline{Inputs: orders.Types, Sink: gpu.SinkMaterialize,
		Filter:  gpu.Call(gpu.OpStrPred, gpu.Type{Kind: gpu.Bool}, gpu.Col(1, str)),
		Project: []*gpu.Expr{gpu.Col(0, i64)}}}
	join := &Join{Left: customer, Right: like, Type: JoinLeft, LeftKeys: []int{0}, RightKeys: []int{0}}
	in := join.OutputTypes()
	return &Pipeline{Input: join, Pipe: &gpu.Pipeline{Inputs: in, Sink: gpu.SinkAggregate,
		Project: []*gpu.Expr{gpu.Col(0, in[0])}, Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: i64}}}}
}

// A scan of strings in Arrow layout too long for one array (orders at
// SF100: 150 M rows) streams whatever the budget: on the build side of a
// left join, where only partitions can take it, the join runs partitioned
// and the scan streams in segments of strSegmentRows. At SF10 (15 M rows)
// the plan stays as it was.
func TestLongStringsStream(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		orders      int64
		partitioned bool
	}{{150_000_000, true}, {15_000_000, false}} {
		x := &Executor{Dev: host.New(), Source: plannedSource{"customer": c.orders / 10, "orders": c.orders}, DeviceMemory: 80 << 30}
		root := x.PlanChunks(ctx, x.PlanPartitions(ctx, customerOrders()))
		var pj *PartitionedJoin
		walkPlan(root, func(n Node) {
			if p, ok := n.(*PartitionedJoin); ok {
				pj = p
			}
		})
		if (pj != nil) != c.partitioned {
			t.Fatalf("%d orders: partitioned %v, want %v", c.orders, pj != nil, c.partitioned)
		}
		if pj == nil {
			continue
		}
		side := pj.Sides[1]
		if side.Stream == nil || side.Stream.Table != "orders" || side.SegmentRows != strSegmentRows {
			t.Errorf("%d orders: the build side streams %v in segments of %d rows, want orders in %d", c.orders, side.Stream, side.SegmentRows, strSegmentRows)
		}
	}
}

// The subtrees a part's runs share run once, and those already given
// (a partitioned join's build side, run before) not at all: the build
// side of TPC-H Q20's partitioned join, a chunked scan of lineitem, ran
// twice before (rigel explain --analyze --device-memory 200MB at SF1:
// 155 launches, 84 without the partitioned join).
func TestRunResidentSkipsGiven(t *testing.T) {
	ctx := context.Background()
	src := &memSource{}
	x := &Executor{Dev: host.New(), Source: src, Cache: NewColumnCache()}
	r := &run{x: x, st: &RunStats{OpNanos: map[string]int64{}}}
	defer r.releaseAll()
	k := &Scan{Table: "t", Columns: []string{"k"}, Types: []gpu.Type{i64}}
	v := &Scan{Table: "t", Columns: []string{"v"}, Types: []gpu.Type{i64}}
	w := &Scan{Table: "t", Columns: []string{"k", "v"}, Types: []gpu.Type{i64, i64}}
	inner := &Join{Left: k, Right: v, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}
	body := &Join{Left: inner, Right: w, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}
	given := map[Node][]gpu.Column{w: nil}
	if err := r.runResident(ctx, body, func(n Node) bool { return n == Node(k) }, given); err != nil {
		t.Fatal(err)
	}
	if _, ok := given[v]; !ok || src.scans != 1 {
		t.Errorf("ran %d scans (v given: %v), want v's alone", src.scans, ok)
	}
}

// Joins are cut by plain integer keys only (a decimal's cast to int64
// rounds and may overflow, a date has no cast to hash), and not when a
// side holds strings in Arrow layout, which no device copies to host
// memory.
func TestPartitionable(t *testing.T) {
	side := func(types ...gpu.Type) Node { return &Scan{Table: "t", Types: types} }
	i32, dec := gpu.Type{Kind: gpu.Int32}, gpu.Type{Kind: gpu.Decimal64, Precision: 15}
	date, str := gpu.Type{Kind: gpu.Date32}, gpu.Type{Kind: gpu.Str}
	for _, c := range []struct {
		left, right Node
		want        bool
	}{
		{side(i32), side(i64), true},
		{side(i64, i64), side(i64), true},
		{side(dec), side(dec), false},
		{side(date), side(date), false},
		{side(i64, str), side(i64), false},
	} {
		j := &Join{Left: c.left, Right: c.right, Type: JoinInner, LeftKeys: []int{0}, RightKeys: []int{0}}
		if got := partitionable(j); got != c.want {
			t.Errorf("%v joined with %v: partitionable %v, want %v", c.left.OutputTypes(), c.right.OutputTypes(), got, c.want)
		}
	}
}

package devicetest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

// Columns a device may hold packed (gpu.PackedColumn: gpu/cuda, with
// packing on as its battery runs it, packs integer uploads of at least
// 65536 rows with gpu/forpack). Every use of
// such a column must see the values uploaded: generated kernels and the
// program interpreter decode them in registers, the other operations
// read them unpacked. On a device that packs nothing the cases check the
// same answers.
func packedCases() []testCase {
	return []testCase{
		{"packed/every_use", testPackedEveryUse},
		{"packed/segments", testPackedSegments},
	}
}

// packedRows is more than the 65536 rows the CUDA device packs from, and
// not a whole number of its 128-row blocks.
const packedRows = 200_003

// packedValues are columns of each integer kind a device packs, in
// shapes that take each width: narrow ranges, constant runs, sorted keys,
// a kind's extremes (width 32 and 64), with nulls or not.
func packedValues(nulls bool) map[string]struct {
	dt   arrow.DataType
	vals []any
} {
	rng := rand.New(rand.NewPCG(7, 11))
	gen := func(f func(i int) int64) []any {
		v := make([]any, packedRows)
		for i := range v {
			if nulls && i%7 == 3 {
				continue
			}
			v[i] = f(i)
		}
		return v
	}
	return map[string]struct {
		dt   arrow.DataType
		vals []any
	}{
		"decimal_discount": {Dec(15, 2), gen(func(int) int64 { return rng.Int64N(11) })},
		"decimal_price":    {Dec(15, 2), gen(func(int) int64 { return 90000 + rng.Int64N(10_000_000) })},
		"int64_sorted":     {I64, gen(func(i int) int64 { return int64(i)*4 + rng.Int64N(4) })},
		"int64_runs":       {I64, gen(func(i int) int64 { return int64(i / 1000) })},
		"int64_extremes":   {I64, gen(func(i int) int64 { return []int64{math.MinInt64, math.MaxInt64, -1, 0}[rng.IntN(4)] })},
		"int32_extremes":   {I32, gen(func(i int) int64 { return []int64{math.MinInt32, math.MaxInt32, 0}[rng.IntN(3)] })},
		"int32_negative":   {I32, gen(func(int) int64 { return -rng.Int64N(1 << 20) })},
		// Width 32 of an int64, and bases far from 0: packed while the
		// base fits the 57 bits kernels take it in (gpu/cuda's frameWord).
		"int64_width32":   {I64, gen(func(int) int64 { return -5 + rng.Int64N(1<<32) })},
		"int64_base_2^55": {I64, gen(func(int) int64 { return 1<<55 + rng.Int64N(1000) })},
		"int64_base_2^60": {I64, gen(func(int) int64 { return 1<<60 + rng.Int64N(1000) })},
		"date":            {Date, gen(func(int) int64 { return 8035 + rng.Int64N(2557) })},
	}
}

// packedOnCUDA are the columns of packedValues the CUDA device packs: the
// others need more than 32 bits, or save less than a quarter in its
// widths of 8, 16 or 32 bits (int32_negative's 21 bits take 32), or have
// a base past 57 bits.
var packedOnCUDA = map[string]bool{
	"decimal_discount": true, "decimal_price": true, "int64_sorted": true, "int64_runs": true,
	"int64_width32": true, "int64_base_2^55": true, "date": true,
}

// packedBytes is col's packed size, 0 when the device holds it plain.
func packedBytes(col gpu.Column) int64 {
	if p, ok := col.(gpu.PackedColumn); ok {
		return p.PackedBytes()
	}
	return 0
}

// A packed column read every way: downloaded, filtered and projected by a
// pipeline (beside a second packed column), sorted, used as a join key and
// gathered; each against the values uploaded.
func testPackedEveryUse(t *testing.T, dev gpu.Device) {
	for _, nulls := range []bool{false, true} {
		for name, c := range packedValues(nulls) {
			t.Run(fmt.Sprintf("%s/nulls=%v", name, nulls), func(t *testing.T) {
				a := MakeArray(c.dt, c.vals...)
				defer a.Release()
				keys := make([]any, packedRows)
				for i := range keys {
					keys[i] = int64(packedRows - i) // descending: a sort must move every row
				}
				b := MakeArray(I64, keys...)
				defer b.Release()
				a.Retain()
				b.Retain()
				cols, types := table(t, dev, a, b)
				defer ReleaseCols(cols)
				// A null row holds 0 in the Arrow buffer: the frame takes it in.
				wantPacked := packedOnCUDA[name] && !(nulls && name == "int64_base_2^55")
				if _, ok := cols[0].(gpu.PackedColumn); ok && (packedBytes(cols[0]) > 0) != wantPacked {
					t.Fatalf("%s column of %d rows packed: %v, want %v", types[0], packedRows, packedBytes(cols[0]) > 0, wantPacked)
				}

				// Download: the rows uploaded.
				if err := EqualRows(Rows(t, dev, cols[:1]), RowStrings([]arrow.Array{a}), true, 0); err != nil {
					t.Fatalf("download: %v", err)
				}

				// A pipeline: a >= the middle value (nulls drop), projecting a and b.
				mid := c.vals[packedRows/2]
				for i := packedRows / 2; mid == nil; i++ {
					mid = c.vals[i]
				}
				var want []string
				for i, v := range c.vals {
					if v != nil && v.(int64) >= mid.(int64) {
						want = append(want, Row(FormatCell(a, i), FormatCell(b, i)))
					}
				}
				p := &gpu.Pipeline{
					Inputs:  types,
					Filter:  gpu.Call(gpu.OpGe, gpu.Type{Kind: gpu.Bool, Nullable: types[0].Nullable}, gpu.Col(0, types[0]), gpu.Const(types[0].WithNullable(false), gpu.Value{I64: mid.(int64)})),
					Project: []*gpu.Expr{gpu.Col(0, types[0]), gpu.Col(1, types[1])},
					Sink:    gpu.SinkMaterialize,
				}
				expectRows(t, RunPipeline(t, dev, p, cols), want, true)

				// Sort by a (nulls first), then b: the rows in that order.
				order := make([]int, packedRows)
				for i := range order {
					order[i] = i
				}
				sort.SliceStable(order, func(x, y int) bool {
					vx, vy := c.vals[order[x]], c.vals[order[y]]
					if (vx == nil) != (vy == nil) {
						return vx == nil
					}
					if vx != nil && vx.(int64) != vy.(int64) {
						return vx.(int64) < vy.(int64)
					}
					return keys[order[x]].(int64) < keys[order[y]].(int64)
				})
				want = want[:0]
				for _, i := range order {
					want = append(want, Row(FormatCell(a, i), FormatCell(b, i)))
				}
				sorted, err := dev.Sort(context.Background(), cols, []gpu.SortKey{{Col: 0, NullsFirst: true}, {Col: 1}}, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer ReleaseCols(sorted)
				expectRows(t, Rows(t, dev, sorted), want, true)

				// A self join on b (packed too: sorted keys), each row
				// finding itself, and a gathered by the pairs: a's rows.
				probeIdx, buildIdx, err := dev.HashJoin(context.Background(), cols[1:], cols[1:], []bool{false})
				if err != nil {
					t.Fatal(err)
				}
				defer probeIdx.Release()
				defer buildIdx.Release()
				if probeIdx.Len() != packedRows {
					t.Fatalf("self join on unique keys: %d pairs, want %d", probeIdx.Len(), packedRows)
				}
				for _, idx := range []gpu.Column{probeIdx, buildIdx} {
					g, err := dev.Gather(context.Background(), cols, idx, false)
					if err != nil {
						t.Fatal(err)
					}
					defer ReleaseCols(g)
					want = want[:0]
					for i := range c.vals {
						want = append(want, Row(FormatCell(a, i), FormatCell(b, i)))
					}
					expectRows(t, Rows(t, dev, g), want, false)
				}
			})
		}
	}
}

// A packed column uploaded in segments is the column uploaded whole:
// segments that end inside a word (the next continues it), and segments
// outside the first one's frame (sorted keys: the column turns plain).
func testPackedSegments(t *testing.T, dev gpu.Device) {
	if _, ok := dev.(gpu.SegmentUploader); !ok {
		t.Skip("the device uploads no segments")
	}
	for name, c := range packedValues(true) {
		for _, per := range []int{1 << 16, 100_000, 99, packedRows} {
			if per == 99 && name != "decimal_price" && name != "date" {
				continue // 2,000 segments: two widths are enough
			}
			t.Run(fmt.Sprintf("%s/per%d", name, per), func(t *testing.T) {
				a := MakeArray(c.dt, c.vals...)
				defer a.Release()
				col, err := uploadSegments(dev, a, per)
				if err != nil {
					t.Fatal(err)
				}
				defer col.Release()
				if err := EqualRows(Rows(t, dev, []gpu.Column{col}), RowStrings([]arrow.Array{a}), true, 0); err != nil {
					t.Fatal(err)
				}
				// Read by a kernel (the packed words, not an unpacked copy):
				// the first column of a projection.
				p := &gpu.Pipeline{Inputs: []gpu.Type{col.Type()}, Project: []*gpu.Expr{gpu.Col(0, col.Type())}, Sink: gpu.SinkMaterialize}
				expectRows(t, RunPipeline(t, dev, p, []gpu.Column{col}), RowStrings([]arrow.Array{a}), true)
			})
		}
	}
}

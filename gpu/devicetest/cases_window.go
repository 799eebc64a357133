package devicetest

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// The window primitives (gpu/window.go): segment starts and segmented
// scans, each result computed here row by row. A device without them
// (not a gpu.Windower) skips.
func windowCases() []testCase {
	return []testCase{
		{"window/segment_starts", testSegmentStarts},
		{"window/scan_small", testSegmentedScanSmall},
		{"window/scan_large", testSegmentedScanLarge},
		{"window/scan_overflow", testSegmentedScanOverflow},
		{"window/frame_sums", testFrameSums},
	}
}

func windower(t *testing.T, dev gpu.Device) gpu.Windower {
	w, ok := dev.(gpu.Windower)
	if !ok {
		t.Skip("the device has no window primitives")
	}
	return w
}

func testSegmentStarts(t *testing.T, dev gpu.Device) {
	w := windower(t, dev)
	ctx := context.Background()
	nan := math.NaN()
	cols, _ := table(t, dev,
		MakeArray(I32, int64(1), int64(1), nil, nil, int64(2), int64(2), int64(2), int64(2), int64(2)),
		MakeArray(String, "a", "a", "a", "a", "a", "b", "b", nil, nil),
		MakeArray(F64, 0.0, math.Copysign(0, -1), 1.0, 1.0, nan, nan, 3.0, 3.0, 3.0),
		MakeArray(Bool, false, false, false, false, false, false, false, false, true))
	defer ReleaseCols(cols)
	check := func(name string, keys []gpu.Column, starts gpu.Column, want ...string) {
		t.Helper()
		got, err := w.SegmentStarts(ctx, 9, keys, starts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		defer got.Release()
		if got.Type() != (gpu.Type{Kind: gpu.Bool}) {
			t.Fatalf("%s: type %s, want bool", name, got.Type())
		}
		expectRows(t, Rows(t, dev, []gpu.Column{got}), want, true)
	}
	check("int32 with nulls", cols[:1], nil, "true", "false", "true", "false", "true", "false", "false", "false", "false")
	check("dict with nulls", cols[1:2], nil, "true", "false", "false", "false", "false", "true", "false", "true", "false")
	check("float: -0 = 0, NaN = NaN", cols[2:3], nil, "true", "false", "true", "false", "true", "false", "true", "false", "false")
	check("two keys", cols[:2], nil, "true", "false", "true", "false", "true", "true", "false", "true", "false")
	check("keys and the starts before", cols[1:2], cols[3], "true", "false", "false", "false", "false", "true", "false", "true", "true")
	check("no key: the first row", nil, nil, "true", "false", "false", "false", "false", "false", "false", "false", "false")
	check("only the starts before", nil, cols[3], "true", "false", "false", "false", "false", "false", "false", "false", "true")
}

// scanWant is the reference scan: row by row from the first (or last)
// row, each segment starting afresh.
func scanWant[T any](vals []T, starts []bool, reverse bool, fold func(acc, v T) T) []T {
	n := len(vals)
	out := make([]T, n)
	for step := 0; step < n; step++ {
		i, prev, first := step, step-1, step == 0 || starts[step]
		if reverse {
			i, prev = n-1-step, n-step
			first = step == 0 || starts[prev]
		}
		out[i] = vals[i]
		if !first {
			out[i] = fold(out[prev], vals[i])
		}
	}
	return out
}

var scanFolds = map[gpu.ScanOp]func(a, b int64) int64{
	gpu.ScanSum: func(a, b int64) int64 { return a + b }, gpu.ScanMin: func(a, b int64) int64 { return min(a, b) },
	gpu.ScanMax: func(a, b int64) int64 { return max(a, b) }, gpu.ScanFill: func(a, _ int64) int64 { return a },
}

// runScan scans vals on dev and downloads the result.
func runScan(t *testing.T, dev gpu.Device, vals, starts gpu.Column, op gpu.ScanOp, reverse bool) arrow.Array {
	t.Helper()
	got, err := windower(t, dev).SegmentedScan(context.Background(), vals, starts, op, reverse)
	if err != nil {
		t.Fatalf("scan %s reverse=%v: %v", op, reverse, err)
	}
	defer got.Release()
	if got.Type() != vals.Type() || got.Len() != vals.Len() {
		t.Fatalf("scan %s: %d rows of %s, want %d of %s", op, got.Len(), got.Type(), vals.Len(), vals.Type())
	}
	return Download(t, dev, []gpu.Column{got})[0]
}

func testSegmentedScanSmall(t *testing.T, dev gpu.Device) {
	windower(t, dev)
	vals := []int64{5, -2, 7, 1, 1, 9, -4, 3}
	starts := []bool{true, false, false, true, false, true, false, false}
	checkInt64Scans(t, dev, vals, starts)
}

// checkInt64Scans runs every operator both ways over vals and compares.
func checkInt64Scans(t *testing.T, dev gpu.Device, vals []int64, starts []bool) {
	t.Helper()
	va, sa := make([]any, len(vals)), make([]any, len(vals))
	for i := range vals {
		va[i], sa[i] = vals[i], starts[i]
	}
	cols, _ := table(t, dev, MakeArray(I64, va...), MakeArray(Bool, sa...))
	defer ReleaseCols(cols)
	for _, op := range []gpu.ScanOp{gpu.ScanSum, gpu.ScanMin, gpu.ScanMax, gpu.ScanFill} {
		for _, reverse := range []bool{false, true} {
			want := scanWant(vals, starts, reverse, scanFolds[op])
			got := runScan(t, dev, cols[0], cols[1], op, reverse).(*array.Int64)
			for i, w := range want {
				if got.Value(i) != w {
					t.Fatalf("%s reverse=%v over %d rows: row %d is %d, want %d", op, reverse, len(vals), i, got.Value(i), w)
				}
			}
			got.Release()
		}
	}
}

// testSegmentedScanLarge scans enough rows for the tiles' totals to be
// scanned in turn (more than 1024 tiles of 1024), with segments of one
// row up to longer than a tile, in int64, float64 and decimal128.
func testSegmentedScanLarge(t *testing.T, dev gpu.Device) {
	windower(t, dev)
	n := 1_200_000
	if testing.Short() {
		n = 70_000
	}
	r := rand.New(rand.NewPCG(7, 26))
	vals, starts := make([]int64, n), make([]bool, n)
	for i := range vals {
		vals[i] = r.Int64N(2_000_001) - 1_000_000
		switch {
		case i < n/3:
			starts[i] = r.IntN(3) == 0 // short segments
		case i < 2*n/3:
			starts[i] = r.IntN(5000) == 0 // segments across tiles
		}
	}
	checkInt64Scans(t, dev, vals, starts)

	// float64 and decimal128 over the same rows: the float values are
	// integers, whose sums are exact in any order.
	fa, da, sa := make([]any, n), make([]any, n), make([]any, n)
	f, d := make([]float64, n), make([]*big.Int, n)
	for i, v := range vals {
		f[i] = float64(v)
		d[i] = new(big.Int).Mul(big.NewInt(v), big.NewInt(1e15))
		fa[i], da[i], sa[i] = f[i], d[i], starts[i]
	}
	f[n/2] = math.NaN() // the largest in max, the last choice in min
	fa[n/2] = f[n/2]
	cols, _ := table(t, dev, MakeArray(F64, fa...), MakeArray(Dec(38, 2), da...), MakeArray(Bool, sa...))
	defer ReleaseCols(cols)
	floatFolds := map[gpu.ScanOp]func(a, b float64) float64{
		gpu.ScanSum:  func(a, b float64) float64 { return a + b },
		gpu.ScanMin:  func(a, b float64) float64 { return [2]float64{a, b}[boolInt(gpu.FloatOrder(b, a) < 0)] },
		gpu.ScanMax:  func(a, b float64) float64 { return [2]float64{a, b}[boolInt(gpu.FloatOrder(b, a) > 0)] },
		gpu.ScanFill: func(a, _ float64) float64 { return a },
	}
	decFolds := map[gpu.ScanOp]func(a, b *big.Int) *big.Int{
		gpu.ScanSum:  func(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) },
		gpu.ScanMin:  func(a, b *big.Int) *big.Int { return [2]*big.Int{a, b}[boolInt(b.Cmp(a) < 0)] },
		gpu.ScanMax:  func(a, b *big.Int) *big.Int { return [2]*big.Int{a, b}[boolInt(b.Cmp(a) > 0)] },
		gpu.ScanFill: func(a, _ *big.Int) *big.Int { return a },
	}
	for _, op := range []gpu.ScanOp{gpu.ScanSum, gpu.ScanMin, gpu.ScanMax, gpu.ScanFill} {
		for _, reverse := range []bool{false, true} {
			if op != gpu.ScanSum { // NaN poisons sums: those run on the decimals
				want := scanWant(f, starts, reverse, floatFolds[op])
				got := runScan(t, dev, cols[0], cols[2], op, reverse).(*array.Float64)
				for i, w := range want {
					if g := got.Value(i); gpu.FloatOrder(g, w) != 0 {
						t.Fatalf("float64 %s reverse=%v: row %d is %v, want %v", op, reverse, i, g, w)
					}
				}
				got.Release()
			}
			want := scanWant(d, starts, reverse, decFolds[op])
			got := runScan(t, dev, cols[1], cols[2], op, reverse).(*array.Decimal128)
			for i, w := range want {
				if g := got.Value(i).BigInt(); g.Cmp(w) != 0 {
					t.Fatalf("decimal128 %s reverse=%v: row %d is %s, want %s", op, reverse, i, g, w)
				}
			}
			got.Release()
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A running decimal sum past 128 bits is an overflow, not a wrapped value.
func testSegmentedScanOverflow(t *testing.T, dev gpu.Device) {
	w := windower(t, dev)
	big37 := new(big.Int).Exp(big.NewInt(10), big.NewInt(37), nil)
	n := 3000 // across tiles: the fold that overflows may be a carry
	va, sa := make([]any, n), make([]any, n)
	for i := range va {
		va[i], sa[i] = big37, i == 0
	}
	cols, _ := table(t, dev, MakeArray(Dec(38, 0), va...), MakeArray(Bool, sa...))
	defer ReleaseCols(cols)
	got, err := w.SegmentedScan(context.Background(), cols[0], cols[1], gpu.ScanSum, false)
	if err == nil {
		got.Release()
	}
	expectOverflow(t, err, "a running sum of 3000 x 10^37")
}

// testFrameSums sums frames of doubles whose bits depend on the order of
// the adds (magnitudes from 1e-3 to 1e9, both signs, an infinity far from
// most frames): every row's result must be gpu.SegmentTree's, DuckDB's
// order, to the bit. Frames: empty (-1, and ends crossed), within one
// group of 16 rows, across groups, across a few levels, the whole column.
func testFrameSums(t *testing.T, dev gpu.Device) {
	w := windower(t, dev)
	n := 300_000
	if testing.Short() {
		n = 40_000
	}
	r := rand.New(rand.NewPCG(11, 26))
	vals := make([]float64, n)
	va, fa, ta := make([]any, n), make([]any, n), make([]any, n)
	for i := range vals {
		vals[i] = (r.Float64() - 0.45) * math.Pow(10, float64(r.IntN(13)-3))
	}
	vals[n-7] = math.Inf(1)
	from, to := make([]int, n), make([]int, n)
	for i := range vals {
		va[i] = vals[i]
		lo, hi := i, i
		switch i % 6 {
		case 0:
			lo, hi = -1, -1
		case 1:
			lo, hi = i, i-1 // crossed: empty
		case 2:
			lo, hi = max(0, i-r.IntN(16)), i
		case 3:
			lo, hi = max(0, i-r.IntN(5000)), min(n-1, i+r.IntN(300))
		case 4:
			lo, hi = r.IntN(n), n-1
		case 5:
			lo, hi = 0, i
		}
		if i == n/2 {
			lo, hi = 0, n-1
		}
		from[i], to[i] = lo, hi
		fa[i], ta[i] = int64(lo), int64(hi)
	}
	cols, _ := table(t, dev, MakeArray(F64, va...), MakeArray(I32, fa...), MakeArray(I32, ta...))
	defer ReleaseCols(cols)
	got, err := w.FrameSums(context.Background(), cols[0], cols[1], cols[2])
	if err != nil {
		t.Fatalf("frame sums: %v", err)
	}
	defer got.Release()
	if got.Type() != (gpu.Type{Kind: gpu.Float64}) || got.Len() != n {
		t.Fatalf("frame sums: %d rows of %s, want %d of float64", got.Len(), got.Type(), n)
	}
	sums := Download(t, dev, []gpu.Column{got})[0].(*array.Float64)
	defer sums.Release()
	tree := gpu.NewSegmentTree(vals)
	for i := range vals {
		want := 0.0
		if from[i] >= 0 && to[i] >= from[i] {
			want = tree.Sum(from[i], to[i]+1)
		}
		if g := sums.Value(i); math.Float64bits(g) != math.Float64bits(want) {
			t.Fatalf("row %d, frame %d..%d: %v (bits %x), want %v (bits %x)", i, from[i], to[i], g, math.Float64bits(g), want, math.Float64bits(want))
		}
	}
}

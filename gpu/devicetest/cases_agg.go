package devicetest

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

func aggCases() []testCase {
	return []testCase{
		{"agg/basic_int_key_with_null_group", testAggBasic},
		{"agg/sum_exact_128", testAggSum128},
		{"agg/sum_overflow_128", testAggSumOverflow},
		{"agg/sum_negative_decimals_dict_key", testAggNegativeDecimals},
		{"agg/min_max_every_kind", testAggMinMax},
		{"agg/empty_input", testAggEmpty},
		{"agg/two_nullable_keys", testAggTwoKeys},
		{"agg/many_groups", testAggManyGroups},
		{"agg/few_groups_many_rows", testAggFewGroups},
		{"agg/float_sum", testAggFloatSum},
		{"agg/runs_of_equal_keys", testAggRuns},
		{"agg/min_max_128_contended", testAggMinMax128Contended},
		{"agg/fifteen_nullable_keys", testAggWideKeys},
	}
}

// aggRows runs an aggregate pipeline over arrs and returns its rows.
func aggRows(t testing.TB, dev gpu.Device, in []arrow.Array, filter *gpu.Expr, proj func(types []gpu.Type) []*gpu.Expr, keys []int, aggs []gpu.Agg) []string {
	t.Helper()
	cols, types := table(t, dev, in...)
	defer ReleaseCols(cols)
	p := &gpu.Pipeline{Inputs: types, Filter: filter, Project: proj(types), Sink: gpu.SinkAggregate, Keys: keys, Aggs: aggs}
	return RunPipeline(t, dev, p, cols)
}

func cols(types []gpu.Type, idx ...int) []*gpu.Expr {
	out := make([]*gpu.Expr, len(idx))
	for i, c := range idx {
		out[i] = gpu.Col(c, types[c])
	}
	return out
}

func countStar() gpu.Agg { return gpu.Agg{Kind: gpu.AggCountStar, Type: TCount} }
func count(arg int) gpu.Agg {
	return gpu.Agg{Kind: gpu.AggCount, Arg: arg, Type: TCount}
}
func sumDec(arg int, scale int32) gpu.Agg {
	return gpu.Agg{Kind: gpu.AggSum, Arg: arg, Type: N(TDec128(38, scale))}
}
func minOf(arg int, t gpu.Type) gpu.Agg { return gpu.Agg{Kind: gpu.AggMin, Arg: arg, Type: N(t)} }
func maxOf(arg int, t gpu.Type) gpu.Agg { return gpu.Agg{Kind: gpu.AggMax, Arg: arg, Type: N(t)} }

func testAggBasic(t *testing.T, dev gpu.Device) {
	k := MakeArray(I64, int64(1), int64(2), nil, int64(1), nil, int64(2), int64(1))
	v := MakeArray(I64, int64(10), nil, int64(5), int64(-3), nil, int64(7), int64(1))
	got := aggRows(t, dev, arrs(k, v), nil, func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0, 1) }, []int{0},
		[]gpu.Agg{countStar(), count(1), sumDec(1, 0), minOf(1, TI64), maxOf(1, TI64)})
	expectRows(t, got, []string{
		Row("1", "3", "3", "8", "-3", "10"),
		Row("2", "2", "1", "7", "7", "7"),
		Row(NullCell, "2", "1", "5", "5", "5"),
	}, false)
}

func testAggSum128(t *testing.T, dev gpu.Device) {
	const n = 5000
	vals := make([]any, n)
	want := new(big.Int)
	for i := range vals {
		x := int64(999999999999999999) - int64(i)
		if i%7 == 3 {
			x = -x / 3
		}
		vals[i] = x
		want.Add(want, big.NewInt(x))
	}
	got := aggRows(t, dev, arrs(MakeArray(Dec(18, 0), vals...)), nil, func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0) }, nil,
		[]gpu.Agg{sumDec(0, 0), countStar()})
	expectRows(t, got, []string{Row(want.String(), I(n))}, true)

	// Decimal128 inputs: 17 * 10^37 still fits 128 bits (2^127 ~ 1.7014e38).
	v := make([]any, 17)
	for i := range v {
		v[i] = pow10(37)
	}
	got = aggRows(t, dev, arrs(MakeArray(Dec(38, 2), v...)), nil, func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0) }, nil, []gpu.Agg{sumDec(0, 2)})
	expectRows(t, got, []string{FormatDecimal(new(big.Int).Mul(pow10(37), big.NewInt(17)), 2)}, true)
}

func testAggSumOverflow(t *testing.T, dev gpu.Device) {
	v := make([]any, 18)
	for i := range v {
		v[i] = pow10(37)
	}
	cols_, types := table(t, dev, MakeArray(Dec(38, 0), v...))
	defer ReleaseCols(cols_)
	p := &gpu.Pipeline{Inputs: types, Project: cols(types, 0), Sink: gpu.SinkAggregate, Aggs: []gpu.Agg{sumDec(0, 0)}}
	expectOverflow(t, RunPipelineErr(dev, p, cols_), "sum of 18 * 10^37")
	// Same in a group, spread over many rows (partials merged).
	wide := make([]any, 300_000)
	for i := range wide {
		wide[i] = new(big.Int).Lsh(pow10(1), 120) // 10 * 2^120; 300k of them >> 2^127
	}
	cols2, types2 := table(t, dev, MakeArray(Dec(38, 0), wide...))
	defer ReleaseCols(cols2)
	p = &gpu.Pipeline{Inputs: types2, Project: cols(types2, 0, 0), Sink: gpu.SinkAggregate, Keys: []int{1}, Aggs: []gpu.Agg{sumDec(0, 0)}}
	expectOverflow(t, RunPipelineErr(dev, p, cols2), "grouped sum beyond 128 bits")
}

func testAggNegativeDecimals(t *testing.T, dev gpu.Device) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 50_000
	keys := make([]any, n)
	vals := make([]any, n)
	names := []string{"A", "N", "R"}
	type acc struct {
		sum      *big.Int
		cnt, nn  int64
		min, max int64
		seen     bool
	}
	want := map[string]*acc{}
	for i := 0; i < n; i++ {
		var key string
		if rng.IntN(10) == 0 {
			key = NullCell
		} else {
			keys[i] = names[rng.IntN(3)]
			key = S(keys[i].(string))
		}
		a := want[key]
		if a == nil {
			a = &acc{sum: new(big.Int)}
			want[key] = a
		}
		a.cnt++
		if rng.IntN(8) == 0 {
			continue
		}
		x := rng.Int64N(1.4e15) - 0.99e15 // mostly negative, |x| < 10^15
		vals[i] = x
		a.sum.Add(a.sum, big.NewInt(x))
		a.nn++
		if !a.seen || x < a.min {
			a.min = x
		}
		if !a.seen || x > a.max {
			a.max = x
		}
		a.seen = true
	}
	var rows []string
	for k, a := range want {
		rows = append(rows, Row(k, I(a.cnt), I(a.nn), FormatDecimal(a.sum, 2), D(a.min, 2), D(a.max, 2)))
	}
	d := TDec64(15, 2)
	got := aggRows(t, dev, arrs(MakeArray(String, keys...), MakeArray(Dec(15, 2), vals...)), nil,
		func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0, 1) }, []int{0},
		[]gpu.Agg{countStar(), count(1), sumDec(1, 2), minOf(1, d), maxOf(1, d)})
	expectRows(t, got, rows, false)
}

func testAggMinMax(t *testing.T, dev gpu.Device) {
	p37 := pow10(37)
	for _, c := range []struct {
		dt       arrow.DataType
		vals     []any
		min, max string
	}{
		{Bool, []any{true, nil, true, false}, "false", "true"},
		{I8, []any{int64(5), nil, int64(-128), int64(127)}, "-128", "127"},
		{I16, []any{int64(-300), int64(300), nil}, "-300", "300"},
		{I32, []any{nil, int64(math.MinInt32), int64(0)}, I(math.MinInt32), "0"},
		{I64, []any{int64(math.MaxInt64), int64(math.MinInt64), nil}, I(math.MinInt64), I(math.MaxInt64)},
		{F32, []any{1.5, nil, -2.25, 3.0}, F(-2.25), F(3)},
		{F64, []any{math.Inf(-1), 1e300, nil}, F(math.Inf(-1)), F(1e300)},
		{Date, []any{"1998-09-02", "1992-01-01", nil, "1998-12-01"}, "1992-01-01", "1998-12-01"},
		{Dec(12, 2), []any{int64(-5), int64(-500), nil, int64(3)}, "-5.00", "0.03"},
		{Dec(38, 0), []any{p37, new(big.Int).Neg(p37), big.NewInt(0), nil}, new(big.Int).Neg(p37).String(), p37.String()},
		{String, []any{"SHIP", nil, "AIR", "TRUCK", "MAIL"}, S("AIR"), S("TRUCK")},
	} {
		t.Run(c.dt.String(), func(t *testing.T) {
			arr := MakeArray(c.dt, c.vals...)
			ty := inputType(arr)
			nulls := MakeArray(c.dt, nil, nil)
			got := aggRows(t, dev, arrs(arr), nil, func(tt []gpu.Type) []*gpu.Expr { return cols(tt, 0) }, nil, []gpu.Agg{minOf(0, ty), maxOf(0, ty), count(0)})
			expectRows(t, got, []string{Row(c.min, c.max, I(int64(len(c.vals)-1)))}, true)
			ty = inputType(nulls)
			got = aggRows(t, dev, arrs(nulls), nil, func(tt []gpu.Type) []*gpu.Expr { return cols(tt, 0) }, nil, []gpu.Agg{minOf(0, ty), maxOf(0, ty), count(0)})
			expectRows(t, got, []string{Row(NullCell, NullCell, "0")}, true)
		})
	}
}

func testAggEmpty(t *testing.T, dev gpu.Device) {
	for _, n := range []int{0, 3} {
		vals := make([]any, n)
		for i := range vals {
			vals[i] = int64(i)
		}
		k := MakeArray(String, make([]any, n)...) // all null keys (or none)
		v := MakeArray(I64, vals...)
		// A filter that removes every row: the sink sees no input either way.
		var filter *gpu.Expr
		if n > 0 {
			filter = gpu.Call(gpu.OpLt, TBool, gpu.Col(1, TI64), gpu.Const(TI64, gpu.Value{I64: -1}))
		}
		aggs := []gpu.Agg{countStar(), count(1), sumDec(1, 0), minOf(1, TI64), maxOf(1, TI64),
			{Kind: gpu.AggSum, Arg: 2, Type: N(TF64)}}
		proj := func(ty []gpu.Type) []*gpu.Expr {
			return append(cols(ty, 0, 1), gpu.Call(gpu.OpCast, TF64, gpu.Col(1, TI64)))
		}
		got := aggRows(t, dev, arrs(k, v), filter, proj, nil, aggs)
		expectRows(t, got, []string{Row("0", "0", NullCell, NullCell, NullCell, NullCell)}, true)
		k = MakeArray(String, make([]any, n)...)
		v = MakeArray(I64, vals...)
		got = aggRows(t, dev, arrs(k, v), filter, proj, []int{0, 1}, aggs)
		expectRows(t, got, nil, true)
	}
}

func testAggTwoKeys(t *testing.T, dev gpu.Device) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 30_000
	s := make([]any, n)
	k := make([]any, n)
	v := make([]any, n)
	want := map[string][2]int64{}
	for i := 0; i < n; i++ {
		sk, ik := NullCell, NullCell
		if rng.IntN(5) > 0 {
			s[i] = fmt.Sprintf("s%d", rng.IntN(4))
			sk = S(s[i].(string))
		}
		if rng.IntN(5) > 0 {
			x := int64(rng.IntN(3) * 1000)
			k[i] = x
			ik = I(x)
		}
		x := int64(rng.IntN(100))
		v[i] = x
		key := Row(sk, ik)
		w := want[key]
		w[0]++
		w[1] += x
		want[key] = w
	}
	var rows []string
	for key, w := range want {
		rows = append(rows, Row(key, I(w[0]), I(w[1])))
	}
	got := aggRows(t, dev, arrs(MakeArray(String, s...), MakeArray(I32, k...), MakeArray(I16, v...)), nil,
		func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0, 1, 2) }, []int{0, 1}, []gpu.Agg{countStar(), sumDec(2, 0)})
	expectRows(t, got, rows, false)
}

func testAggManyGroups(t *testing.T, dev gpu.Device) {
	const groups, n = 100_000, 300_000
	rng := rand.New(rand.NewPCG(5, 6))
	k := make([]any, n)
	v := make([]any, n)
	sums := make([]int64, groups)
	cnts := make([]int64, groups)
	for i := 0; i < n; i++ {
		g := i % groups
		if i >= groups {
			g = rng.IntN(groups)
		}
		k[i] = int64(g)*7919 - 1e9 // spread out, negative too
		x := rng.Int64N(1e6)
		v[i] = x
		sums[g] += x
		cnts[g]++
	}
	rows := make([]string, groups)
	for g := range rows {
		rows[g] = Row(I(int64(g)*7919-1e9), I(cnts[g]), I(sums[g]))
	}
	got := aggRows(t, dev, arrs(MakeArray(I64, k...), MakeArray(I64, v...)), nil,
		func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0, 1) }, []int{0}, []gpu.Agg{countStar(), sumDec(1, 0)})
	expectRows(t, got, rows, false)
}

func testAggFewGroups(t *testing.T, dev gpu.Device) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	rng := rand.New(rand.NewPCG(8, 9))
	k := make([]any, n)
	v := make([]any, n)
	sums := [4]*big.Int{new(big.Int), new(big.Int), new(big.Int), new(big.Int)}
	var cnts [4]int64
	mins := [4]int64{math.MaxInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64}
	for i := 0; i < n; i++ {
		g := rng.IntN(4)
		k[i] = int64(g - 2)
		x := rng.Int64N(1e17) // large: the sum needs more than 64 bits
		v[i] = x
		sums[g].Add(sums[g], big.NewInt(x))
		cnts[g]++
		mins[g] = min(mins[g], x)
	}
	var rows []string
	for g := 0; g < 4; g++ {
		rows = append(rows, Row(I(int64(g-2)), I(cnts[g]), FormatDecimal(sums[g], 3), D(mins[g], 3)))
	}
	got := aggRows(t, dev, arrs(MakeArray(I32, k...), MakeArray(Dec(18, 3), v...)), nil,
		func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0, 1) }, []int{0}, []gpu.Agg{countStar(), sumDec(1, 3), minOf(1, TDec64(18, 3))})
	expectRows(t, got, rows, false)
}

func testAggFloatSum(t *testing.T, dev gpu.Device) {
	rng := rand.New(rand.NewPCG(10, 11))
	const n = 100_000
	v := make([]any, n)
	var xs []float64
	for i := range v {
		if i%10 == 0 {
			continue
		}
		x := rng.Float64() * 1000
		v[i] = x
		xs = append(xs, x)
	}
	sort.Float64s(xs) // summing in ascending order keeps the expectation accurate
	want := 0.0
	for _, x := range xs {
		want += x
	}
	got := aggRows(t, dev, arrs(MakeArray(F64, v...)), nil, func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0) }, nil,
		[]gpu.Agg{{Kind: gpu.AggSum, Arg: 0, Type: N(TF64)}, minOf(0, N(TF64)), count(0)})
	if err := EqualRows(got, []string{Row(F(want), F(xs[0]), I(int64(len(xs))))}, true, 1e-9); err != nil {
		t.Fatal(err)
	}
}

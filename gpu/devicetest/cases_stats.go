package devicetest

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/rigel-db/rigel/gpu"
)

// Variances from exact moments (gpu.OpStatMoments): each device gives
// gpu.StatFromMoments's bits, and those are within a few ulps of the exact
// statistic (computed here from rationals).
func statCases() []testCase {
	return []testCase{
		{"stats/from_moments", testStatFromMoments},
		{"stats/moments_of_grouped_sums", testStatMomentsAggregate},
	}
}

var statKinds = []gpu.AggKind{gpu.AggVarSamp, gpu.AggVarPop, gpu.AggStdDevSamp, gpu.AggStdDevPop}

// exactStat is the statistic of n values of sum s1 and sum of squares s2
// (units of 10^-scale), rounded once (the variance) or from a 200-bit
// square root (the deviations).
func exactStat(k gpu.AggKind, n int64, s1, s2 *big.Int, scale int32) float64 {
	bn := big.NewInt(n)
	m2 := new(big.Rat).SetFrac(new(big.Int).Sub(new(big.Int).Mul(bn, s2), new(big.Int).Mul(s1, s1)), bn)
	div := n
	if k == gpu.AggVarSamp || k == gpu.AggStdDevSamp {
		div = n - 1
	}
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(2*scale)), nil)
	v := new(big.Rat).Quo(m2, new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(div), pow)))
	if k == gpu.AggStdDevSamp || k == gpu.AggStdDevPop {
		f, _ := new(big.Float).SetPrec(200).Sqrt(new(big.Float).SetPrec(200).SetRat(v)).Float64()
		return f
	}
	f, _ := v.Float64()
	return f
}

// checkStat fails unless got is StatFromMoments's value to the bit and
// within 4 ulps of the exact statistic.
func checkStat(t *testing.T, what string, got float64, k gpu.AggKind, n int64, s1, s2 *big.Int, scale int32) {
	t.Helper()
	want := gpu.StatFromMoments(k, n, s1, s2, scale)
	if math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("%s: %s of n=%d s1=%s s2=%s (scale %d) = %v, want %v", what, k, n, s1, s2, scale, got, want)
	}
	exact := exactStat(k, n, s1, s2, scale)
	if d := math.Abs(got - exact); d > 4*ulp(exact) {
		t.Fatalf("%s: %s of n=%d s1=%s s2=%s = %v, exactly %v (%.1f ulps off)", what, k, n, s1, s2, got, exact, d/ulp(exact))
	}
}

func ulp(x float64) float64 {
	if x == 0 {
		return math.SmallestNonzeroFloat64
	}
	return math.Nextafter(math.Abs(x), math.Inf(1)) - math.Abs(x)
}

// statGroup draws one group of values: small counts, a large mean with a
// small spread, both signs, int32 extremes, all equal.
func statGroup(r *rand.Rand, shape int) []int64 {
	n := 1 + r.IntN(40)
	if shape%9 == 0 {
		n = 1 + r.IntN(3000)
	}
	vals := make([]int64, n)
	for i := range vals {
		switch shape % 5 {
		case 0:
			vals[i] = r.Int64N(101)
		case 1:
			vals[i] = 1_000_000_000 + r.Int64N(4)
		case 2:
			vals[i] = r.Int64N(2_000_000_001) - 1_000_000_000
		case 3:
			vals[i] = math.MaxInt32 - r.Int64N(2)*(math.MaxInt32*2+1)
		case 4:
			vals[i] = -7
		}
	}
	return vals
}

func moments(vals []int64) (s1, s2 *big.Int) {
	s1, s2 = new(big.Int), new(big.Int)
	for _, v := range vals {
		s1.Add(s1, big.NewInt(v))
		s2.Add(s2, new(big.Int).Mul(big.NewInt(v), big.NewInt(v)))
	}
	return s1, s2
}

// The final step alone: rows of (count, sum, sum of squares), sums of
// scale 2 (squares of scale 4) and of scale 0; a null sum and counts below
// the sample's two give nulls.
func testStatFromMoments(t *testing.T, dev gpu.Device) {
	r := rand.New(rand.NewPCG(17, 39))
	var ns, s1s, s2s []any
	for i := 0; i < 2000; i++ {
		vals := statGroup(r, i)
		s1, s2 := moments(vals)
		ns, s1s, s2s = append(ns, int64(len(vals))), append(s1s, s1), append(s2s, s2)
	}
	ns, s1s, s2s = append(ns, int64(0), int64(3)), append(s1s, nil, big.NewInt(5)), append(s2s, nil, nil)
	arrN, arr1, arr2 := MakeArray(I64, ns...), MakeArray(Dec(38, 2), s1s...), MakeArray(Dec(38, 4), s2s...)
	arr10, arr20 := MakeArray(Dec(38, 0), s1s...), MakeArray(Dec(38, 0), s2s...)
	cols_, types := table(t, dev, arrN, arr1, arr2, arr10, arr20)
	defer ReleaseCols(cols_)
	f := gpu.Type{Kind: gpu.Float64, Nullable: true}
	var project []*gpu.Expr
	for _, k := range statKinds {
		project = append(project, gpu.Call(gpu.OpStatMoments, f, gpu.Col(0, types[0]), gpu.Col(1, types[1]), gpu.Col(2, types[2]), gpu.Const(TI64, gpu.Value{I64: int64(k)})))
	}
	project = append(project, gpu.Call(gpu.OpStatMoments, f, gpu.Col(0, types[0]), gpu.Col(3, types[3]), gpu.Col(4, types[4]), gpu.Const(TI64, gpu.Value{I64: int64(gpu.AggVarSamp)})))
	out, err := dev.Run(context.Background(), &gpu.Pipeline{Inputs: types, Sink: gpu.SinkMaterialize, Project: project}, cols_)
	if err != nil {
		t.Fatal(err)
	}
	defer ReleaseCols(out)
	got := Download(t, dev, out)
	defer ReleaseAll(got)
	for c := range project {
		k, scale := gpu.AggVarSamp, int32(0)
		if c < len(statKinds) {
			k, scale = statKinds[c], 2
		}
		g := got[c].(*array.Float64)
		for i := range ns {
			n := ns[i].(int64)
			if null := s1s[i] == nil || s2s[i] == nil || n < k.StatMinCount(); null != g.IsNull(i) {
				t.Fatalf("%s row %d (n=%d): null %v, want %v", k, i, n, g.IsNull(i), null)
			}
			if !g.IsNull(i) {
				checkStat(t, "row", g.Value(i), k, n, s1s[i].(*big.Int), s2s[i].(*big.Int), scale)
			}
		}
	}
}

// The engine's plan for a variance on a device that keeps no running mean
// (translate's statFromMoments): count(x), sum(x) and sum(x*x) grouped by
// a hash key, nulls among the values, then OpStatMoments over the groups.
func testStatMomentsAggregate(t *testing.T, dev gpu.Device) {
	r := rand.New(rand.NewPCG(3, 9))
	var keys, vals []any
	type group struct{ vals []int64 }
	groups := map[int64]*group{}
	for g := int64(0); g < 400; g++ {
		groups[g] = &group{}
		for _, v := range statGroup(r, int(g)) {
			keys = append(keys, g*1_000_003) // a hash aggregate, not a domain one
			if r.IntN(10) == 0 {
				vals = append(vals, nil)
				continue
			}
			vals = append(vals, int32(v))
			groups[g].vals = append(groups[g].vals, v)
		}
	}
	// Shuffle so that each group's rows spread over blocks and warps.
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i]; vals[i], vals[j] = vals[j], vals[i] })
	cols_, types := table(t, dev, MakeArray(I64, keys...), MakeArray(I32, vals...))
	defer ReleaseCols(cols_)
	x := gpu.Col(1, types[1])
	x64 := gpu.Call(gpu.OpCast, N(TI64), x)
	agg := &gpu.Pipeline{Inputs: types, Sink: gpu.SinkAggregate, Keys: []int{0},
		Project: []*gpu.Expr{gpu.Col(0, types[0]), x, gpu.Call(gpu.OpMul, N(TI64), x64, x64)},
		Aggs:    []gpu.Agg{count(1), sumDec(1, 0), sumDec(2, 0)}}
	sums, err := dev.Run(context.Background(), agg, cols_)
	if err != nil {
		t.Fatal(err)
	}
	defer ReleaseCols(sums)
	st := make([]gpu.Type, len(sums))
	for i, c := range sums {
		st[i] = c.Type()
	}
	f := gpu.Type{Kind: gpu.Float64, Nullable: true}
	project := []*gpu.Expr{gpu.Col(0, st[0])}
	for _, k := range statKinds {
		project = append(project, gpu.Call(gpu.OpStatMoments, f, gpu.Col(1, st[1]), gpu.Col(2, st[2]), gpu.Col(3, st[3]), gpu.Const(TI64, gpu.Value{I64: int64(k)})))
	}
	out, err := dev.Run(context.Background(), &gpu.Pipeline{Inputs: st, Sink: gpu.SinkMaterialize, Project: project}, sums)
	if err != nil {
		t.Fatal(err)
	}
	defer ReleaseCols(out)
	got := Download(t, dev, out)
	defer ReleaseAll(got)
	k := got[0].(*array.Int64)
	if k.Len() != len(groups) {
		t.Fatalf("%d groups, want %d", k.Len(), len(groups))
	}
	for i := 0; i < k.Len(); i++ {
		g := groups[k.Value(i)/1_000_003]
		n := int64(len(g.vals))
		s1, s2 := moments(g.vals)
		for c, kind := range statKinds {
			v := got[c+1].(*array.Float64)
			if null := n < kind.StatMinCount(); null != v.IsNull(i) {
				t.Fatalf("group %d (n=%d) %s: null %v, want %v", k.Value(i), n, kind, v.IsNull(i), null)
			}
			if !v.IsNull(i) {
				checkStat(t, "group", v.Value(i), kind, n, s1, s2, 0)
			}
		}
	}
}

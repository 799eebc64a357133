package devicetest

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// testAggMinMax128Contended takes 128-bit min and max over a million rows,
// without keys (every block of the device updates one accumulator) and in
// 1,000 groups, with values beyond 64 bits of both signs and nulls: a
// device that updates a 128-bit accumulator without the atomicity of a
// lock or a 128-bit compare-and-swap loses updates here.
func testAggMinMax128Contended(t *testing.T, dev gpu.Device) {
	n := 1_000_000
	if testing.Short() {
		n = 200_000
	}
	const groups = 1000
	rng := rand.New(rand.NewPCG(31, 32))
	k := make([]any, n)
	v := make([]any, n)
	gmin := make([]*big.Int, groups)
	gmax := make([]*big.Int, groups)
	var amin, amax *big.Int
	for i := range v {
		g := rng.IntN(groups)
		k[i] = int64(g)
		if rng.IntN(10) == 0 {
			continue
		}
		x := new(big.Int).Mul(big.NewInt(rng.Int64N(2e18)-1e18), big.NewInt(rng.Int64N(1e15)+1))
		v[i] = x
		if gmin[g] == nil || x.Cmp(gmin[g]) < 0 {
			gmin[g] = x
		}
		if gmax[g] == nil || x.Cmp(gmax[g]) > 0 {
			gmax[g] = x
		}
		if amin == nil || x.Cmp(amin) < 0 {
			amin = x
		}
		if amax == nil || x.Cmp(amax) > 0 {
			amax = x
		}
	}
	d := N(TDec128(38, 3))
	got := aggRows(t, dev, arrs(MakeArray(Dec(38, 3), v...)), nil, func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0) }, nil,
		[]gpu.Agg{minOf(0, d), maxOf(0, d)})
	expectRows(t, got, []string{Row(FormatDecimal(amin, 3), FormatDecimal(amax, 3))}, true)

	var want []string
	for g := 0; g < groups; g++ {
		if gmin[g] == nil {
			want = append(want, Row(I(int64(g)), NullCell, NullCell))
			continue
		}
		want = append(want, Row(I(int64(g)), FormatDecimal(gmin[g], 3), FormatDecimal(gmax[g], 3)))
	}
	got = aggRows(t, dev, arrs(MakeArray(I64, k...), MakeArray(Dec(38, 3), v...)), nil, func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0, 1) }, []int{0},
		[]gpu.Agg{minOf(1, d), maxOf(1, d)})
	expectRows(t, got, want, false)
}

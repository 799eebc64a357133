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

// DuckDB's average from a sum and a count (gpu.OpAvgDivide), to the bit.
func avgCases() []testCase {
	return []testCase{{"avg/divide_as_duckdb", testAvgDivide}}
}

// avgWant is DuckDB's average, from exact rationals here: in long double
// mode the sum and the divisor rounded to 64 bits, their quotient to 64
// bits, that to 53; in double mode each operand and the quotient rounded
// to 53 bits.
func avgWant(sum *big.Int, count int64, scale int32, mode int64) float64 {
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	round := func(r *big.Rat, prec uint) *big.Rat {
		f, _ := new(big.Float).SetPrec(prec).SetRat(r).Rat(nil)
		return f
	}
	if mode == gpu.AvgDouble {
		d, _ := round(new(big.Rat).SetInt(new(big.Int).Mul(round(new(big.Rat).SetInt64(count), 53).Num(), pow)), 53).Float64()
		s, _ := new(big.Rat).SetInt(sum).Float64()
		return s / d
	}
	s := round(new(big.Rat).SetInt(sum), 64)
	d := round(new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(count), pow)), 64)
	q := round(new(big.Rat).Quo(s, d), 64)
	f, _ := q.Float64()
	return f
}

func testAvgDivide(t *testing.T, dev gpu.Device) {
	r := rand.New(rand.NewPCG(26, 47))
	n := 4000
	sums, counts := make([]any, 0, n), make([]any, 0, n)
	want := func(scale int32, mode int64) []float64 {
		out := make([]float64, len(sums))
		for i := range sums {
			if sums[i] == nil {
				out[i] = math.NaN() // null
				continue
			}
			out[i] = avgWant(sums[i].(*big.Int), counts[i].(int64), scale, mode)
		}
		return out
	}
	for _, s := range []int64{0, 1, -1, 7, -150, 1499392_90, 383_85, 1 << 62} {
		sums, counts = append(sums, big.NewInt(s)), append(counts, int64(3))
	}
	// Sums whose long double quotient lands on a midpoint between two
	// doubles: dividing in double (one rounding) gives the other one.
	for _, c := range [][2]int64{{-87660106784486, 1066}, {-295593071689549, 3987}, {-290151033200306, 421}, {403000633541837, 409}} {
		sums, counts = append(sums, big.NewInt(c[0])), append(counts, c[1])
	}
	big30, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	sums, counts = append(sums, big30, nil), append(counts, int64(7), int64(1))
	for len(sums) < n {
		s := big.NewInt(r.Int64N(1<<50) - 1<<49)
		sums, counts = append(sums, s), append(counts, 1+r.Int64N(5000))
	}
	arrS, arrC := MakeArray(Dec(38, 2), sums...), MakeArray(I64, counts...)
	ts, tc := inputType(arrS), inputType(arrC)
	cols, _ := table(t, dev, arrS, arrC)
	defer ReleaseCols(cols)
	f := gpu.Type{Kind: gpu.Float64, Nullable: true}
	mode := func(m int64) *gpu.Expr { return gpu.Const(gpu.Type{Kind: gpu.Int64}, gpu.Value{I64: m}) }
	p := &gpu.Pipeline{Inputs: []gpu.Type{ts, tc}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		gpu.Call(gpu.OpAvgDivide, f, gpu.Col(0, ts), gpu.Col(1, tc), mode(gpu.AvgLongDouble)),
		gpu.Call(gpu.OpAvgDivide, f, gpu.Col(0, ts), gpu.Col(1, tc), mode(gpu.AvgDouble)),
	}}
	out, err := dev.Run(context.Background(), p, cols)
	if err != nil {
		t.Fatal(err)
	}
	defer ReleaseCols(out)
	got := Download(t, dev, out)
	defer ReleaseAll(got)
	for c, m := range []int64{gpu.AvgLongDouble, gpu.AvgDouble} {
		g := got[c].(*array.Float64)
		for i, w := range want(2, m) {
			switch {
			case math.IsNaN(w) != g.IsNull(i):
				t.Fatalf("mode %d row %d: null %v, want null %v", m, i, g.IsNull(i), math.IsNaN(w))
			case !g.IsNull(i) && math.Float64bits(g.Value(i)) != math.Float64bits(w):
				t.Fatalf("mode %d row %d: %s / (%d x 100) = %v, want %v", m, i, sums[i], counts[i], g.Value(i), w)
			}
		}
	}
}

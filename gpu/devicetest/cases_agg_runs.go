package devicetest

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// testAggRuns groups rows whose keys come in runs of equal values (as
// l_orderkey does in lineitem), which a device may combine before touching
// its hash table: runs of 1 to 40 rows cross warp boundaries, some keys come
// back in later runs, one run key is null, arguments are null in places,
// and a few decimal values need more than 64 bits.
func testAggRuns(t *testing.T, dev gpu.Device) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n = 200_000
	type acc struct {
		rows, nn1, nn2, nn3 int64
		sum1, sum2          *big.Int
		min1, max1          int64
		min2, max2          *big.Int
		sum3, min3, max3    float64
	}
	groups := map[string]*acc{}
	var order []string
	k := make([]any, 0, n)
	v1 := make([]any, 0, n)
	v2 := make([]any, 0, n)
	v3 := make([]any, 0, n)
	var keys []int64
	for len(k) < n {
		var key any
		switch r := rng.IntN(50); {
		case r == 0:
			key = nil
		case r < 10 && len(keys) > 0:
			key = keys[rng.IntN(len(keys))] // a key seen in an earlier run
		default:
			x := int64(len(keys))*3 - 1000
			keys = append(keys, x)
			key = x
		}
		name := NullCell
		if key != nil {
			name = I(key.(int64))
		}
		a := groups[name]
		if a == nil {
			a = &acc{sum1: new(big.Int), sum2: new(big.Int), min1: math.MaxInt64, max1: math.MinInt64, min3: math.Inf(1), max3: math.Inf(-1)}
			groups[name] = a
			order = append(order, name)
		}
		for run := 1 + rng.IntN(40); run > 0 && len(k) < n; run-- {
			k = append(k, key)
			a.rows++
			if rng.IntN(10) == 0 {
				v1 = append(v1, nil)
			} else {
				x := rng.Int64N(2e15) - 1e15
				v1 = append(v1, x)
				a.nn1++
				a.sum1.Add(a.sum1, big.NewInt(x))
				a.min1, a.max1 = min(a.min1, x), max(a.max1, x)
			}
			if rng.IntN(7) == 0 {
				v2 = append(v2, nil)
			} else {
				x := big.NewInt(rng.Int64N(1e12) - 5e11)
				if rng.IntN(5000) == 0 {
					x.Mul(x, pow10(20)) // beyond 64 bits
				}
				v2 = append(v2, x)
				if a.nn2 == 0 {
					a.min2, a.max2 = new(big.Int).Set(x), new(big.Int).Set(x)
				} else {
					if x.Cmp(a.min2) < 0 {
						a.min2.Set(x)
					}
					if x.Cmp(a.max2) > 0 {
						a.max2.Set(x)
					}
				}
				a.nn2++
				a.sum2.Add(a.sum2, x)
			}
			if rng.IntN(9) == 0 {
				v3 = append(v3, nil)
			} else {
				x := float64(rng.IntN(1_000_000)) / 8 // sums of eighths are exact
				v3 = append(v3, x)
				a.nn3++
				a.sum3 += x
				a.min3, a.max3 = min(a.min3, x), max(a.max3, x)
			}
		}
	}
	var want []string
	for _, name := range order {
		a := groups[name]
		cells := []string{name, I(a.rows), I(a.nn1)}
		if a.nn1 > 0 {
			cells = append(cells, a.sum1.String(), I(a.min1), I(a.max1))
		} else {
			cells = append(cells, NullCell, NullCell, NullCell)
		}
		if a.nn2 > 0 {
			cells = append(cells, FormatDecimal(a.sum2, 2), FormatDecimal(a.min2, 2), FormatDecimal(a.max2, 2))
		} else {
			cells = append(cells, NullCell, NullCell, NullCell)
		}
		if a.nn3 > 0 {
			cells = append(cells, F(a.sum3), F(a.min3), F(a.max3))
		} else {
			cells = append(cells, NullCell, NullCell, NullCell)
		}
		want = append(want, Row(cells...))
	}
	d := N(TDec128(38, 2))
	f := N(TF64)
	got := aggRows(t, dev, arrs(MakeArray(I64, k...), MakeArray(I64, v1...), MakeArray(Dec(38, 2), v2...), MakeArray(F64, v3...)), nil,
		func(ty []gpu.Type) []*gpu.Expr { return cols(ty, 0, 1, 2, 3) }, []int{0},
		[]gpu.Agg{countStar(), count(1), sumDec(1, 0), minOf(1, TI64), maxOf(1, TI64),
			sumDec(2, 2), minOf(2, d), maxOf(2, d),
			{Kind: gpu.AggSum, Arg: 3, Type: f}, minOf(3, f), maxOf(3, f)})
	if err := EqualRows(got, want, false, 0); err != nil {
		t.Fatal(err)
	}
}

package devicetest

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

func tpchCases() []testCase {
	return []testCase{
		{"tpch/q1_shape", testQ1},
		{"tpch/q6_shape", testQ6},
	}
}

// Lineitem is random data shaped like TPC-H's lineitem columns that Q1 and
// Q6 read (value ranges as in the TPC-H spec). Values are unscaled integers.
type Lineitem struct {
	N                          int
	ShipDate                   []int32
	ReturnFlag, LineStatus     []string
	Quantity, Price, Disc, Tax []int64 // decimal(15,2) unscaled
}

// RandomLineitem generates n rows from seed.
func RandomLineitem(n int, seed uint64) *Lineitem {
	rng := rand.New(rand.NewPCG(seed, 42))
	l := &Lineitem{N: n, ShipDate: make([]int32, n), ReturnFlag: make([]string, n), LineStatus: make([]string, n),
		Quantity: make([]int64, n), Price: make([]int64, n), Disc: make([]int64, n), Tax: make([]int64, n)}
	lo, hi := ParseDate("1992-01-02"), ParseDate("1998-12-01")
	for i := 0; i < n; i++ {
		l.ShipDate[i] = lo + int32(rng.IntN(int(hi-lo+1)))
		l.ReturnFlag[i] = []string{"A", "N", "R"}[rng.IntN(3)]
		l.LineStatus[i] = []string{"F", "O"}[rng.IntN(2)]
		l.Quantity[i] = int64(1+rng.IntN(50)) * 100
		l.Price[i] = 90000 + rng.Int64N(10494950-90000+1)
		l.Disc[i] = int64(rng.IntN(11))
		l.Tax[i] = int64(rng.IntN(9))
	}
	return l
}

// Arrays returns the columns as Arrow arrays: shipdate, returnflag,
// linestatus, quantity, extendedprice, discount, tax. Built with typed
// builders: the benchmarks use millions of rows.
func (l *Lineitem) Arrays() []arrow.Array {
	mem := memory.DefaultAllocator
	date := array.NewDate32Builder(mem)
	defer date.Release()
	for _, d := range l.ShipDate {
		date.Append(arrow.Date32(d))
	}
	out := []arrow.Array{date.NewArray()}
	for _, ss := range [][]string{l.ReturnFlag, l.LineStatus} {
		b := array.NewStringBuilder(mem)
		b.AppendValues(ss, nil)
		out = append(out, b.NewArray())
		b.Release()
	}
	for _, vs := range [][]int64{l.Quantity, l.Price, l.Disc, l.Tax} {
		b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 15, Scale: 2})
		for _, v := range vs {
			b.Append(decimal128.FromI64(v))
		}
		out = append(out, b.NewArray())
		b.Release()
	}
	return out
}

// Q1Pipeline is TPC-H Q1 as IR over the Arrays columns (types as DuckDB's
// plan gives them): group by returnflag, linestatus; sums of quantity,
// price, disc_price (decimal(18,4)), charge (decimal(38,6)), discount, and
// count(*).
func Q1Pipeline(shipCutoff int32) *gpu.Pipeline {
	d := TDec64(15, 2)
	in := []gpu.Type{TDate, TDict, TDict, d, d, d, d}
	one := gpu.Const(d, gpu.Value{I64: 100})
	discPrice := gpu.Call(gpu.OpMul, TDec64(18, 4), gpu.Col(4, d), gpu.Call(gpu.OpSub, TDec64(16, 2), one, gpu.Col(5, d)))
	charge := gpu.Call(gpu.OpMul, TDec128(38, 6), discPrice, gpu.Call(gpu.OpAdd, TDec64(16, 2), one, gpu.Col(6, d)))
	return &gpu.Pipeline{
		Inputs:    in,
		Filter:    gpu.Call(gpu.OpLe, TBool, gpu.Col(0, TDate), gpu.Const(TDate, gpu.Value{I64: int64(shipCutoff)})),
		Project:   []*gpu.Expr{gpu.Col(1, TDict), gpu.Col(2, TDict), gpu.Col(3, d), gpu.Col(4, d), discPrice, charge, gpu.Col(5, d)},
		Sink:      gpu.SinkAggregate,
		Keys:      []int{0, 1},
		Aggs:      []gpu.Agg{sumDec(2, 2), sumDec(3, 2), sumDec(4, 4), sumDec(5, 6), sumDec(6, 2), countStar()},
		GroupHint: 6,
	}
}

// Q1Expected computes Q1's rows with math/big.
func (l *Lineitem) Q1Expected(shipCutoff int32) []string {
	type acc struct {
		s   [5]*big.Int
		cnt int64
	}
	groups := map[[2]string]*acc{}
	for i := 0; i < l.N; i++ {
		if l.ShipDate[i] > shipCutoff {
			continue
		}
		k := [2]string{l.ReturnFlag[i], l.LineStatus[i]}
		a := groups[k]
		if a == nil {
			a = &acc{}
			for j := range a.s {
				a.s[j] = new(big.Int)
			}
			groups[k] = a
		}
		dp := new(big.Int).Mul(big.NewInt(l.Price[i]), big.NewInt(100-l.Disc[i]))
		ch := new(big.Int).Mul(dp, big.NewInt(100+l.Tax[i]))
		a.s[0].Add(a.s[0], big.NewInt(l.Quantity[i]))
		a.s[1].Add(a.s[1], big.NewInt(l.Price[i]))
		a.s[2].Add(a.s[2], dp)
		a.s[3].Add(a.s[3], ch)
		a.s[4].Add(a.s[4], big.NewInt(l.Disc[i]))
		a.cnt++
	}
	var rows []string
	for k, a := range groups {
		rows = append(rows, Row(S(k[0]), S(k[1]), FormatDecimal(a.s[0], 2), FormatDecimal(a.s[1], 2),
			FormatDecimal(a.s[2], 4), FormatDecimal(a.s[3], 6), FormatDecimal(a.s[4], 2), I(a.cnt)))
	}
	return rows
}

// Q6Pipeline is TPC-H Q6 over shipdate, quantity, extendedprice, discount
// (columns 0, 3, 4, 5 of Arrays; the pipeline takes all seven).
func Q6Pipeline(from, to int32) *gpu.Pipeline {
	d := TDec64(15, 2)
	in := []gpu.Type{TDate, TDict, TDict, d, d, d, d}
	c := func(v int64) *gpu.Expr { return gpu.Const(d, gpu.Value{I64: v}) }
	date := func(v int32) *gpu.Expr { return gpu.Const(TDate, gpu.Value{I64: int64(v)}) }
	return &gpu.Pipeline{
		Inputs: in,
		Filter: gpu.Call(gpu.OpAnd, TBool,
			gpu.Call(gpu.OpGe, TBool, gpu.Col(0, TDate), date(from)),
			gpu.Call(gpu.OpLt, TBool, gpu.Col(0, TDate), date(to)),
			gpu.Call(gpu.OpGe, TBool, gpu.Col(5, d), c(5)),
			gpu.Call(gpu.OpLe, TBool, gpu.Col(5, d), c(7)),
			gpu.Call(gpu.OpLt, TBool, gpu.Col(3, d), c(2400))),
		Project: []*gpu.Expr{gpu.Call(gpu.OpMul, TDec64(18, 4), gpu.Col(4, d), gpu.Col(5, d))},
		Sink:    gpu.SinkAggregate,
		Aggs:    []gpu.Agg{sumDec(0, 4)},
	}
}

// Q6Expected computes Q6's single row with math/big.
func (l *Lineitem) Q6Expected(from, to int32) []string {
	sum := new(big.Int)
	seen := false
	for i := 0; i < l.N; i++ {
		if l.ShipDate[i] >= from && l.ShipDate[i] < to && l.Disc[i] >= 5 && l.Disc[i] <= 7 && l.Quantity[i] < 2400 {
			sum.Add(sum, new(big.Int).Mul(big.NewInt(l.Price[i]), big.NewInt(l.Disc[i])))
			seen = true
		}
	}
	if !seen {
		return []string{NullCell}
	}
	return []string{FormatDecimal(sum, 4)}
}

func tpchRows() int {
	if testing.Short() {
		return 100_000
	}
	return 1_200_000
}

func testQ1(t *testing.T, dev gpu.Device) {
	l := RandomLineitem(tpchRows(), 1)
	cols, _ := table(t, dev, l.Arrays()...)
	defer ReleaseCols(cols)
	cutoff := ParseDate("1998-09-02")
	expectRows(t, RunPipeline(t, dev, Q1Pipeline(cutoff), cols), l.Q1Expected(cutoff), false)
}

func testQ6(t *testing.T, dev gpu.Device) {
	l := RandomLineitem(tpchRows(), 2)
	cols, _ := table(t, dev, l.Arrays()...)
	defer ReleaseCols(cols)
	from, to := ParseDate("1994-01-01"), ParseDate("1995-01-01")
	expectRows(t, RunPipeline(t, dev, Q6Pipeline(from, to), cols), l.Q6Expected(from, to), true)
}

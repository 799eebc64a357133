package devicetest

import (
	"math"
	"math/big"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

func exprCases() []testCase {
	return []testCase{
		{"expr/int_arith", testIntArith},
		{"expr/int_overflow", testIntOverflow},
		{"expr/decimal_arith", testDecimalArith},
		{"expr/decimal_overflow", testDecimalOverflow},
		{"expr/float_arith", testFloatArith},
		{"expr/compare_every_kind", testCompare},
		{"expr/compare_dict", testCompareDict},
		{"expr/compare_nan", testCompareNaN},
		{"expr/kleene", testKleene},
		{"expr/is_null", testIsNull},
		{"expr/case", testCaseExpr},
		{"expr/case_branch_not_taken", testCaseLazy},
	}
}

func testIntArith(t *testing.T, dev gpu.Device) {
	a := []any{int64(3), int64(-7), nil, int64(12), int64(0)}
	b := []any{int64(5), int64(2), int64(1), nil, int64(-9)}
	for _, k := range []struct {
		dt arrow.DataType
		t  gpu.Type
	}{{I8, TI8}, {I16, TI16}, {I32, TI32}, {I64, TI64}} {
		t.Run(k.t.String(), func(t *testing.T) {
			ta, tb := N(k.t), N(k.t)
			got := project(t, dev, arrs(MakeArray(k.dt, a...), MakeArray(k.dt, b...)),
				gpu.Call(gpu.OpAdd, N(k.t), gpu.Col(0, ta), gpu.Col(1, tb)),
				gpu.Call(gpu.OpSub, N(k.t), gpu.Col(0, ta), gpu.Col(1, tb)),
				gpu.Call(gpu.OpMul, N(k.t), gpu.Col(0, ta), gpu.Col(1, tb)),
				gpu.Call(gpu.OpNeg, N(k.t), gpu.Col(0, ta)),
				gpu.Call(gpu.OpAdd, N(TI64), gpu.Col(0, ta), gpu.Const(k.t, gpu.Value{I64: 100})))
			want := []string{
				Row("8", "-2", "15", "-3", "103"),
				Row("-5", "-9", "-14", "7", "93"),
				Row(NullCell, NullCell, NullCell, NullCell, NullCell),
				Row(NullCell, NullCell, NullCell, "-12", "112"),
				Row("-9", "9", "0", "0", "100"),
			}
			expectRows(t, got, want, true)
		})
	}
}

func testIntOverflow(t *testing.T, dev gpu.Device) {
	type tc struct {
		name string
		dt   arrow.DataType
		t    gpu.Type
		a, b int64
		op   gpu.Op
		res  gpu.Type
		want string // "" = overflow
	}
	maxI, minI := int64(math.MaxInt64), int64(math.MinInt64)
	prod := new(big.Int).Mul(big.NewInt(maxI), big.NewInt(maxI))
	for _, c := range []tc{
		{"int8 127+1", I8, TI8, 127, 1, gpu.OpAdd, TI8, ""},
		{"int8 127+127 as int16", I8, TI8, 127, 127, gpu.OpAdd, TI16, "254"},
		{"int8 -128-1", I8, TI8, -128, 1, gpu.OpSub, TI8, ""},
		{"int8 -128*-1", I8, TI8, -128, -1, gpu.OpMul, TI8, ""},
		{"int16 -32768-1", I16, TI16, -32768, 1, gpu.OpSub, TI16, ""},
		{"int32 max*2", I32, TI32, math.MaxInt32, 2, gpu.OpMul, TI32, ""},
		{"int32 max+max as int64", I32, TI32, math.MaxInt32, math.MaxInt32, gpu.OpAdd, TI64, "4294967294"},
		{"int64 max+1", I64, TI64, maxI, 1, gpu.OpAdd, TI64, ""},
		{"int64 min-1", I64, TI64, minI, 1, gpu.OpSub, TI64, ""},
		{"int64 min+max", I64, TI64, minI, maxI, gpu.OpAdd, TI64, "-1"},
		{"int64 3037000500^2", I64, TI64, 3037000500, 3037000500, gpu.OpMul, TI64, ""},
		{"int64 3037000499^2", I64, TI64, 3037000499, 3037000499, gpu.OpMul, TI64, "9223372030926249001"},
		{"int64 max*max as hugeint", I64, TI64, maxI, maxI, gpu.OpMul, TDec128(38, 0), prod.String()},
		{"int64 min*-1", I64, TI64, minI, -1, gpu.OpMul, TI64, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := gpu.Call(c.op, c.res, gpu.Col(0, c.t), gpu.Col(1, c.t))
			in := arrs(MakeArray(c.dt, c.a), MakeArray(c.dt, c.b))
			if c.want == "" {
				expectOverflow(t, projectErr(t, dev, in, e), e.String())
				return
			}
			expectRows(t, project(t, dev, in, e), []string{c.want}, true)
		})
	}
	t.Run("int64 neg min", func(t *testing.T) {
		e := gpu.Call(gpu.OpNeg, TI64, gpu.Col(0, TI64))
		expectOverflow(t, projectErr(t, dev, arrs(MakeArray(I64, minI)), e), e.String())
	})
}

func testDecimalArith(t *testing.T, dev gpu.Device) {
	d := N(TDec64(15, 2))
	got := project(t, dev, arrs(MakeArray(Dec(15, 2), int64(12345), int64(-50), nil), MakeArray(Dec(15, 2), int64(-45), int64(-50), int64(1))),
		gpu.Call(gpu.OpAdd, N(TDec64(16, 2)), gpu.Col(0, d), gpu.Col(1, d)),
		gpu.Call(gpu.OpSub, N(TDec64(16, 2)), gpu.Col(0, d), gpu.Col(1, d)),
		gpu.Call(gpu.OpMul, N(TDec64(18, 4)), gpu.Col(0, d), gpu.Col(1, d)),
		gpu.Call(gpu.OpMul, N(TDec128(30, 4)), gpu.Col(0, d), gpu.Col(1, d)),
		gpu.Call(gpu.OpNeg, N(TDec64(15, 2)), gpu.Col(0, d)))
	expectRows(t, got, []string{
		Row("123.00", "123.90", "-55.5525", "-55.5525", "-123.45"),
		Row("-1.00", "0.00", "0.2500", "0.2500", "0.50"),
		Row(NullCell, NullCell, NullCell, NullCell, NullCell),
	}, true)

	// 128-bit values: carries across the 64-bit halves.
	x, _ := new(big.Int).SetString("12345678901234567890123456789012345678", 10)
	y := new(big.Int).Neg(new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 62), big.NewInt(1))) // -(2^62+1): square crosses 64 bits
	D := TDec128(38, 3)
	got = project(t, dev, arrs(MakeArray(Dec(38, 3), x, big.NewInt(-1)), MakeArray(Dec(38, 3), y, big.NewInt(1))),
		gpu.Call(gpu.OpAdd, D, gpu.Col(0, D), gpu.Col(1, D)),
		gpu.Call(gpu.OpSub, D, gpu.Col(0, D), gpu.Col(1, D)),
		gpu.Call(gpu.OpNeg, D, gpu.Col(0, D)),
		gpu.Call(gpu.OpMul, TDec128(38, 6), gpu.Col(1, D), gpu.Col(1, D)))
	dec := func(v *big.Int, s int32) string { return FormatDecimal(v, s) }
	sq := new(big.Int).Mul(y, y)
	expectRows(t, got, []string{
		Row(dec(new(big.Int).Add(x, y), 3), dec(new(big.Int).Sub(x, y), 3), dec(new(big.Int).Neg(x), 3), dec(sq, 6)),
		Row("0.000", "-0.002", "0.001", "0.000001"),
	}, true)
}

func testDecimalOverflow(t *testing.T, dev gpu.Device) {
	d31 := TDec64(3, 1)
	in := func() []arrow.Array { return arrs(MakeArray(Dec(3, 1), int64(999)), MakeArray(Dec(3, 1), int64(1))) }
	e := gpu.Call(gpu.OpAdd, d31, gpu.Col(0, d31), gpu.Col(1, d31))
	expectOverflow(t, projectErr(t, dev, in(), e), "99.9+0.1 as decimal(3,1)")
	e = gpu.Call(gpu.OpAdd, TDec64(4, 1), gpu.Col(0, d31), gpu.Col(1, d31))
	expectRows(t, project(t, dev, in(), e), []string{"100.0"}, true)
	e = gpu.Call(gpu.OpSub, d31, gpu.Call(gpu.OpNeg, d31, gpu.Col(0, d31)), gpu.Col(1, d31))
	expectOverflow(t, projectErr(t, dev, in(), e), "-99.9-0.1 as decimal(3,1)")

	D := TDec128(38, 0)
	p37, p20 := pow10(37), pow10(20)
	e = gpu.Call(gpu.OpMul, D, gpu.Col(0, D), gpu.Col(1, D))
	expectOverflow(t, projectErr(t, dev, arrs(MakeArray(Dec(38, 0), p37), MakeArray(Dec(38, 0), big.NewInt(10))), e), "10^37*10 as decimal(38,0)")
	expectOverflow(t, projectErr(t, dev, arrs(MakeArray(Dec(38, 0), p20), MakeArray(Dec(38, 0), p20)), e), "10^20*10^20 (beyond 128 bits)")
	e = gpu.Call(gpu.OpMul, D, gpu.Col(0, D), gpu.Col(1, D))
	expectRows(t, project(t, dev, arrs(MakeArray(Dec(38, 0), p37), MakeArray(Dec(38, 0), big.NewInt(-9))), e),
		[]string{new(big.Int).Mul(p37, big.NewInt(-9)).String()}, true)
	max38 := new(big.Int).Sub(pow10(38), big.NewInt(1))
	e = gpu.Call(gpu.OpAdd, D, gpu.Col(0, D), gpu.Col(1, D))
	expectOverflow(t, projectErr(t, dev, arrs(MakeArray(Dec(38, 0), max38), MakeArray(Dec(38, 0), big.NewInt(1))), e), "(10^38-1)+1")
	// Decimal64 * Decimal64 -> Decimal64 beyond 10^18.
	d18 := TDec64(18, 0)
	e = gpu.Call(gpu.OpMul, d18, gpu.Col(0, d18), gpu.Col(1, d18))
	expectOverflow(t, projectErr(t, dev, arrs(MakeArray(Dec(18, 0), int64(1e9)), MakeArray(Dec(18, 0), int64(1e9))), e), "10^9*10^9 as decimal(18,0)")
}

func testFloatArith(t *testing.T, dev gpu.Device) {
	f := N(TF64)
	got := project(t, dev, arrs(MakeArray(F64, 1.5, 1.0, 0.0, nil, -2.0), MakeArray(F64, 0.25, 0.0, 0.0, 1.0, 3.0)),
		gpu.Call(gpu.OpAdd, f, gpu.Col(0, f), gpu.Col(1, f)),
		gpu.Call(gpu.OpSub, f, gpu.Col(0, f), gpu.Col(1, f)),
		gpu.Call(gpu.OpMul, f, gpu.Col(0, f), gpu.Col(1, f)),
		gpu.Call(gpu.OpDiv, f, gpu.Col(0, f), gpu.Col(1, f)),
		gpu.Call(gpu.OpNeg, f, gpu.Col(0, f)))
	expectRows(t, got, []string{
		Row(F(1.75), F(1.25), F(0.375), F(6), F(-1.5)),
		Row(F(1), F(1), F(0), F(math.Inf(1)), F(-1)),
		Row(F(0), F(0), F(0), F(math.NaN()), F(0)),
		Row(NullCell, NullCell, NullCell, NullCell, NullCell),
		Row(F(1), F(-5), F(-6), F(-2.0/3), F(2)),
	}, true)
	// Float32 arithmetic rounds to float32.
	a, b := float32(0.1), float32(0.2)
	got = project(t, dev, arrs(MakeArray(F32, float64(a)), MakeArray(F32, float64(b))),
		gpu.Call(gpu.OpAdd, TF32, gpu.Col(0, TF32), gpu.Col(1, TF32)),
		gpu.Call(gpu.OpDiv, TF32, gpu.Col(0, TF32), gpu.Col(1, TF32)))
	expectRows(t, got, []string{Row(F(float64(a+b)), F(float64(a/b)))}, true)

	// A product and a difference round one after the other, as DuckDB's
	// do: 0.1 * 3 rounds to c, so x * y - c is 0; one fused multiply-add
	// (CUDA's default contraction, also across generated statements)
	// gives the product's rounding error, 5.551115123125783e-17.
	x, y := 0.1, 3.0
	c := float64(x * y)
	got = project(t, dev, arrs(MakeArray(F64, x), MakeArray(F64, y), MakeArray(F64, c)),
		gpu.Call(gpu.OpSub, f, gpu.Call(gpu.OpMul, f, gpu.Col(0, f), gpu.Col(1, f)), gpu.Col(2, f)),
		gpu.Call(gpu.OpAdd, f, gpu.Call(gpu.OpMul, f, gpu.Col(0, f), gpu.Col(1, f)), gpu.Call(gpu.OpNeg, f, gpu.Col(2, f))))
	expectRows(t, got, []string{Row(F(0), F(0))}, true)
}

// testCompare checks all six comparisons on rows that are less, equal,
// greater, and null on either side.
func testCompare(t *testing.T, dev gpu.Device) {
	p37 := pow10(37)
	type kc struct {
		dt   arrow.DataType
		t    gpu.Type
		a, b []any
	}
	for _, k := range []kc{
		{Bool, TBool, []any{false, true, true, nil, true}, []any{true, true, false, true, nil}},
		{I8, TI8, []any{int64(-128), int64(5), int64(127), nil, int64(1)}, []any{int64(127), int64(5), int64(-128), int64(1), nil}},
		{I16, TI16, []any{int64(-32768), int64(-5), int64(32767), nil, int64(1)}, []any{int64(32767), int64(-5), int64(0), int64(1), nil}},
		{I32, TI32, []any{int64(math.MinInt32), int64(7), int64(math.MaxInt32), nil, int64(1)}, []any{int64(-1), int64(7), int64(0), int64(1), nil}},
		{I64, TI64, []any{int64(math.MinInt64), int64(1 << 40), int64(math.MaxInt64), nil, int64(1)}, []any{int64(math.MaxInt64), int64(1 << 40), int64(math.MinInt64), int64(1), nil}},
		{F32, TF32, []any{-1.5, 2.0, math.Inf(1), nil, 1.0}, []any{1.5, 2.0, 3.0, 1.0, nil}},
		{F64, TF64, []any{math.Inf(-1), -0.0, 1e300, nil, 1.0}, []any{-1e300, 0.0, 1e299, 1.0, nil}},
		{Date, TDate, []any{"1969-12-31", "1998-09-02", "2000-03-01", nil, "1995-01-01"}, []any{"1970-01-01", "1998-09-02", "2000-02-29", "1995-01-01", nil}},
		{Dec(12, 2), TDec64(12, 2), []any{int64(-5), int64(100), int64(999999999999), nil, int64(1)}, []any{int64(5), int64(100), int64(-999999999999), int64(1), nil}},
		{Dec(38, 2), TDec128(38, 2), []any{new(big.Int).Neg(p37), p37, new(big.Int).Add(p37, big.NewInt(1)), nil, big.NewInt(1)}, []any{p37, p37, p37, big.NewInt(1), nil}},
	} {
		t.Run(k.t.String(), func(t *testing.T) {
			ta := inputType(MakeArray(k.dt, k.a...))
			tb := inputType(MakeArray(k.dt, k.b...))
			var exprs []*gpu.Expr
			for _, op := range []gpu.Op{gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe} {
				exprs = append(exprs, gpu.Call(op, N(TBool), gpu.Col(0, ta), gpu.Col(1, tb)))
			}
			got := project(t, dev, arrs(MakeArray(k.dt, k.a...), MakeArray(k.dt, k.b...)), exprs...)
			//           =        <>       <        <=       >        >=
			want := []string{
				Row("false", "true", "true", "true", "false", "false"),
				Row("true", "false", "false", "true", "false", "true"),
				Row("false", "true", "false", "false", "true", "true"),
				Row(NullCell, NullCell, NullCell, NullCell, NullCell, NullCell),
				Row(NullCell, NullCell, NullCell, NullCell, NullCell, NullCell),
			}
			expectRows(t, got, want, true)
		})
	}
}

func testCompareDict(t *testing.T, dev gpu.Device) {
	// Dictionary: ["a", "b", "c"]; code 1 is "b".
	arr := MakeArray(String, "a", "b", "c", nil)
	ta := inputType(arr)
	b := gpu.Const(TDict, gpu.Value{I64: 1})
	var exprs []*gpu.Expr
	for _, op := range []gpu.Op{gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe} {
		exprs = append(exprs, gpu.Call(op, N(TBool), gpu.Col(0, ta), b))
	}
	exprs = append(exprs, gpu.Call(gpu.OpLt, N(TBool), gpu.Col(0, ta), gpu.Col(0, ta)))
	got := project(t, dev, arrs(arr), exprs...)
	expectRows(t, got, []string{
		Row("false", "true", "true", "true", "false", "false", "false"),
		Row("true", "false", "false", "true", "false", "true", "false"),
		Row("false", "true", "false", "false", "true", "true", "false"),
		Row(NullCell, NullCell, NullCell, NullCell, NullCell, NullCell, NullCell),
	}, true)
}

func testKleene(t *testing.T, dev gpu.Device) {
	T, F := true, false
	a := MakeArray(Bool, T, T, T, F, F, F, nil, nil, nil)
	b := MakeArray(Bool, T, F, nil, T, F, nil, T, F, nil)
	c := MakeArray(Bool, T, T, T, T, T, T, T, T, F)
	tb := N(TBool)
	tc := TBool
	got := project(t, dev, arrs(a, b, c),
		gpu.Call(gpu.OpAnd, tb, gpu.Col(0, tb), gpu.Col(1, tb)),
		gpu.Call(gpu.OpOr, tb, gpu.Col(0, tb), gpu.Col(1, tb)),
		gpu.Call(gpu.OpNot, tb, gpu.Col(0, tb)),
		gpu.Call(gpu.OpAnd, tb, gpu.Col(0, tb), gpu.Col(1, tb), gpu.Col(2, tc)),
		gpu.Call(gpu.OpOr, tb, gpu.Col(0, tb), gpu.Col(1, tb), gpu.Call(gpu.OpNot, tc, gpu.Col(2, tc))))
	N := NullCell
	expectRows(t, got, []string{
		Row("true", "true", "false", "true", "true"),
		Row("false", "true", "false", "false", "true"),
		Row(N, "true", "false", N, "true"),
		Row("false", "true", "true", "false", "true"),
		Row("false", "false", "true", "false", "false"),
		Row("false", N, "true", "false", N),
		Row(N, "true", N, N, "true"),
		Row("false", N, N, "false", N),
		Row(N, N, N, "false", "true"),
	}, true)
}

func testIsNull(t *testing.T, dev gpu.Device) {
	i := MakeArray(I64, int64(1), nil, int64(3))
	s := MakeArray(String, nil, "x", "y")
	d := MakeArray(Dec(38, 2), big.NewInt(1), big.NewInt(2), nil)
	ti, ts, td := inputType(i), inputType(s), inputType(d)
	got := project(t, dev, arrs(i, s, d),
		gpu.Call(gpu.OpIsNull, TBool, gpu.Col(0, ti)),
		gpu.Call(gpu.OpIsNotNull, TBool, gpu.Col(0, ti)),
		gpu.Call(gpu.OpIsNull, TBool, gpu.Col(1, ts)),
		gpu.Call(gpu.OpIsNull, TBool, gpu.Col(2, td)),
		gpu.Call(gpu.OpIsNull, TBool, gpu.Call(gpu.OpAdd, N(TI64), gpu.Col(0, ti), gpu.Const(TI64, gpu.Value{I64: 1}))))
	expectRows(t, got, []string{
		Row("false", "true", "true", "false", "false"),
		Row("true", "false", "false", "false", "true"),
		Row("false", "true", "false", "true", "false"),
	}, true)
}

func testCaseExpr(t *testing.T, dev gpu.Device) {
	T, F := true, false
	c1 := MakeArray(Bool, T, nil, F, T, nil)
	c2 := MakeArray(Bool, F, T, T, F, nil)
	v1 := MakeArray(I64, int64(1), int64(2), int64(3), int64(4), int64(5))
	el := MakeArray(I64, int64(10), int64(20), int64(30), int64(40), nil)
	tb, ti := N(TBool), N(TI64)
	e := gpu.Call(gpu.OpCase, ti, gpu.Col(0, tb), gpu.Col(2, TI64), gpu.Col(1, tb), gpu.Const(TI64, gpu.Value{I64: 100}), gpu.Col(3, ti))
	got := project(t, dev, arrs(c1, c2, v1, el), e)
	expectRows(t, got, []string{"1", "100", "100", "4", NullCell}, true)
	// A typed null as a branch value.
	c := MakeArray(Bool, T, F)
	e = gpu.Call(gpu.OpCase, N(TDec64(10, 2)), gpu.Col(0, TBool), gpu.Const(N(TDec64(10, 2)), gpu.Value{Null: true}), gpu.Const(TDec64(10, 2), gpu.Value{I64: 150}))
	expectRows(t, project(t, dev, arrs(c), e), []string{NullCell, "1.50"}, true)
}

// testCaseLazy: a branch that would overflow on rows that do not take it
// must not raise an error.
func testCaseLazy(t *testing.T, dev gpu.Device) {
	a := MakeArray(I8, int64(1), int64(120), int64(-128))
	cond := gpu.Call(gpu.OpLt, TBool, gpu.Col(0, TI8), gpu.Const(TI8, gpu.Value{I64: 100}))
	plus := gpu.Call(gpu.OpAdd, TI8, gpu.Col(0, TI8), gpu.Const(TI8, gpu.Value{I64: 100}))
	minus := gpu.Call(gpu.OpSub, TI8, gpu.Col(0, TI8), gpu.Const(TI8, gpu.Value{I64: 100}))
	// -128 < 100 takes plus (-28); 120 takes minus (20); 1 takes plus (101).
	e := gpu.Call(gpu.OpCase, TI8, cond, plus, minus)
	expectRows(t, project(t, dev, arrs(a), e), []string{"101", "20", "-28"}, true)
}

// testCompareNaN: floats compare as in DuckDB, not IEEE: NaN equals NaN and
// is larger than every number, infinity included.
func testCompareNaN(t *testing.T, dev gpu.Device) {
	nan := math.NaN()
	a := []any{nan, nan, math.Inf(1), 1.0}
	b := []any{nan, math.Inf(1), nan, nan}
	var exprs []*gpu.Expr
	for _, op := range []gpu.Op{gpu.OpEq, gpu.OpNe, gpu.OpLt, gpu.OpLe, gpu.OpGt, gpu.OpGe} {
		exprs = append(exprs, gpu.Call(op, TBool, gpu.Col(0, TF64), gpu.Col(1, TF64)))
	}
	got := project(t, dev, arrs(MakeArray(F64, a...), MakeArray(F64, b...)), exprs...)
	//           =        <>       <        <=       >        >=
	want := []string{
		Row("true", "false", "false", "true", "false", "true"),
		Row("false", "true", "false", "false", "true", "true"),
		Row("false", "true", "true", "true", "false", "false"),
		Row("false", "true", "true", "true", "false", "false"),
	}
	expectRows(t, got, want, true)
}

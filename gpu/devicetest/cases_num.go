package devicetest

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

// Battery cases for the numeric operators of gpu/ir_num.go.
func numCases() []testCase {
	return []testCase{
		{"num/float_funcs", testNumFloatFuncs},
		{"num/abs", testNumAbs},
		{"num/bits", testNumBits},
		{"num/saturate_wrap", testNumSaturateWrap},
		{"num/ceil_floor_round", testNumCeilFloorRound},
		{"num/domain", testNumDomain},
		{"num/pow_factorial", testNumPowFactorial},
	}
}

func testNumFloatFuncs(t *testing.T, dev gpu.Device) {
	x := MakeArray(F64, 4.0, -1.0, nil, 0.0, math.Inf(1))
	c := gpu.Col(0, N(TF64))
	rows := project(t, dev, arrs(x),
		gpu.Call(gpu.OpSqrt, N(TF64), c), gpu.Call(gpu.OpLn, N(TF64), c),
		gpu.Call(gpu.OpPow, N(TF64), c, gpu.Const(TF64, gpu.Value{F64: 0.5})),
		gpu.Call(gpu.OpRound, N(TF64), gpu.Call(gpu.OpExp, N(TF64), c), gpu.Const(TI32, gpu.Value{I64: 2})))
	expectNumRows(t, rows, []string{
		"~2|~1.3862943611198906|~2|~54.6",
		"~NaN|~NaN|~NaN|~0.37",
		NullCell + "|" + NullCell + "|" + NullCell + "|" + NullCell,
		"~0|~-Inf|~0|~1",
		"~+Inf|~+Inf|~+Inf|~+Inf",
	}, true)
	f := MakeArray(F32, 0.5, -2.25)
	c32 := gpu.Col(0, TF32)
	rows = project(t, dev, arrs(f), gpu.Call(gpu.OpAsin, TF32, c32), gpu.Call(gpu.OpFloor, TF32, c32), gpu.Call(gpu.OpAbs, TF32, c32))
	expectNumRows(t, rows, []string{"~0.5235987901687622|~0|~0.5", "~NaN|~-3|~2.25"}, true)
}

func testNumAbs(t *testing.T, dev gpu.Device) {
	x := MakeArray(I8, int64(-5), nil, int64(127))
	expectNumRows(t, project(t, dev, arrs(x), gpu.Call(gpu.OpAbs, N(TI8), gpu.Col(0, N(TI8)))), []string{"5", NullCell, "127"}, true)
	m := MakeArray(I8, int64(-128))
	e := gpu.Call(gpu.OpAbs, TI8, gpu.Col(0, TI8))
	expectOverflow(t, projectErr(t, dev, arrs(m), e), e.String())
	d := MakeArray(Dec(38, 2), new(big.Int).Neg(new(big.Int).Sub(pow10(38), big.NewInt(1))))
	expectNumRows(t, project(t, dev, arrs(d), gpu.Call(gpu.OpAbs, TDec128(38, 2), gpu.Col(0, TDec128(38, 2)))),
		[]string{"999999999999999999999999999999999999.99"}, true)
}

func testNumBits(t *testing.T, dev gpu.Device) {
	a := MakeArray(I32, int64(-127), int64(31766), nil, int64(-3))
	b := MakeArray(I32, int64(-10), int64(900), int64(1), int64(1))
	ca, cb := gpu.Col(0, N(TI32)), gpu.Col(1, TI32)
	shift := func(op gpu.Op, k int64) *gpu.Expr {
		return gpu.Call(op, N(TI32), ca, gpu.Const(TI32, gpu.Value{I64: k}))
	}
	rows := project(t, dev, arrs(a, b),
		gpu.Call(gpu.OpBitAnd, N(TI32), ca, cb), gpu.Call(gpu.OpBitOr, N(TI32), ca, cb),
		gpu.Call(gpu.OpBitXor, N(TI32), ca, cb), gpu.Call(gpu.OpBitNot, N(TI32), ca),
		shift(gpu.OpShl, 1), shift(gpu.OpShr, 1), shift(gpu.OpShrU, 1), shift(gpu.OpShl, 31))
	expectNumRows(t, rows, []string{
		"-128|-9|119|126|-254|-64|2147483584|-2147483648",
		"4|32662|32658|-31767|63532|15883|15883|0",
		NullCell + "|" + NullCell + "|" + NullCell + "|" + NullCell + "|" + NullCell + "|" + NullCell + "|" + NullCell + "|" + NullCell,
		"1|-3|-4|2|-6|-2|2147483646|-2147483648",
	}, true)
}

func testNumSaturateWrap(t *testing.T, dev gpu.Device) {
	x := MakeArray(Dec(38, 0), big.NewInt(130), big.NewInt(-130), big.NewInt(5), nil)
	c := gpu.Col(0, N(TDec128(38, 0)))
	rows := project(t, dev, arrs(x), gpu.Call(gpu.OpSaturate, N(TI8), c), gpu.Call(gpu.OpWrap, N(TI8), c))
	expectNumRows(t, rows, []string{"127|-126", "-128|126", "5|5", NullCell + "|" + NullCell}, true)
}

func testNumCeilFloorRound(t *testing.T, dev gpu.Device) {
	x := MakeArray(Dec(5, 2), int64(225), int64(-6550), int64(-5), int64(99999))
	c := gpu.Col(0, TDec64(5, 2))
	rows := project(t, dev, arrs(x),
		gpu.Call(gpu.OpCeil, TDec64(4, 0), c), gpu.Call(gpu.OpFloor, TDec64(4, 0), c),
		gpu.Call(gpu.OpRound, TDec64(6, 2), c, gpu.Const(TI32, gpu.Value{I64: 1})),
		gpu.Call(gpu.OpRound, TDec64(6, 2), c, gpu.Const(TI32, gpu.Value{I64: -1})))
	expectNumRows(t, rows, []string{
		"3|2|2.30|0.00",
		"-65|-66|-65.50|-70.00",
		"0|-1|-0.10|0.00",
		"1000|999|1000.00|1000.00",
	}, true)
}

// testNumDomain: division, modulus, shifts and OpCheck raise ErrDomain; a
// device may refuse these operators (ErrUnsupported), never answer wrongly.
func testNumDomain(t *testing.T, dev gpu.Device) {
	a := func() arrow.Array { return MakeArray(I16, int64(7), int64(-7), int64(8)) }
	b := func() arrow.Array { return MakeArray(I16, int64(2), int64(2), int64(-3)) }
	ca, cb := gpu.Col(0, TI16), gpu.Col(1, TI16)
	exprs := []*gpu.Expr{gpu.Call(gpu.OpMod, TI16, ca, cb), gpu.Call(gpu.OpIntDiv, TI16, ca, cb)}
	if err := projectErr(t, dev, arrs(a(), b()), exprs...); errors.Is(err, gpu.ErrUnsupported) {
		t.Skipf("SKIP: the device refuses %s: %v", exprs[0].Op, err)
	}
	expectNumRows(t, project(t, dev, arrs(a(), b()), exprs...), []string{"1|3", "-1|-3", "2|-2"}, true)
	z := MakeArray(I16, int64(0), int64(1), int64(1))
	err := projectErr(t, dev, arrs(a(), z), gpu.Call(gpu.OpMod, TI16, ca, gpu.Col(1, TI16)))
	if !errors.Is(err, gpu.ErrDomain) {
		t.Fatalf("modulus by zero: %v, want ErrDomain", err)
	}
	neg := gpu.Call(gpu.OpLt, TBool, ca, gpu.Const(TI16, gpu.Value{I64: 0}))
	err = projectErr(t, dev, arrs(a()), gpu.Call(gpu.OpCheck, TI16, neg, ca))
	if !errors.Is(err, gpu.ErrDomain) {
		t.Fatalf("check of a negative value: %v, want ErrDomain", err)
	}
	err = projectErr(t, dev, arrs(a(), MakeArray(I32, int64(1), int64(16), int64(2))),
		gpu.Call(gpu.OpShl, TI16, ca, gpu.Col(1, TI32)))
	if !errors.Is(err, gpu.ErrDomain) {
		t.Fatalf("shift of an i16 by 16: %v, want ErrDomain", err)
	}
	minI64 := MakeArray(I64, int64(math.MinInt64))
	m1 := MakeArray(I64, int64(-1))
	e := gpu.Call(gpu.OpIntDiv, TI64, gpu.Col(0, TI64), gpu.Col(1, TI64))
	expectOverflow(t, projectErr(t, dev, arrs(minI64, m1), e), e.String())
}

func testNumPowFactorial(t *testing.T, dev gpu.Device) {
	x := func() arrow.Array { return MakeArray(I64, int64(13), int64(-1), int64(0), int64(2), nil) }
	k := func() arrow.Array { return MakeArray(I64, int64(10), int64(7), int64(0), int64(62), int64(1)) }
	cx, ck := gpu.Col(0, N(TI64)), gpu.Col(1, TI64)
	pow := gpu.Call(gpu.OpIntPow, N(TI64), cx, ck)
	expectNumRows(t, project(t, dev, arrs(x(), k()), pow),
		[]string{"137858491849", "-1", "1", "4611686018427387904", NullCell}, true)
	e := gpu.Call(gpu.OpIntPow, TI64, gpu.Col(0, TI64), gpu.Col(1, TI64))
	expectOverflow(t, projectErr(t, dev, arrs(MakeArray(I64, int64(2)), MakeArray(I64, int64(63))), e), e.String())
	if err := projectErr(t, dev, arrs(MakeArray(I64, int64(2)), MakeArray(I64, int64(-1))), e); !errors.Is(err, gpu.ErrDomain) {
		t.Fatalf("2 ^ -1 in integers: %v, want ErrDomain", err)
	}
	n := MakeArray(Dec(2, 0), int64(0), int64(20), int64(33), nil)
	f := gpu.Call(gpu.OpFactorial, N(TDec128(38, 0)), gpu.Col(0, N(TDec64(2, 0))))
	expectNumRows(t, project(t, dev, arrs(n), f),
		[]string{"1", "2432902008176640000", "8683317618811886495518194401280000000", NullCell}, true)
	f = gpu.Call(gpu.OpFactorial, TDec128(38, 0), gpu.Col(0, TDec64(2, 0)))
	expectOverflow(t, projectErr(t, dev, arrs(MakeArray(Dec(2, 0), int64(34))), f), f.String())
	f = gpu.Call(gpu.OpFactorial, TI64, gpu.Col(0, TI64))
	expectOverflow(t, projectErr(t, dev, arrs(MakeArray(I64, int64(21))), f), f.String())
}

// expectNumRows compares rows written with "|" between cells.
func expectNumRows(t testing.TB, got, want []string, ordered bool) {
	t.Helper()
	w := make([]string, len(want))
	for i, r := range want {
		w[i] = strings.ReplaceAll(r, "|", "\t")
	}
	expectRows(t, got, w, ordered)
}

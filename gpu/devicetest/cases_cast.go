package devicetest

import (
	"math"
	"math/big"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/rigel-db/rigel/gpu"
)

func castCases() []testCase {
	return []testCase{
		{"cast/int_int", testCastIntInt},
		{"cast/decimal_rescale", testCastRescale},
		{"cast/decimal_to_int", testCastDecimalToInt},
		{"cast/int_to_decimal", testCastIntToDecimal},
		{"cast/to_float", testCastToFloat},
		{"cast/float_to_int", testCastFloatToInt},
	}
}

// Floats to integers round half to even (DuckDB's nearbyint, as in
// CAST(round(revenue / 50) AS int), TPC-DS q54); NaN, infinities and
// values beyond the type overflow.
func testCastFloatToInt(t *testing.T, dev gpu.Device) {
	castCase(t, dev, F64, TI32, []any{2.5, 3.5, -2.5, -0.5, 0.49999999999999994, 2147483647.4, -2147483648.4, nil},
		[]string{"2", "4", "-2", "0", "0", "2147483647", "-2147483648", NullCell})
	castCase(t, dev, F64, TI8, []any{127.49, -128.5}, []string{"127", "-128"})
	castCase(t, dev, F64, TI8, []any{127.5}, nil)
	castCase(t, dev, F64, TI32, []any{2147483647.5}, nil)
	castCase(t, dev, F64, TI64, []any{-9223372036854775808.0}, []string{"-9223372036854775808"})
	castCase(t, dev, F64, TI64, []any{9223372036854775808.0}, nil)
	castCase(t, dev, F64, TI16, []any{math.NaN()}, nil)
	castCase(t, dev, F64, TI64, []any{math.Inf(-1)}, nil)
	castCase(t, dev, F32, TI16, []any{2.5, -3.5}, []string{"2", "-4"})
}

// castCase casts column 0 (values vals of Arrow type dt) to `to`; want is
// the rows, or nil for an expected ErrOverflow.
func castCase(t *testing.T, dev gpu.Device, dt arrow.DataType, to gpu.Type, vals []any, want []string) {
	t.Helper()
	arr := MakeArray(dt, vals...)
	from := inputType(arr)
	e := gpu.Call(gpu.OpCast, to.WithNullable(from.Nullable), gpu.Col(0, from))
	if want == nil {
		expectOverflow(t, projectErr(t, dev, arrs(arr), e), e.String())
		return
	}
	expectRows(t, project(t, dev, arrs(arr), e), want, true)
}

func testCastIntInt(t *testing.T, dev gpu.Device) {
	castCase(t, dev, I64, TI8, []any{int64(127), int64(-128), nil, int64(5)}, []string{"127", "-128", NullCell, "5"})
	castCase(t, dev, I64, TI8, []any{int64(1), int64(128)}, nil)
	castCase(t, dev, I64, TI8, []any{int64(-129)}, nil)
	castCase(t, dev, I8, TI64, []any{int64(-128), int64(127)}, []string{"-128", "127"})
	castCase(t, dev, I32, TI16, []any{int64(-32769)}, nil)
	castCase(t, dev, I64, TI32, []any{int64(math.MaxInt32) + 1}, nil)
	castCase(t, dev, I64, TI32, []any{int64(math.MinInt32)}, []string{I(math.MinInt32)})
	castCase(t, dev, I16, TI32, []any{int64(-32768), nil}, []string{"-32768", NullCell})
}

func testCastRescale(t *testing.T, dev gpu.Device) {
	// Up: multiply; overflow when |x| >= 10^p.
	castCase(t, dev, Dec(10, 2), TDec64(12, 4), []any{int64(123), int64(-99999), nil}, []string{"1.2300", "-999.9900", NullCell})
	castCase(t, dev, Dec(5, 2), TDec64(5, 3), []any{int64(99999)}, nil)
	castCase(t, dev, Dec(5, 2), TDec64(6, 3), []any{int64(99999)}, []string{"999.990"})
	castCase(t, dev, Dec(18, 0), TDec128(38, 20), []any{int64(999999999999999999)}, []string{"999999999999999999.00000000000000000000"})
	// Down: divide, rounding half away from zero (negatives mirror).
	castCase(t, dev, Dec(10, 3), TDec64(10, 2),
		[]any{int64(1245), int64(1244), int64(-1245), int64(-1244), int64(5), int64(-5), int64(4), int64(-4), nil},
		[]string{"1.25", "1.24", "-1.25", "-1.24", "0.01", "-0.01", "0.00", "0.00", NullCell})
	x, _ := new(big.Int).SetString("12345678901234567890123", 10) // 1234567890123.4567890123
	castCase(t, dev, Dec(38, 10), TDec64(18, 2), []any{x, new(big.Int).Neg(x)}, []string{"1234567890123.46", "-1234567890123.46"})
	// A shift of more than 19 digits.
	v15 := new(big.Int).Mul(big.NewInt(15), pow10(24))
	v25 := new(big.Int).Mul(big.NewInt(-25), pow10(24))
	v0999 := new(big.Int).Sub(pow10(25), big.NewInt(1))
	v0499 := new(big.Int).Sub(new(big.Int).Mul(big.NewInt(5), pow10(24)), big.NewInt(1))
	castCase(t, dev, Dec(38, 25), TDec128(38, 0), []any{v15, v25, v0999, v0499}, []string{"2", "-3", "1", "0"})
	// Decimal64 to Decimal128 at the same scale, and back with a range check.
	castCase(t, dev, Dec(15, 2), TDec128(38, 2), []any{int64(-123)}, []string{"-1.23"})
	castCase(t, dev, Dec(38, 2), TDec64(18, 2), []any{pow10(18)}, nil)
}

func testCastDecimalToInt(t *testing.T, dev gpu.Device) {
	castCase(t, dev, Dec(10, 2), TI32, []any{int64(250), int64(-250), int64(249), int64(-249), int64(50), nil},
		[]string{"3", "-3", "2", "-2", "1", NullCell})
	castCase(t, dev, Dec(12, 2), TI32, []any{int64(214748364749)}, []string{I(math.MaxInt32)})
	castCase(t, dev, Dec(12, 2), TI32, []any{int64(214748364750)}, nil)
	castCase(t, dev, Dec(12, 2), TI32, []any{int64(-214748364850)}, nil)
	castCase(t, dev, Dec(12, 2), TI32, []any{int64(-214748364849)}, []string{I(math.MinInt32)})
	castCase(t, dev, Dec(38, 0), TI64, []any{new(big.Int).Lsh(big.NewInt(1), 63)}, nil)
	castCase(t, dev, Dec(38, 1), TI64, []any{new(big.Int).Neg(new(big.Int).Add(new(big.Int).Mul(new(big.Int).Lsh(big.NewInt(1), 63), big.NewInt(10)), big.NewInt(5)))}, nil)
}

func testCastIntToDecimal(t *testing.T, dev gpu.Device) {
	castCase(t, dev, I32, TDec64(5, 2), []any{int64(123), int64(-999), nil}, []string{"123.00", "-999.00", NullCell})
	castCase(t, dev, I32, TDec64(5, 2), []any{int64(1000)}, nil)
	castCase(t, dev, I64, TDec128(38, 0), []any{int64(math.MinInt64)}, []string{I(math.MinInt64)})
	castCase(t, dev, I64, TDec128(38, 18), []any{int64(math.MaxInt64)}, []string{I(math.MaxInt64) + ".000000000000000000"})
	castCase(t, dev, I64, TDec128(38, 20), []any{int64(math.MaxInt64)}, nil)
	castCase(t, dev, I8, TDec64(3, 0), []any{int64(-128)}, []string{"-128"})
	castCase(t, dev, I8, TDec64(2, 0), []any{int64(-128)}, nil)
}

// parsed is the correctly rounded float of a decimal string (strconv rounds
// exactly once, which is what the IR's cast promises).
func parsed(s string, bits int) string {
	f, err := strconv.ParseFloat(s, bits)
	if err != nil {
		panic(err)
	}
	return F(f)
}

func testCastToFloat(t *testing.T, dev gpu.Device) {
	castCase(t, dev, Dec(15, 2), TF64, []any{int64(10), int64(-12345), nil}, []string{F(0.1), F(-123.45), NullCell})
	big1, _ := new(big.Int).SetString("123456789012345678901234567", 10)
	castCase(t, dev, Dec(38, 5), TF64, []any{big1, new(big.Int).Neg(big1)},
		[]string{parsed("1234567890123456789012.34567", 64), parsed("-1234567890123456789012.34567", 64)})
	castCase(t, dev, Dec(38, 20), TF64, []any{big.NewInt(1), big.NewInt(3)}, []string{parsed("1e-20", 64), parsed("3e-20", 64)})
	castCase(t, dev, Dec(38, 5), TF32, []any{big1}, []string{parsed("1234567890123456789012.34567", 32)})
	castCase(t, dev, Dec(10, 3), TF32, []any{int64(1), int64(-33333)}, []string{parsed("0.001", 32), parsed("-33.333", 32)})
	castCase(t, dev, I64, TF64, []any{int64(1<<53 + 1), int64(math.MaxInt64), int64(-3)}, []string{parsed("9007199254740993", 64), parsed("9223372036854775807", 64), F(-3)})
	castCase(t, dev, I32, TF32, []any{int64(16777217)}, []string{parsed("16777217", 32)})
	castCase(t, dev, F64, TF32, []any{0.1, nil, math.Inf(-1)}, []string{F(float64(float32(0.1))), NullCell, F(math.Inf(-1))})
	castCase(t, dev, F32, TF64, []any{float64(float32(0.1))}, []string{F(float64(float32(0.1)))})
}

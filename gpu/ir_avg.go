package gpu

import (
	"math/big"
)

// The average of integers and decimals as DuckDB finalizes it
// (extension/core_functions/aggregate/algebraic/avg.cpp), so that an
// average is DuckDB's DOUBLE to the bit. DuckDB keeps the exact sum and
// the count, then divides:
//   - SMALLINT and TINYINT, and DECIMAL(p <= 4): in double,
//     double(sum) / (double(count) * 10^scale);
//   - INTEGER, BIGINT, HUGEINT and DECIMAL(p > 4): in long double, the
//     sum / (count * 10^scale) rounded to the long double's 64-bit
//     significand (x87 extended precision, DuckDB's builds for x86-64),
//     then that rounded to the double: two roundings, which dividing in
//     double (one rounding) gets wrong about once in two thousand.
const (
	// OpAvgDivide: Args = [sum, count, mode]: sum an integer or decimal
	// (of scale s, at most MaxAvgScale), count a non-null Int64 > 0, mode
	// an Int64 constant (AvgLongDouble or AvgDouble); the Float64 result is
	// AvgDivide's. Null when sum is null.
	OpAvgDivide Op = 240 + iota
)

// Modes of OpAvgDivide.
const (
	AvgLongDouble int64 = 0
	AvgDouble     int64 = 1
)

// MaxAvgScale is the largest decimal scale OpAvgDivide takes: 10^s is then
// exact in a double, as DuckDB's scale factor (a double) is.
const MaxAvgScale = 18

func init() { opNames[OpAvgDivide] = "avg_divide" }

// AvgDivide is OpAvgDivide's value: sum / (count * 10^scale) as DuckDB
// computes it in mode.
func AvgDivide(sum *big.Int, count int64, scale int32, mode int64) float64 {
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	if mode == AvgDouble {
		s, _ := new(big.Float).SetInt(sum).Float64()
		p, _ := new(big.Float).SetInt(pow).Float64()
		return s / (float64(count) * p)
	}
	// The divisor count * 10^scale and the sum as long doubles (rounded to
	// 64 bits), their quotient rounded to 64 bits, then to the double.
	div := new(big.Float).SetPrec(64).SetInt(new(big.Int).Mul(big.NewInt(count), pow))
	s := new(big.Float).SetPrec(64).SetInt(sum)
	q := new(big.Float).SetPrec(64).Quo(s, div)
	f, _ := q.Float64()
	return f
}

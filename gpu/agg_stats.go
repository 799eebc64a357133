package gpu

import (
	"math"
	"math/big"
)

// Statistical aggregates (functions_arithmetic.yaml's variance and std_dev).
// Numbered from 32 so that they never collide with ir.go's AggKind list.
const (
	// AggVarSamp is the sample variance of the non-null values of Arg (a
	// float column): sum((x - mean)^2) / (n - 1). Result Float64, null when
	// there are fewer than two values.
	AggVarSamp AggKind = 32 + iota
	// AggVarPop is the population variance, sum((x - mean)^2) / n. Result
	// Float64, null when there are no values.
	AggVarPop
	// AggStdDevSamp and AggStdDevPop are the square roots of AggVarSamp and
	// AggVarPop, with the same null rules.
	AggStdDevSamp
	AggStdDevPop
)

func init() {
	aggNames[AggVarSamp] = "var_samp"
	aggNames[AggVarPop] = "var_pop"
	aggNames[AggStdDevSamp] = "stddev_samp"
	aggNames[AggStdDevPop] = "stddev_pop"
}

// IsStatAgg reports whether k is one of the variance/standard-deviation
// aggregates, which a device computes numerically soundly (the squared
// deviations are summed around a running mean, never as sum(x^2) - n*mean^2).
func (k AggKind) IsStatAgg() bool {
	return k >= AggVarSamp && k <= AggStdDevPop
}

// StatMinCount is the number of non-null values a statistical aggregate
// needs to give a value: 2 for the sample statistics, 1 for the population
// ones.
func (k AggKind) StatMinCount() int64 {
	if k == AggVarSamp || k == AggStdDevSamp {
		return 2
	}
	return 1
}

// OpStatMoments is a variance or standard deviation from the exact moments
// of the values: Args = [count, s1, s2, kind], count a non-null Int64 (the
// non-null values), s1 their exact sum and s2 the exact sum of their
// squares (integers or decimals, s2 of twice s1's scale, at most
// MaxStatScale), kind an Int64 constant naming the statistic (AggVarSamp
// to AggStdDevPop). The Float64 result is StatFromMoments's; null when
// count is below kind.StatMinCount().
//
// A device whose aggregates cannot keep a running mean (the CUDA device:
// its partials combine in any order, by atomics) gets variances of
// integers and small decimals this way from the sums it already has: the
// only roundings are the last few float operations, where a sum of
// squares less n*mean^2 in doubles would cancel.
const OpStatMoments Op = 248

// MaxStatScale is the largest decimal scale OpStatMoments takes: 10^(2s)
// is then exact in a double.
const MaxStatScale = 11

func init() { opNames[OpStatMoments] = "stat_moments" }

// StatFromMoments is OpStatMoments's value for n > 0 values whose sum is s1
// and whose sum of squares is s2, both in units of 10^-scale (s2 of
// 10^-2scale). With q and r the quotient and remainder of s1 / n (toward
// zero), and a and b those of r^2 / n, the sum of squared deviations
// s2 - s1^2/n is exactly J - b/n, J = s2 - q^2*n - 2*q*r - a an integer
// no larger than s2 and 0 <= b < n: in doubles double(J) - double(b) /
// double(n), within an ulp or so (the same operations in this order on
// every device). Then / n (population) or / (n - 1) (sample), / 10^(2*scale),
// and the square root for the deviations.
func StatFromMoments(k AggKind, n int64, s1, s2 *big.Int, scale int32) float64 {
	bn := big.NewInt(n)
	q, r := new(big.Int).QuoRem(s1, bn, new(big.Int))
	a, b := new(big.Int).QuoRem(new(big.Int).Mul(r, r), bn, new(big.Int))
	j := new(big.Int).Sub(s2, new(big.Int).Mul(new(big.Int).Mul(q, q), bn))
	j.Sub(j, new(big.Int).Lsh(new(big.Int).Mul(q, r), 1))
	j.Sub(j, a)
	fj, _ := new(big.Float).SetInt(j).Float64()
	m2 := fj - float64(b.Int64())/float64(n)
	if m2 < 0 { // rounding can only lose what is exactly >= 0
		m2 = 0
	}
	div := float64(n)
	if k == AggVarSamp || k == AggStdDevSamp {
		div = float64(n - 1)
	}
	p, _ := new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(2*scale)), nil)).Float64()
	v := m2 / div / p
	if k == AggStdDevSamp || k == AggStdDevPop {
		v = math.Sqrt(v)
	}
	return v
}

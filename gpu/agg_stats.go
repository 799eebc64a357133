package gpu

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

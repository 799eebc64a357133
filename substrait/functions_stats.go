package substrait

// Statistical aggregates of functions_arithmetic.yaml.
const (
	// FnStdDev is std_dev([distribution,] x), the standard deviation of
	// the non-null values of an fp32/fp64 column.
	FnStdDev Func = "std_dev"
	// FnVariance is variance([distribution,] x).
	FnVariance Func = "variance"
)

func init() {
	catalogue["functions_arithmetic"] = append(catalogue["functions_arithmetic"], FnStdDev, FnVariance)
}

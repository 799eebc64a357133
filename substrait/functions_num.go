package substrait

// Functions of the numeric, comparison, boolean, rounding and logarithmic
// extensions (fn-numeric). Kept in their own file, registered from init,
// so that other catalogue additions merge without conflicts.
const (
	FnModulus            Func = "modulus"
	FnPower              Func = "power"
	FnSqrt               Func = "sqrt"
	FnExp                Func = "exp"
	FnSin                Func = "sin"
	FnCos                Func = "cos"
	FnTan                Func = "tan"
	FnAsin               Func = "asin"
	FnAcos               Func = "acos"
	FnAtan               Func = "atan"
	FnSinh               Func = "sinh"
	FnCosh               Func = "cosh"
	FnTanh               Func = "tanh"
	FnAsinh              Func = "asinh"
	FnAcosh              Func = "acosh"
	FnAtanh              Func = "atanh"
	FnAtan2              Func = "atan2"
	FnAbs                Func = "abs"
	FnFactorial          Func = "factorial"
	FnBitwiseNot         Func = "bitwise_not"
	FnBitwiseAnd         Func = "bitwise_and"
	FnBitwiseOr          Func = "bitwise_or"
	FnBitwiseXor         Func = "bitwise_xor"
	FnShiftLeft          Func = "shift_left"
	FnShiftRight         Func = "shift_right"
	FnShiftRightUnsigned Func = "shift_right_unsigned"
	FnLn                 Func = "ln"
	FnLog10              Func = "log10"
	FnLog2               Func = "log2"
	FnLogb               Func = "logb"
	FnCeil               Func = "ceil"
	FnFloor              Func = "floor"
	FnRound              Func = "round"
	FnIsNan              Func = "is_nan"
	FnIsFinite           Func = "is_finite"
	FnIsInfinite         Func = "is_infinite"
	FnIsTrue             Func = "is_true"
	FnIsFalse            Func = "is_false"
	FnIsNotTrue          Func = "is_not_true"
	FnIsNotFalse         Func = "is_not_false"
	FnCoalesce           Func = "coalesce"
	FnNullIf             Func = "nullif"
	FnGreatest           Func = "greatest"
	FnLeast              Func = "least"
	FnGreatestSkipNull   Func = "greatest_skip_null"
	FnLeastSkipNull      Func = "least_skip_null"
	FnIsDistinctFrom     Func = "is_distinct_from"
	FnXor                Func = "xor"
	FnAndNot             Func = "and_not"
	FnBoolAnd            Func = "bool_and"
	FnBoolOr             Func = "bool_or"
)

func init() {
	add := func(file string, fs ...Func) { catalogue[file] = append(catalogue[file], fs...) }
	add("functions_arithmetic", FnModulus, FnPower, FnSqrt, FnExp, FnSin, FnCos, FnTan, FnAsin, FnAcos,
		FnAtan, FnSinh, FnCosh, FnTanh, FnAsinh, FnAcosh, FnAtanh, FnAtan2, FnAbs, FnFactorial,
		FnBitwiseNot, FnBitwiseAnd, FnBitwiseOr, FnBitwiseXor, FnShiftLeft, FnShiftRight, FnShiftRightUnsigned)
	add("functions_arithmetic_decimal", FnModulus, FnPower, FnSqrt, FnAbs, FnFactorial,
		FnBitwiseAnd, FnBitwiseOr, FnBitwiseXor)
	add("functions_logarithmic", FnLn, FnLog10, FnLog2, FnLogb)
	add("functions_rounding", FnCeil, FnFloor, FnRound)
	add("functions_rounding_decimal", FnCeil, FnFloor, FnRound)
	add("functions_comparison", FnIsNan, FnIsFinite, FnIsInfinite, FnIsTrue, FnIsFalse, FnIsNotTrue,
		FnIsNotFalse, FnCoalesce, FnNullIf, FnIsDistinctFrom, FnGreatest, FnLeast, FnGreatestSkipNull, FnLeastSkipNull)
	add("functions_boolean", FnXor, FnAndNot, FnBoolAnd, FnBoolOr)
}

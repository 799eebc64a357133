package gpu

import "errors"

// Numeric operators of the Substrait arithmetic, rounding and logarithmic
// extensions (added by the fn-numeric work; numbered from 64 so that the
// string functions' operators, numbered from 128, never collide).
//
// Semantics, in addition to those in ir.go (null in, null out for all):
//   - Float functions (OpSqrt .. OpPow): the arguments and the result have
//     the Expr's float kind. Results are IEEE (NaN outside the domain, ±Inf
//     on overflow), computed in float64 and rounded once for Float32. The
//     translator turns a function's on_domain_error/on_log_zero option into
//     OpCheck (ERROR) or OpCase (NULL) around them.
//   - OpAbs: integers (ErrOverflow for the minimum value), decimals (same
//     scale as the result) and floats.
//   - OpMod and OpIntDiv: integers of one kind, truncated toward zero (C,
//     DuckDB); ErrDomain when the divisor is zero; OpIntDiv raises
//     ErrOverflow for MIN / -1.
//   - OpBitAnd/Or/Xor/Not: integers, or decimals of scale 0 taken as their
//     unscaled two's complement value; the result must fit its type
//     (ErrOverflow otherwise).
//   - OpShl, OpShr, OpShrU: Args[0] an integer, Args[1] any integer (the
//     shift count). OpShl shifts left dropping bits beyond the width of
//     Args[0]'s kind (two's complement wraparound, as Java and DuckDB do),
//     OpShr is the arithmetic (sign-filling) right shift, OpShrU the
//     logical one within that width. ErrDomain when the count is negative
//     or not below the width.
//   - OpIntPow: integer a^b exactly; ErrDomain when b < 0, ErrOverflow
//     when the result does not fit.
//   - OpFactorial: n! of an integer or scale-0 decimal n; ErrDomain when
//     n < 0, ErrOverflow when the result does not fit.
//   - OpSaturate and OpWrap: Args[0] an integer or scale-0 decimal; the
//     result, an integer kind, is the value clamped to its range
//     (SATURATE) or reduced modulo 2^bits into it (two's complement, the
//     SILENT option's wraparound).
//   - OpCheck: Args = [cond (Bool), val]; the result is val (same type)
//     and ErrDomain is raised on a row where cond is true.
//   - OpCeil, OpFloor: floats (same kind), or a decimal/integer argument
//     and a decimal/integer result of a scale at most the argument's: the
//     value rounded toward +Inf or -Inf at the result's scale.
//   - OpRound: Args = [x, digits (Int32)]: x rounded to `digits` decimal
//     places, ties away from zero; the result has x's kind (and scale for
//     decimals: the rounded value is kept at that scale). For exact types
//     ErrOverflow when the rounded value does not fit the result.
const (
	OpSqrt Op = 64 + iota
	OpExp
	OpLn
	OpLog10
	OpLog2
	OpSin
	OpCos
	OpTan
	OpAsin
	OpAcos
	OpAtan
	OpSinh
	OpCosh
	OpTanh
	OpAsinh
	OpAcosh
	OpAtanh
	OpAtan2 // atan2(y, x)
	OpPow   // float a^b
	OpAbs
	OpMod
	OpIntDiv
	OpBitAnd
	OpBitOr
	OpBitXor
	OpBitNot
	OpShl
	OpShr
	OpShrU
	OpIntPow
	OpFactorial
	OpSaturate
	OpWrap
	OpCheck
	OpCeil
	OpFloor
	OpRound
)

// ErrDomain: an argument is outside its function's domain (division by
// zero, the square root of a negative number with on_domain_error=ERROR,
// a negative factorial...). The query is wrong for its data; no device can
// run it.
var ErrDomain = errors.New("argument outside the function's domain")

func init() {
	for op, name := range map[Op]string{
		OpSqrt: "sqrt", OpExp: "exp", OpLn: "ln", OpLog10: "log10", OpLog2: "log2",
		OpSin: "sin", OpCos: "cos", OpTan: "tan", OpAsin: "asin", OpAcos: "acos", OpAtan: "atan",
		OpSinh: "sinh", OpCosh: "cosh", OpTanh: "tanh", OpAsinh: "asinh", OpAcosh: "acosh", OpAtanh: "atanh",
		OpAtan2: "atan2", OpPow: "pow", OpAbs: "abs", OpMod: "mod", OpIntDiv: "div",
		OpBitAnd: "bit_and", OpBitOr: "bit_or", OpBitXor: "bit_xor", OpBitNot: "bit_not",
		OpShl: "shl", OpShr: "shr", OpShrU: "shr_unsigned", OpIntPow: "int_pow", OpFactorial: "factorial",
		OpSaturate: "saturate", OpWrap: "wrap", OpCheck: "check", OpCeil: "ceil", OpFloor: "floor", OpRound: "round",
	} {
		opNames[op] = name
	}
}

// IsFloatFunc reports whether op is one of the float functions OpSqrt ..
// OpPow.
func (o Op) IsFloatFunc() bool { return o >= OpSqrt && o <= OpPow }

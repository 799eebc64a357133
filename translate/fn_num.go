package translate

import (
	"fmt"
	"math"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
)

// Numeric, comparison and boolean functions of the fn-numeric work. Most
// are compositions of existing IR operators (Case, comparisons, And/Or),
// which every device already runs; the rest use the operators of
// gpu/ir_num.go. Function options are read here, each function naming the
// values it honours; any other option or value is refused, never ignored.

// fnOpts are a call's options (first preference of each) and which of them
// the translation has honoured.
type fnOpts struct {
	fn   string
	vals map[string]string
	used map[string]bool
}

func optionsOf(f *expr.ScalarFunction) *fnOpts {
	o := &fnOpts{fn: f.Name(), vals: map[string]string{}, used: map[string]bool{}}
	for _, opt := range f.GetOptions() { // not ToProto: it panics on interval_compound arguments
		if p := opt.GetPreference(); len(p) > 0 {
			o.vals[opt.GetName()] = p[0]
		}
	}
	return o
}

// get returns the option's value (def when absent), refusing values not in
// allowed.
func (o *fnOpts) get(name, def string, allowed ...string) (string, error) {
	o.used[name] = true
	v, ok := o.vals[name]
	if !ok {
		return def, nil
	}
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", unsupported(fmt.Sprintf("function %s option %s=%s", o.fn, name, v))
}

// rest refuses the options no translation step looked at.
func (o *fnOpts) rest() error {
	for name, v := range o.vals {
		if !o.used[name] {
			return unsupported(fmt.Sprintf("function %s option %s=%s", o.fn, name, v))
		}
	}
	return nil
}

var floatFuncOps = map[substrait.Func]gpu.Op{
	substrait.FnSqrt: gpu.OpSqrt, substrait.FnExp: gpu.OpExp, substrait.FnLn: gpu.OpLn,
	substrait.FnLog10: gpu.OpLog10, substrait.FnLog2: gpu.OpLog2, substrait.FnSin: gpu.OpSin,
	substrait.FnCos: gpu.OpCos, substrait.FnTan: gpu.OpTan, substrait.FnAsin: gpu.OpAsin,
	substrait.FnAcos: gpu.OpAcos, substrait.FnAtan: gpu.OpAtan, substrait.FnSinh: gpu.OpSinh,
	substrait.FnCosh: gpu.OpCosh, substrait.FnTanh: gpu.OpTanh, substrait.FnAsinh: gpu.OpAsinh,
	substrait.FnAcosh: gpu.OpAcosh, substrait.FnAtanh: gpu.OpAtanh, substrait.FnAtan2: gpu.OpAtan2,
}

var bitOps = map[substrait.Func]gpu.Op{
	substrait.FnBitwiseAnd: gpu.OpBitAnd, substrait.FnBitwiseOr: gpu.OpBitOr, substrait.FnBitwiseXor: gpu.OpBitXor,
	substrait.FnShiftLeft: gpu.OpShl, substrait.FnShiftRight: gpu.OpShr, substrait.FnShiftRightUnsigned: gpu.OpShrU,
}

// numericScalar translates the functions of this file; ok is false for
// the others (and for add/subtract/multiply/negate/divide calls that the
// general path in expr.go runs: ERROR overflow, float division).
func (c exprConv) numericScalar(fn substrait.Func, f *expr.ScalarFunction) (g *gpu.Expr, ok bool, err error) {
	switch fn {
	case substrait.FnAdd, substrait.FnSubtract, substrait.FnMultiply, substrait.FnNegate, substrait.FnDivide:
		o := optionsOf(f)
		ov := o.vals["overflow"]
		out, err := gpuType(f.GetType())
		if err != nil {
			return nil, true, err
		}
		if (ov == "" || ov == "ERROR") && (fn != substrait.FnDivide || !isInt(out)) {
			return nil, false, nil
		}
		if !isInt(out) {
			return nil, false, nil // decimal/float overflow options: expr.go refuses them
		}
	case substrait.FnCoalesce:
		if stringLiteralArg(f) {
			// A string literal has no dictionary for a CASE to mix in: a
			// row-wise string function (fn_strrow.go) takes it.
			return nil, false, nil
		}
	default:
		if _, mine := numericFuncs[fn]; !mine {
			return nil, false, nil
		}
	}
	g, err = c.numeric(fn, f)
	return g, true, err
}

var numericFuncs = map[substrait.Func]bool{}

func init() {
	for _, fn := range []substrait.Func{substrait.FnModulus, substrait.FnPower, substrait.FnAbs, substrait.FnFactorial,
		substrait.FnBitwiseNot, substrait.FnLogb, substrait.FnCeil, substrait.FnFloor, substrait.FnRound,
		substrait.FnIsNan, substrait.FnIsFinite, substrait.FnIsInfinite, substrait.FnIsTrue, substrait.FnIsFalse,
		substrait.FnIsNotTrue, substrait.FnIsNotFalse, substrait.FnCoalesce, substrait.FnNullIf,
		substrait.FnIsDistinctFrom, substrait.FnIsNotDistinctFrom, substrait.FnXor, substrait.FnAndNot,
		substrait.FnGreatest, substrait.FnLeast, substrait.FnGreatestSkipNull, substrait.FnLeastSkipNull} {
		numericFuncs[fn] = true
	}
	for fn := range floatFuncOps {
		numericFuncs[fn] = true
	}
	for fn := range bitOps {
		numericFuncs[fn] = true
	}
}

func (c exprConv) numeric(fn substrait.Func, f *expr.ScalarFunction) (*gpu.Expr, error) {
	out, err := gpuType(f.GetType())
	if err != nil {
		return nil, err
	}
	args, err := c.args(f)
	if err != nil {
		return nil, err
	}
	o := optionsOf(f)
	g, err := c.numericCall(fn, o, out, args)
	if err != nil {
		return nil, err
	}
	if err := o.rest(); err != nil {
		return nil, err
	}
	return g, nil
}

func arityErr(fn substrait.Func, args []*gpu.Expr, n int) error {
	if len(args) != n {
		return fmt.Errorf("function %s: %d arguments, want %d", fn, len(args), n)
	}
	return nil
}

func boolType(nullable bool) gpu.Type { return gpu.Type{Kind: gpu.Bool, Nullable: nullable} }

func boolConst(v bool) *gpu.Expr {
	c := gpu.Value{}
	if v {
		c.I64 = 1
	}
	return gpu.Const(boolType(false), c)
}

func nullOf(t gpu.Type) *gpu.Expr { return gpu.Const(t.WithNullable(true), gpu.Value{Null: true}) }

func floatConst(k gpu.Kind, v float64) *gpu.Expr {
	return gpu.Const(gpu.Type{Kind: k}, gpu.Value{F64: v})
}

func intConst(t gpu.Type, v int64) *gpu.Expr {
	return gpu.Const(t.WithNullable(false), gpu.Value{I64: v})
}

// nullWhen is val, or null where cond holds.
func nullWhen(cond, val *gpu.Expr) *gpu.Expr {
	t := val.Type.WithNullable(true)
	return gpu.Call(gpu.OpCase, t, cond, nullOf(t), val)
}

// guard applies an error option: ERROR raises ErrDomain where bad holds,
// NULL (and the logarithms' NONE) gives null there, and the IEEE choices
// keep the float operator's own result.
func guard(val, bad *gpu.Expr, mode string) *gpu.Expr {
	switch mode {
	case "ERROR":
		return gpu.Call(gpu.OpCheck, val.Type, bad, val)
	case "NULL", "NONE":
		return nullWhen(bad, val)
	}
	return val
}

func cmpConst(op gpu.Op, x *gpu.Expr, v float64) (*gpu.Expr, error) {
	return compare(op, boolType(x.Type.Nullable), x, floatConst(x.Type.Kind, v))
}

func toKind(x *gpu.Expr, t gpu.Type) (*gpu.Expr, error) {
	return cast(x, t.WithNullable(x.Type.Nullable))
}

// nullableIf is t, nullable when the plan declares it so or an argument is.
func nullableIf(t gpu.Type, args ...*gpu.Expr) gpu.Type {
	return t.WithNullable(t.Nullable || anyNullable(args))
}

func anyNullable(args []*gpu.Expr) bool {
	for _, a := range args {
		if a.Type.Nullable {
			return true
		}
	}
	return false
}

func (c exprConv) numericCall(fn substrait.Func, o *fnOpts, out gpu.Type, args []*gpu.Expr) (*gpu.Expr, error) {
	if op, ok := floatFuncOps[fn]; ok || fn == substrait.FnLogb || (fn == substrait.FnPower && out.Kind.IsFloat()) {
		return floatFunc(fn, op, o, out, args)
	}
	switch fn {
	case substrait.FnAdd, substrait.FnSubtract, substrait.FnMultiply, substrait.FnNegate, substrait.FnDivide:
		return overflowArith(fn, o, out, args)
	case substrait.FnAbs:
		if err := arityErr(fn, args, 1); err != nil {
			return nil, err
		}
		x, err := toKind(args[0], out)
		if err != nil {
			return nil, err
		}
		ov, err := o.get("overflow", "ERROR", "ERROR", "SATURATE", "SILENT")
		if err != nil {
			return nil, err
		}
		if ov != "ERROR" && isInt(out) {
			return widened(gpu.OpAbs, ov, out, []*gpu.Expr{x})
		}
		if ov != "ERROR" && !out.Kind.IsFloat() {
			return nil, unsupported(fmt.Sprintf("abs option overflow=%s on %s", ov, out))
		}
		return gpu.Call(gpu.OpAbs, nullableIf(out, x), x), nil
	case substrait.FnPower:
		if err := arityErr(fn, args, 2); err != nil {
			return nil, err
		}
		if _, err := o.get("overflow", "ERROR", "ERROR"); err != nil {
			return nil, err
		}
		if !isInt(out) {
			return nil, unsupported(fmt.Sprintf("power giving %s", out))
		}
		x, err := toKind(args[0], out)
		if err != nil {
			return nil, err
		}
		return gpu.Call(gpu.OpIntPow, nullableIf(out, args...), x, args[1]), nil
	case substrait.FnModulus:
		return modulus(o, out, args)
	case substrait.FnFactorial:
		if err := arityErr(fn, args, 1); err != nil {
			return nil, err
		}
		if _, err := o.get("overflow", "ERROR", "ERROR"); err != nil {
			return nil, err
		}
		return gpu.Call(gpu.OpFactorial, nullableIf(out, args[0]), args[0]), nil
	case substrait.FnBitwiseNot:
		if err := arityErr(fn, args, 1); err != nil {
			return nil, err
		}
		x, err := toKind(args[0], out)
		if err != nil {
			return nil, err
		}
		return gpu.Call(gpu.OpBitNot, nullableIf(out, x), x), nil
	case substrait.FnBitwiseAnd, substrait.FnBitwiseOr, substrait.FnBitwiseXor:
		if err := arityErr(fn, args, 2); err != nil {
			return nil, err
		}
		a, b := args[0], args[1]
		if isInt(out) {
			var err error
			if a, err = toKind(a, out); err != nil {
				return nil, err
			}
			if b, err = toKind(b, out); err != nil {
				return nil, err
			}
		}
		return gpu.Call(bitOps[fn], nullableIf(out, args...), a, b), nil
	case substrait.FnShiftLeft, substrait.FnShiftRight, substrait.FnShiftRightUnsigned:
		if err := arityErr(fn, args, 2); err != nil {
			return nil, err
		}
		x, err := toKind(args[0], out)
		if err != nil {
			return nil, err
		}
		return gpu.Call(bitOps[fn], nullableIf(out, args...), x, args[1]), nil
	case substrait.FnCeil, substrait.FnFloor:
		if err := arityErr(fn, args, 1); err != nil {
			return nil, err
		}
		op := gpu.OpCeil
		if fn == substrait.FnFloor {
			op = gpu.OpFloor
		}
		x := args[0]
		if out.Kind.IsFloat() {
			var err error
			if x, err = toKind(x, out); err != nil {
				return nil, err
			}
		}
		return gpu.Call(op, nullableIf(out, x), x), nil
	case substrait.FnRound:
		return round(o, out, args)
	case substrait.FnIsNan, substrait.FnIsFinite, substrait.FnIsInfinite:
		return floatClass(fn, out, args)
	case substrait.FnIsTrue, substrait.FnIsFalse, substrait.FnIsNotTrue, substrait.FnIsNotFalse:
		if err := arityErr(fn, args, 1); err != nil {
			return nil, err
		}
		x := args[0]
		if x.Type.Kind != gpu.Bool {
			return nil, fmt.Errorf("function %s of %s: a boolean argument is needed", fn, x.Type)
		}
		// Case picks a branch only on a true (non-null) condition, so a
		// null argument takes the else branch: never null.
		if fn == substrait.FnIsFalse || fn == substrait.FnIsNotFalse {
			x = gpu.Call(gpu.OpNot, x.Type, x)
		}
		hit := fn == substrait.FnIsTrue || fn == substrait.FnIsFalse
		return gpu.Call(gpu.OpCase, boolType(false), x, boolConst(hit), boolConst(!hit)), nil
	case substrait.FnCoalesce:
		if len(args) == 0 {
			return nil, fmt.Errorf("function coalesce without arguments")
		}
		var parts []*gpu.Expr
		for i, a := range args {
			v, err := caseBranch(a, out.WithNullable(a.Type.Nullable))
			if err != nil {
				return nil, err
			}
			if i == len(args)-1 {
				parts = append(parts, v)
				break
			}
			parts = append(parts, gpu.Call(gpu.OpIsNotNull, boolType(false), a), v)
		}
		if len(parts) == 1 {
			return parts[0], nil
		}
		t := out
		t.Nullable = out.Nullable || parts[len(parts)-1].Type.Nullable
		for i := 1; i < len(parts); i += 2 {
			parts[i] = retype(parts[i], t)
		}
		parts[len(parts)-1] = retype(parts[len(parts)-1], t)
		return gpu.Call(gpu.OpCase, t, parts...), nil
	case substrait.FnGreatest, substrait.FnLeast, substrait.FnGreatestSkipNull, substrait.FnLeastSkipNull:
		return extreme(fn, out, args)
	case substrait.FnNullIf:
		if err := arityErr(fn, args, 2); err != nil {
			return nil, err
		}
		eq, err := compare(gpu.OpEq, boolType(true), args[0], args[1])
		if err != nil {
			return nil, err
		}
		v, err := cast(args[0], out)
		if err != nil {
			return nil, err
		}
		return nullWhen(eq, v), nil
	case substrait.FnIsDistinctFrom, substrait.FnIsNotDistinctFrom:
		if err := arityErr(fn, args, 2); err != nil {
			return nil, err
		}
		eq, err := compare(gpu.OpEq, boolType(true), args[0], args[1])
		if err != nil {
			return nil, err
		}
		// a null: same when b is null too; b null: different; else a = b.
		na := gpu.Call(gpu.OpIsNull, boolType(false), args[0])
		nb := gpu.Call(gpu.OpIsNull, boolType(false), args[1])
		same := gpu.Call(gpu.OpCase, boolType(false), na, nb, nb, boolConst(false), eq)
		if fn == substrait.FnIsDistinctFrom {
			return gpu.Call(gpu.OpNot, boolType(false), same), nil
		}
		return same, nil
	case substrait.FnXor:
		if err := arityErr(fn, args, 2); err != nil {
			return nil, err
		}
		return compare(gpu.OpNe, out, args[0], args[1])
	case substrait.FnAndNot:
		if err := arityErr(fn, args, 2); err != nil {
			return nil, err
		}
		return gpu.Call(gpu.OpAnd, out, args[0], gpu.Call(gpu.OpNot, args[1].Type, args[1])), nil
	}
	return nil, unsupported(fmt.Sprintf("function %s", fn))
}

// retype gives a Case branch the Case's nullability (same representation).
func retype(e *gpu.Expr, t gpu.Type) *gpu.Expr {
	if e.Type == t {
		return e
	}
	c := *e
	c.Type = t
	return &c
}

// floatFunc: the float functions, their arguments converted to the
// result's float kind, with the domain options applied.
func floatFunc(fn substrait.Func, op gpu.Op, o *fnOpts, out gpu.Type, args []*gpu.Expr) (*gpu.Expr, error) {
	if !out.Kind.IsFloat() {
		return nil, unsupported(fmt.Sprintf("%s giving %s", fn, out))
	}
	if _, err := o.get("rounding", "TIE_TO_EVEN", "TIE_TO_EVEN"); err != nil {
		return nil, err // IEEE rounds to nearest, ties to even
	}
	want := 1
	if fn == substrait.FnAtan2 || fn == substrait.FnLogb || fn == substrait.FnPower {
		want = 2
	}
	if err := arityErr(fn, args, want); err != nil {
		return nil, err
	}
	xs := make([]*gpu.Expr, len(args))
	for i, a := range args {
		var err error
		if xs[i], err = toKind(a, gpu.Type{Kind: out.Kind}); err != nil {
			return nil, err
		}
	}
	t := nullableIf(out, xs...)
	x := xs[0]
	var val, domain, zero *gpu.Expr
	var err error
	or := func(a, b *gpu.Expr, e error) (*gpu.Expr, error) {
		if e != nil {
			return nil, e
		}
		return gpu.Call(gpu.OpOr, boolType(a.Type.Nullable || b.Type.Nullable), a, b), nil
	}
	switch fn {
	case substrait.FnLogb:
		// logb(x, base) = ln(x) / ln(base), as the YAML defines it.
		lx := gpu.Call(gpu.OpLn, t, x)
		lb := gpu.Call(gpu.OpLn, t, xs[1])
		val = gpu.Call(gpu.OpDiv, t, lx, lb)
		// Both logarithms count: a negative x or base is a domain error,
		// a zero x or base a log of zero.
		lo, e1 := cmpConst(gpu.OpLt, x, 0)
		lb, e2 := cmpConst(gpu.OpLt, xs[1], 0)
		if e1 != nil {
			return nil, e1
		}
		if domain, err = or(lo, lb, e2); err != nil {
			return nil, err
		}
		zx, e1 := cmpConst(gpu.OpEq, x, 0)
		zb, e2 := cmpConst(gpu.OpEq, xs[1], 0)
		if e1 != nil {
			return nil, e1
		}
		if zero, err = or(zx, zb, e2); err != nil {
			return nil, err
		}
	case substrait.FnPower:
		val = gpu.Call(gpu.OpPow, t, x, xs[1])
		// A complex result: a negative base with a non-integer exponent.
		neg, e1 := cmpConst(gpu.OpLt, x, 0)
		if e1 != nil {
			return nil, e1
		}
		frac, e2 := compare(gpu.OpNe, boolType(true), xs[1], gpu.Call(gpu.OpFloor, xs[1].Type, xs[1]))
		if e2 != nil {
			return nil, e2
		}
		bad := gpu.Call(gpu.OpAnd, boolType(true), neg, frac)
		mode, err := o.get("complex_number_result", "NAN", "NAN", "ERROR")
		if err != nil {
			return nil, err
		}
		if _, err := o.get("overflow", "ERROR", "ERROR"); err != nil {
			return nil, err // float power overflows to ±Inf
		}
		return guard(val, bad, mode), nil
	default:
		val = gpu.Call(op, t, xs...)
		switch fn {
		case substrait.FnSqrt:
			domain, err = cmpConst(gpu.OpLt, x, 0)
		case substrait.FnLn, substrait.FnLog10, substrait.FnLog2:
			if domain, err = cmpConst(gpu.OpLt, x, 0); err == nil {
				zero, err = cmpConst(gpu.OpEq, x, 0)
			}
		case substrait.FnAsin, substrait.FnAcos, substrait.FnAtanh:
			lo, e1 := cmpConst(gpu.OpLt, x, -1)
			if e1 != nil {
				return nil, e1
			}
			hi, e2 := cmpConst(gpu.OpGt, x, 1)
			domain, err = or(lo, hi, e2)
		case substrait.FnAcosh:
			domain, err = cmpConst(gpu.OpLt, x, 1)
		}
		if err != nil {
			return nil, err
		}
	}
	if zero != nil {
		mode, err := o.get("on_log_zero", "MINUS_INFINITY", "MINUS_INFINITY", "NAN", "ERROR")
		if err != nil {
			return nil, err
		}
		if mode == "NAN" {
			val = gpu.Call(gpu.OpCase, t, zero, floatConst(t.Kind, math.NaN()), val)
		} else {
			val = guard(val, zero, mode)
		}
	}
	// Without a domain, the option can never apply: any value is honoured.
	def := "NAN"
	if fn == substrait.FnSqrt && isDecimal(args[0].Type) {
		def = "ERROR" // functions_arithmetic_decimal: "sqrt of negative values will raise an error"
	}
	mode, err := o.get("on_domain_error", def, "NAN", "NULL", "ERROR", "NONE")
	if err != nil {
		return nil, err
	}
	if domain != nil {
		val = guard(val, domain, mode)
	}
	return val, nil
}

// overflowArith: integer add/subtract/multiply/negate with the SATURATE or
// SILENT overflow options, and integer division.
func overflowArith(fn substrait.Func, o *fnOpts, out gpu.Type, args []*gpu.Expr) (*gpu.Expr, error) {
	ov, err := o.get("overflow", "ERROR", "ERROR", "SATURATE", "SILENT")
	if err != nil {
		return nil, err
	}
	ops := map[substrait.Func]gpu.Op{substrait.FnAdd: gpu.OpAdd, substrait.FnSubtract: gpu.OpSub,
		substrait.FnMultiply: gpu.OpMul, substrait.FnNegate: gpu.OpNeg}
	if fn != substrait.FnDivide {
		if _, err := o.get("rounding", "TIE_TO_EVEN", "TIE_TO_EVEN", "TIE_AWAY_FROM_ZERO"); err != nil {
			return nil, err // integers are exact: no rounding happens
		}
		return widened(ops[fn], ov, out, args)
	}
	if err := arityErr(fn, args, 2); err != nil {
		return nil, err
	}
	zmode, err := o.get("on_division_by_zero", "ERROR", "ERROR", "NULL")
	if err != nil {
		return nil, err
	}
	// Integer division has no other domain error than a zero divisor.
	if _, err := o.get("on_domain_error", "ERROR", "ERROR", "NULL"); err != nil {
		return nil, err
	}
	// OpIntDiv truncates toward zero (C, DuckDB's //).
	if _, err := o.get("division_type", "TRUNCATE", "TRUNCATE"); err != nil {
		return nil, err
	}
	t := out
	if ov != "ERROR" {
		if out.Kind == gpu.Int64 {
			return nil, unsupported(fmt.Sprintf("divide option overflow=%s on i64", ov))
		}
		t = gpu.Type{Kind: gpu.Int64} // MIN/-1 of a narrower kind fits
	}
	a, err := toKind(args[0], t)
	if err != nil {
		return nil, err
	}
	b, err := toKind(args[1], t)
	if err != nil {
		return nil, err
	}
	q := gpu.Call(gpu.OpIntDiv, t.WithNullable(anyNullable(args)), a, b)
	if zmode == "NULL" {
		z, err := compare(gpu.OpEq, boolType(b.Type.Nullable), b, intConst(b.Type, 0))
		if err != nil {
			return nil, err
		}
		// The division itself must not see the zero: Case evaluates a
		// branch only on the rows that take it.
		q = nullWhen(z, q)
	}
	if ov == "ERROR" {
		return q, nil
	}
	return clampOrWrap(ov, out, q), nil
}

// widened computes an integer operation exactly in 128 bits (decimal(38,0),
// wide enough for any product of two 64-bit values) and saturates or wraps
// it into the result type.
func widened(op gpu.Op, ov string, out gpu.Type, args []*gpu.Expr) (*gpu.Expr, error) {
	wide := decimalType(38, 0, false)
	xs := make([]*gpu.Expr, len(args))
	for i, a := range args {
		if !isInt(a.Type) {
			return nil, unsupported(fmt.Sprintf("%s option overflow=%s on %s", op, ov, a.Type))
		}
		var err error
		if xs[i], err = toKind(a, wide); err != nil {
			return nil, err
		}
	}
	if ov == "ERROR" {
		return nil, fmt.Errorf("widened %s without an overflow option", op)
	}
	v := gpu.Call(op, wide.WithNullable(anyNullable(xs)), xs...)
	return clampOrWrap(ov, out, v), nil
}

func clampOrWrap(ov string, out gpu.Type, v *gpu.Expr) *gpu.Expr {
	op := gpu.OpSaturate
	if ov == "SILENT" {
		// SILENT leaves the result undefined; two's complement wraparound
		// is what the integer hardware gives.
		op = gpu.OpWrap
	}
	return gpu.Call(op, nullableIf(out, v), v)
}

// modulus: the truncated remainder, or the floored one (the remainder
// takes the divisor's sign) with division_type=FLOOR.
func modulus(o *fnOpts, out gpu.Type, args []*gpu.Expr) (*gpu.Expr, error) {
	if err := arityErr(substrait.FnModulus, args, 2); err != nil {
		return nil, err
	}
	if !isInt(out) {
		return nil, unsupported(fmt.Sprintf("modulus giving %s", out))
	}
	if _, err := o.get("overflow", "ERROR", "ERROR", "SATURATE", "SILENT"); err != nil {
		return nil, err // a remainder always fits: no overflow to handle
	}
	div, err := o.get("division_type", "TRUNCATE", "TRUNCATE", "FLOOR")
	if err != nil {
		return nil, err
	}
	dz, err := o.get("on_division_by_zero", "", "ERROR", "NULL")
	if err != nil {
		return nil, err
	}
	dm, err := o.get("on_domain_error", "ERROR", "ERROR", "NULL")
	if err != nil {
		return nil, err
	}
	if dz == "" {
		dz = dm // the test cases treat a zero divisor as a domain error
	} else if dz != dm && o.vals["on_domain_error"] != "" {
		return nil, unsupported("modulus with different on_division_by_zero and on_domain_error")
	}
	a, err := toKind(args[0], out)
	if err != nil {
		return nil, err
	}
	b, err := toKind(args[1], out)
	if err != nil {
		return nil, err
	}
	t := nullableIf(out, args...)
	m := gpu.Call(gpu.OpMod, t, a, b)
	if div == "FLOOR" {
		// A non-zero remainder whose sign differs from the divisor's moves
		// by one divisor (m and b have opposite signs: no overflow).
		mNeg, err := compare(gpu.OpLt, boolType(t.Nullable), m, intConst(out, 0))
		if err != nil {
			return nil, err
		}
		mNz, err := compare(gpu.OpNe, boolType(t.Nullable), m, intConst(out, 0))
		if err != nil {
			return nil, err
		}
		bNeg, err := compare(gpu.OpLt, boolType(b.Type.Nullable), b, intConst(out, 0))
		if err != nil {
			return nil, err
		}
		signs, err := compare(gpu.OpNe, boolType(true), mNeg, bNeg)
		if err != nil {
			return nil, err
		}
		fix := gpu.Call(gpu.OpAnd, boolType(true), mNz, signs)
		m = gpu.Call(gpu.OpCase, t, fix, gpu.Call(gpu.OpAdd, t, m, b), m)
	}
	if dz == "NULL" {
		z, err := compare(gpu.OpEq, boolType(b.Type.Nullable), b, intConst(out, 0))
		if err != nil {
			return nil, err
		}
		m = nullWhen(z, m)
	}
	return m, nil
}

// round(x, digits): ties away from zero; the result keeps x's type (and
// a decimal's scale).
func round(o *fnOpts, out gpu.Type, args []*gpu.Expr) (*gpu.Expr, error) {
	if err := arityErr(substrait.FnRound, args, 2); err != nil {
		return nil, err
	}
	if _, err := o.get("rounding", "TIE_AWAY_FROM_ZERO", "TIE_AWAY_FROM_ZERO"); err != nil {
		return nil, err
	}
	d := args[1]
	if !isInt(d.Type) {
		return nil, fmt.Errorf("round: digits of type %s, want an integer", d.Type)
	}
	d, err := toKind(d, gpu.Type{Kind: gpu.Int32})
	if err != nil {
		return nil, err
	}
	if isDecimal(out) && out.Scale != scaleOf(args[0].Type) {
		return nil, unsupported(fmt.Sprintf("round of %s giving %s (scale change)", args[0].Type, out))
	}
	x, err := toKind(args[0], out)
	if err != nil {
		return nil, err
	}
	return gpu.Call(gpu.OpRound, nullableIf(out, x, d), x, d), nil
}

func scaleOf(t gpu.Type) int32 {
	if isDecimal(t) {
		return t.Scale
	}
	return 0
}

// floatClass: is_nan, is_finite, is_infinite as comparisons in SQL float
// order, where NaN is above every number (+Inf included).
func floatClass(fn substrait.Func, out gpu.Type, args []*gpu.Expr) (*gpu.Expr, error) {
	if err := arityErr(fn, args, 1); err != nil {
		return nil, err
	}
	x := args[0]
	if !x.Type.Kind.IsFloat() {
		return nil, unsupported(fmt.Sprintf("%s of %s", fn, x.Type))
	}
	bt := boolType(x.Type.Nullable)
	inf := math.Inf(1)
	switch fn {
	case substrait.FnIsNan:
		return cmpConst(gpu.OpGt, x, inf)
	case substrait.FnIsInfinite:
		p, err := cmpConst(gpu.OpEq, x, inf)
		if err != nil {
			return nil, err
		}
		n, err := cmpConst(gpu.OpEq, x, -inf)
		if err != nil {
			return nil, err
		}
		return gpu.Call(gpu.OpOr, bt, p, n), nil
	}
	lo, err := cmpConst(gpu.OpGt, x, -inf)
	if err != nil {
		return nil, err
	}
	hi, err := cmpConst(gpu.OpLt, x, inf)
	if err != nil {
		return nil, err
	}
	return gpu.Call(gpu.OpAnd, bt, lo, hi), nil
}

// stringLiteralArg reports whether a value argument of f is a string
// literal.
func stringLiteralArg(f *expr.ScalarFunction) bool {
	for i := 0; i < f.NArgs(); i++ {
		if a, err := valueArg(f, i); err == nil {
			if _, _, lit := stringLiteral(a); lit {
				return true
			}
		}
	}
	return false
}

// maxExtremeArgs bounds greatest and least: each further argument repeats
// the running pick in the CASE that compares it (three times), so the
// expression grows as 3^n.
const maxExtremeArgs = 4

// extreme is greatest or least (Substrait's functions_comparison) of
// numbers or dates: a CASE per further argument keeping the larger (the
// smaller) in SQL's order, NaN above every number as DuckDB's. The
// _skip_null forms (DuckDB's greatest and least) pass over nulls, null
// only when every argument is; the plain forms are null when any is.
// Strings are refused (their dictionaries' codes are not in order).
func extreme(fn substrait.Func, out gpu.Type, args []*gpu.Expr) (*gpu.Expr, error) {
	if len(args) == 0 || len(args) > maxExtremeArgs {
		return nil, unsupported(fmt.Sprintf("%s of %d arguments (1 to %d)", fn, len(args), maxExtremeArgs))
	}
	if !(isInt(out) || out.Kind.IsFloat() || out.Kind == gpu.Decimal64 || out.Kind == gpu.Decimal128 || out.Kind == gpu.Date32) {
		return nil, unsupported(fmt.Sprintf("%s of %s", fn, out))
	}
	op := gpu.OpGt
	if fn == substrait.FnLeast || fn == substrait.FnLeastSkipNull {
		op = gpu.OpLt
	}
	skipNull := fn == substrait.FnGreatestSkipNull || fn == substrait.FnLeastSkipNull
	vals := make([]*gpu.Expr, len(args))
	for i, a := range args {
		v, err := caseBranch(a, out.WithNullable(a.Type.Nullable))
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	acc := vals[0]
	for _, b := range vals[1:] {
		t := out.WithNullable(acc.Type.Nullable || b.Type.Nullable)
		better, err := compare(op, boolType(true), b, acc)
		if err != nil {
			return nil, err
		}
		x, y := retype(acc, t), retype(b, t)
		if !skipNull {
			// A null on either side makes better null: the CASE keeps acc,
			// which is then nulled where either is null.
			pick := gpu.Call(gpu.OpCase, t, better, y, x)
			either := gpu.Call(gpu.OpOr, boolType(false), gpu.Call(gpu.OpIsNull, boolType(false), acc), gpu.Call(gpu.OpIsNull, boolType(false), b))
			acc = nullWhen(either, pick)
			continue
		}
		acc = gpu.Call(gpu.OpCase, t,
			gpu.Call(gpu.OpIsNull, boolType(false), acc), y,
			gpu.Call(gpu.OpIsNull, boolType(false), b), x,
			better, y,
			x)
	}
	return acc, nil
}

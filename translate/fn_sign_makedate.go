package translate

import (
	"fmt"

	"github.com/substrait-io/substrait-go/v8/expr"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/substrait"
)

// Functions of the producer corpus's DuckDB functions (substrait/functions_rigel.go):
//   - sign: the standard sign of an integer (-1, 0 or 1 of its type) and
//     rigel's sign of a float (TINYINT; 0 for 0, -0.0 and NaN), both built
//     from comparisons and a Case, which every device runs;
//   - rigel's make_date (gpu.OpMakeDate).
// The standard sign of a float is refused: its NaN result is unspecified.

// corpusScalar converts the functions above; ok is false for the others.
func (c exprConv) corpusScalar(fn substrait.Func, f *expr.ScalarFunction) (g *gpu.Expr, ok bool, err error) {
	rigel := f.ID().URN == substrait.RigelURN
	switch {
	case fn == substrait.FnSign:
		g, err := c.sign(f, rigel)
		return g, true, err
	case fn == substrait.FnMakeDate && rigel:
		g, err := c.makeDate(f)
		return g, true, err
	}
	return nil, false, nil
}

// sign is Case(x IS NULL -> NULL, x < 0 -> -1, positive -> 1, else 0).
// For floats "positive" is -x < 0: true for +infinity and positive
// numbers, false for NaN, which the devices order above every number (so
// x > 0 would hold for it) and whose negation is NaN again.
func (c exprConv) sign(f *expr.ScalarFunction, rigel bool) (*gpu.Expr, error) {
	if f.NArgs() != 1 {
		return nil, fmt.Errorf("function sign: %d arguments, want 1", f.NArgs())
	}
	if err := checkOptions(f); err != nil {
		return nil, err
	}
	a, err := valueArg(f, 0)
	if err != nil {
		return nil, err
	}
	x, err := c.convert(a)
	if err != nil {
		return nil, err
	}
	out, err := gpuType(f.GetType())
	if err != nil {
		return nil, err
	}
	float := x.Type.Kind.IsFloat()
	switch {
	case rigel && (!float || out.Kind != gpu.Int8):
		return nil, fmt.Errorf("function sign of rigel's extension: %s giving %s, want a float giving int8", x.Type, out)
	case !rigel && float:
		return nil, unsupported("standard sign of a float (its result for NaN is unspecified; DuckDB's sign is rigel's extension's)")
	case !rigel && (!isInt(x.Type) || out.Kind != x.Type.Kind):
		return nil, unsupported(fmt.Sprintf("sign of %s giving %s", x.Type, out))
	}
	out = out.WithNullable(out.Nullable || x.Type.Nullable)
	cond := gpu.Type{Kind: gpu.Bool, Nullable: x.Type.Nullable}
	zero := gpu.Const(gpu.Type{Kind: x.Type.Kind}, gpu.Value{})
	val := func(v int64) *gpu.Expr { return gpu.Const(out.WithNullable(false), gpu.Value{I64: v}) }
	neg, err := compare(gpu.OpLt, cond, x, zero)
	if err != nil {
		return nil, err
	}
	var pos *gpu.Expr
	if float {
		pos, err = compare(gpu.OpLt, cond, gpu.Call(gpu.OpNeg, x.Type, x), zero)
	} else {
		pos, err = compare(gpu.OpGt, cond, x, zero)
	}
	if err != nil {
		return nil, err
	}
	var args []*gpu.Expr
	if x.Type.Nullable {
		args = append(args, gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, x), gpu.Const(out.WithNullable(true), gpu.Value{Null: true}))
	}
	args = append(args, neg, val(-1), pos, val(1), val(0))
	return gpu.Call(gpu.OpCase, out, args...), nil
}

// makeDate is rigel's make_date(i64, i64, i64) -> date.
func (c exprConv) makeDate(f *expr.ScalarFunction) (*gpu.Expr, error) {
	if f.NArgs() != 3 {
		return nil, fmt.Errorf("function make_date: %d arguments, want 3", f.NArgs())
	}
	if err := checkOptions(f); err != nil {
		return nil, err
	}
	args, err := c.args(f)
	if err != nil {
		return nil, err
	}
	nullable := false
	for i, a := range args {
		if a.Type.Kind != gpu.Int64 {
			return nil, fmt.Errorf("function make_date: argument %d is %s, want int64", i, a.Type)
		}
		nullable = nullable || a.Type.Nullable
	}
	out, err := gpuType(f.GetType())
	if err != nil {
		return nil, err
	}
	if out.Kind != gpu.Date32 {
		return nil, fmt.Errorf("function make_date giving %s, want a date", out)
	}
	return gpu.Call(gpu.OpMakeDate, out.WithNullable(out.Nullable || nullable), args...), nil
}

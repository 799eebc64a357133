package translate

import (
	"fmt"

	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/substrait"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// String expressions. The IR has no string values: a string column is a
// Dict (codes into a dictionary known only at run time), so a string
// literal cannot become a constant. Instead each string operation with
// constant parameters becomes one OpStrPred/OpStrMap node carrying a
// gpu.StrFunc, which the device evaluates per dictionary entry. Literals are
// therefore read straight from the Substrait arguments, before they would
// be converted (and refused) as values.

// stringLiteral reads a string literal: its value, or null.
func stringLiteral(e expr.Expression) (s string, null, ok bool) {
	l, isLit := e.(expr.Literal)
	if !isLit {
		return "", false, false
	}
	switch x := literalProto(l).LiteralType.(type) {
	case *proto.Expression_Literal_String_:
		return x.String_, false, true
	case *proto.Expression_Literal_VarChar_:
		return x.VarChar.GetValue(), false, true
	case *proto.Expression_Literal_FixedChar:
		return x.FixedChar, false, true
	case *proto.Expression_Literal_Null:
		t, err := gpuType(l.GetType())
		return "", true, err == nil && t.Kind == gpu.Dict
	}
	return "", false, false
}

// valueArg returns argument i of f as a value expression.
func valueArg(f *expr.ScalarFunction, i int) (expr.Expression, error) {
	if i >= f.NArgs() {
		return nil, fmt.Errorf("function %s: %d arguments, want more than %d", f.Name(), f.NArgs(), i)
	}
	a, ok := f.Arg(i).(expr.Expression)
	if !ok {
		return nil, unsupported(fmt.Sprintf("function %s: non-value argument %d", f.Name(), i))
	}
	return a, nil
}

// dictArg converts a value that must be a string (Dict).
func (c exprConv) dictArg(e expr.Expression, what string) (*gpu.Expr, error) {
	g, err := c.convert(e)
	if err != nil {
		return nil, err
	}
	if g.Type.Kind != gpu.Dict {
		return nil, fmt.Errorf("%s: argument is %s, not a string", what, g.Type)
	}
	return g, nil
}

// nullBool is a null of type bool.
func nullBool() *gpu.Expr {
	return gpu.Const(gpu.Type{Kind: gpu.Bool, Nullable: true}, gpu.Value{Null: true})
}

// strPred builds predicate f over string x.
func strPred(f *gpu.StrFunc, x *gpu.Expr, nullable bool) *gpu.Expr {
	return gpu.StrCall(f, gpu.Type{Kind: gpu.Bool, Nullable: nullable || x.Type.Nullable}, x)
}

var flipped = map[gpu.Op]gpu.Op{gpu.OpEq: gpu.OpEq, gpu.OpNe: gpu.OpNe, gpu.OpLt: gpu.OpGt, gpu.OpLe: gpu.OpGe, gpu.OpGt: gpu.OpLt, gpu.OpGe: gpu.OpLe}

// stringCompare handles a comparison with a string literal on either side;
// ok is false when neither argument is one.
func (c exprConv) stringCompare(op gpu.Op, f *expr.ScalarFunction, out gpu.Type) (g *gpu.Expr, ok bool, err error) {
	if f.NArgs() != 2 {
		return nil, false, nil
	}
	a, err := valueArg(f, 0)
	if err != nil {
		return nil, true, err
	}
	b, err := valueArg(f, 1)
	if err != nil {
		return nil, true, err
	}
	lit, null, isLit := stringLiteral(b)
	other := a
	if !isLit {
		if lit, null, isLit = stringLiteral(a); !isLit {
			return nil, false, nil
		}
		other, op = b, flipped[op]
	}
	if _, _, both := stringLiteral(other); both {
		return nil, true, unsupported(fmt.Sprintf("comparison of two string literals %s", f))
	}
	x, err := c.dictArg(other, f.Name())
	if err != nil {
		return nil, true, err
	}
	if null {
		return nullBool(), true, nil
	}
	return strPred(&gpu.StrFunc{Kind: gpu.StrCompare, Op: op, Pattern: lit}, x, out.Nullable), true, nil
}

var matchKinds = map[substrait.Func]gpu.StrFuncKind{
	substrait.FnLike: gpu.StrLike, substrait.FnContains: gpu.StrContains,
	substrait.FnStartsWith: gpu.StrStartsWith, substrait.FnEndsWith: gpu.StrEndsWith,
}

// match handles like/contains/starts_with/ends_with(str, constant pattern).
func (c exprConv) match(fn substrait.Func, f *expr.ScalarFunction, out gpu.Type) (*gpu.Expr, error) {
	if f.NArgs() != 2 {
		// like's 3-argument form has an escape character, which DuckDB's
		// producer never writes.
		return nil, unsupported(fmt.Sprintf("function %s with %d arguments", fn, f.NArgs()))
	}
	if cs := f.GetOption("case_sensitivity"); len(cs) > 0 && cs[0] != "CASE_SENSITIVE" {
		return nil, unsupported(fmt.Sprintf("function %s option case_sensitivity=%s", fn, cs[0]))
	}
	pe, err := valueArg(f, 1)
	if err != nil {
		return nil, err
	}
	pattern, null, ok := stringLiteral(pe)
	if !ok {
		return nil, unsupported(fmt.Sprintf("function %s with a pattern that is not a constant (%s)", fn, pe))
	}
	se, err := valueArg(f, 0)
	if err != nil {
		return nil, err
	}
	x, err := c.dictArg(se, string(fn))
	if err != nil {
		return nil, err
	}
	if null {
		return nullBool(), nil
	}
	return strPred(&gpu.StrFunc{Kind: matchKinds[fn], Pattern: pattern}, x, out.Nullable), nil
}

// intLiteral reads a constant integer argument (null: ok with null set): a
// literal, or a cast of one to an integer type that holds its value
// (ibis-substrait writes substring(s, cast(i8 0 AS i32), ...)).
func intLiteral(e expr.Expression) (v int64, null, ok bool) {
	if c, isCast := e.(*expr.Cast); isCast {
		if v, null, ok = intLiteral(c.Input); !ok || null {
			return v, null, ok
		}
		var bits uint
		switch c.Type.(type) {
		case *types.Int8Type:
			bits = 8
		case *types.Int16Type:
			bits = 16
		case *types.Int32Type:
			bits = 32
		case *types.Int64Type:
			bits = 64
		default:
			return 0, false, false
		}
		if lim := int64(1) << (bits - 1); bits < 64 && (v < -lim || v >= lim) {
			return 0, false, false // the cast fails or gives null: not a plain constant
		}
		return v, false, true
	}
	l, isLit := e.(expr.Literal)
	if !isLit {
		return 0, false, false
	}
	switch x := literalProto(l).LiteralType.(type) {
	case *proto.Expression_Literal_I8:
		return int64(x.I8), false, true
	case *proto.Expression_Literal_I16:
		return int64(x.I16), false, true
	case *proto.Expression_Literal_I32:
		return int64(x.I32), false, true
	case *proto.Expression_Literal_I64:
		return x.I64, false, true
	case *proto.Expression_Literal_Null:
		return 0, true, true
	}
	return 0, false, false
}

// substring handles substring(str, constant start[, constant length]).
func (c exprConv) substring(f *expr.ScalarFunction, out gpu.Type) (*gpu.Expr, error) {
	if f.NArgs() != 2 && f.NArgs() != 3 {
		return nil, fmt.Errorf("function substring: %d arguments, want 2 or 3", f.NArgs())
	}
	sf := &gpu.StrFunc{Kind: gpu.StrSubstring, HasLength: f.NArgs() == 3}
	anyNull := false
	for i := 1; i < f.NArgs(); i++ {
		a, err := valueArg(f, i)
		if err != nil {
			return nil, err
		}
		v, null, ok := intLiteral(a)
		if !ok {
			return nil, unsupported(fmt.Sprintf("substring with a position or length that is not a constant (%s)", a))
		}
		anyNull = anyNull || null
		if i == 1 {
			sf.From = v
		} else {
			sf.Length = v
		}
	}
	// Positions counted from the end and negative lengths follow DuckDB
	// (gpu.Substring), which is Substrait's WRAP_FROM_END; a plan asking for
	// another behaviour is refused where the two could differ.
	if ns := f.GetOption("negative_start"); (len(ns) == 0 || ns[0] != "WRAP_FROM_END") && (sf.From <= 0 || (sf.HasLength && sf.Length < 0)) {
		opt := "unspecified"
		if len(ns) > 0 {
			opt = ns[0]
		}
		return nil, unsupported(fmt.Sprintf("substring from %d (negative_start %s)", sf.From, opt))
	}
	se, err := valueArg(f, 0)
	if err != nil {
		return nil, err
	}
	x, err := c.dictArg(se, "substring")
	if err != nil {
		return nil, err
	}
	if anyNull {
		return nil, unsupported("substring with a null position or length")
	}
	return gpu.StrCall(sf, gpu.Type{Kind: gpu.Dict, Nullable: out.Nullable || x.Type.Nullable}, x), nil
}

// MaxDeviceInList bounds the options of an IN list of numbers that runs on
// the device: it tests them one by one (an OR of equalities), so a long
// list is slow there and a huge one a huge kernel, while DuckDB runs it
// with a hash table. A longer list falls back. TPC-H's longest has 8
// options.
const MaxDeviceInList = 256

// MaxDeviceStrInList bounds the options of an IN list of strings. The
// device tests such a list once per dictionary entry, on the host, through
// a set (gpu.StrFunc's predicate table); it tests it per row only where the
// strings are in Arrow layout, which a list of more than
// gpu.MaxStrPredBytes of strings never is. TPC-DS q08 lists 400 zip codes.
const MaxDeviceStrInList = 4096

// inList converts SQL's IN (Substrait's SingularOrList): true on a match,
// null when the value or an option is null and nothing matched, false
// otherwise, which is exactly an OR of equalities in Kleene logic.
func (c exprConv) inList(x *expr.SingularOrList) (*gpu.Expr, error) {
	if len(x.Options) == 0 {
		return nil, fmt.Errorf("IN list without options")
	}
	if len(x.Options) > MaxDeviceStrInList {
		return nil, unsupported(fmt.Sprintf("an IN list of %d options (the device runs lists of up to %d strings, translate.MaxDeviceStrInList)", len(x.Options), MaxDeviceStrInList))
	}
	v, err := c.convert(x.Value)
	if err != nil {
		return nil, err
	}
	if v.Type.Kind != gpu.Dict && len(x.Options) > MaxDeviceInList {
		return nil, unsupported(fmt.Sprintf("an IN list of %d options (the device runs lists of up to %d numbers, translate.MaxDeviceInList)", len(x.Options), MaxDeviceInList))
	}
	out := gpu.Type{Kind: gpu.Bool, Nullable: v.Type.Nullable}
	if v.Type.Kind == gpu.Dict {
		var list []string
		sawNull := false
		for _, o := range x.Options {
			s, null, ok := stringLiteral(o)
			if !ok {
				return nil, unsupported(fmt.Sprintf("string IN list with an option that is not a constant (%s)", o))
			}
			if null {
				sawNull = true
				continue
			}
			list = append(list, s)
		}
		if len(list) == 0 {
			return nullBool(), nil // x IN (NULL, ...): never true
		}
		in := strPred(&gpu.StrFunc{Kind: gpu.StrIn, List: list}, v, false)
		if sawNull {
			return gpu.Call(gpu.OpOr, out.WithNullable(true), in, nullBool()), nil
		}
		return in, nil
	}
	eqs := make([]*gpu.Expr, 0, len(x.Options))
	for _, o := range x.Options {
		g, err := c.convert(o)
		if err != nil {
			return nil, err
		}
		eq, err := compare(gpu.OpEq, gpu.Type{Kind: gpu.Bool, Nullable: v.Type.Nullable || g.Type.Nullable}, v, g)
		if err != nil {
			return nil, err
		}
		out.Nullable = out.Nullable || eq.Type.Nullable
		eqs = append(eqs, eq)
	}
	if len(eqs) == 1 {
		return eqs[0], nil
	}
	return gpu.Call(gpu.OpOr, out, eqs...), nil
}

// extract handles extract(YEAR, date) and extract(MONTH|DAY, ONE, date).
func (c exprConv) extract(f *expr.ScalarFunction, out gpu.Type) (*gpu.Expr, error) {
	if f.NArgs() < 2 {
		return nil, fmt.Errorf("function extract: %d arguments", f.NArgs())
	}
	comp, ok := f.Arg(0).(types.Enum)
	if !ok {
		return nil, fmt.Errorf("function extract: argument 0 is %T, want the component enum", f.Arg(0))
	}
	var op gpu.Op
	switch string(comp) {
	case "YEAR":
		op = gpu.OpYear
	case "MONTH":
		op = gpu.OpMonth
	case "DAY":
		op = gpu.OpDay
	default:
		return nil, unsupported(fmt.Sprintf("extract(%s)", comp))
	}
	vi := 1
	if f.NArgs() == 3 {
		idx, ok := f.Arg(1).(types.Enum)
		if !ok || string(idx) != "ONE" {
			return nil, unsupported(fmt.Sprintf("extract(%s) with indexing %v", comp, f.Arg(1)))
		}
		vi = 2
	}
	a, err := valueArg(f, vi)
	if err != nil {
		return nil, err
	}
	x, err := c.convert(a)
	if err != nil {
		return nil, err
	}
	if x.Type.Kind != gpu.Date32 {
		return nil, unsupported(fmt.Sprintf("extract(%s) from %s (dates only)", comp, x.Type))
	}
	if !isInt(out) {
		return nil, unsupported(fmt.Sprintf("extract(%s) giving %s", comp, out))
	}
	g := gpu.Call(op, gpu.Type{Kind: gpu.Int64, Nullable: x.Type.Nullable}, x)
	return cast(g, out.WithNullable(out.Nullable || x.Type.Nullable))
}

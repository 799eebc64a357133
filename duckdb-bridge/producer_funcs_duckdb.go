package duckdbbridge

import (
	"fmt"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// DuckDB functions of the producer corpus that need more than a name
// lookup (scalarRef): a constant argument read at plan time, a result
// type to restore with a cast, or DuckDB's own numbering. Each maps to
// the standard Substrait function of the same meaning where one exists,
// otherwise to rigel's extension (substrait/extensions/functions_rigel.yaml).
//
//   - dayofweek/weekday (Sunday 0 .. Saturday 6): extract(SUNDAY_DAY_OF_WEEK,
//     ZERO, x); isodow (Monday 1 .. Sunday 7): extract(MONDAY_DAY_OF_WEEK,
//     ONE, x). The same for date_part('dow' | 'isodow', x).
//   - round(DECIMAL(P,S), d): the standard decimal round (ties away from
//     zero, result DECIMAL(P+1,S)) cast to DuckDB's DECIMAL(P,min(max(d,0),S)).
//   - sign(DOUBLE | FLOAT): rigel's sign (TINYINT, 0 for NaN and -0.0).
//   - left/right(VARCHAR, constant n): the standard left/right when n >= 0;
//     right with n < 0 (all but the first -n characters) is the standard
//     substring from -n+1.
//   - make_date(BIGINT, BIGINT, BIGINT): rigel's make_date.
//   - TIMESTAMP - TIMESTAMP: rigel's subtract giving interval_day<6>, cast
//     to DuckDB's INTERVAL (interval_compound<6>).
//   - normalized_interval(INTERVAL): rigel's normalized_interval.

// corpusFunction converts the functions above; ok is false for any other
// call, which p.function converts as before.
func (p *producer) corpusFunction(e *duckExpr, in []colType) (g *pb.Expression, t colType, ok bool, err error) {
	n := len(e.Children)
	switch {
	case (e.Name == "dayofweek" || e.Name == "weekday" || e.Name == "isodow") && n == 1:
		g, t, err = p.dayOfWeek(e.Name, e.Children[0], e, in)
		return g, t, true, err
	case (e.Name == "date_part" || e.Name == "datepart") && n == 2 && e.Children[0].ExpressionClass == "BOUND_CONSTANT" &&
		e.Children[0].Value != nil && !e.Children[0].Value.IsNull:
		part := constString(e.Children[0].Value)
		if part == "dow" || part == "isodow" || part == "weekday" || part == "dayofweek" {
			g, t, err = p.dayOfWeek(part, e.Children[1], e, in)
			return g, t, true, err
		}
		return nil, t, false, nil
	case e.Name == "round" && n == 2:
		return p.roundDecimal(e, in)
	case e.Name == "sign" && n == 1:
		return p.signFloat(e, in)
	case e.Name == "round" && n == 1:
		return p.roundFloat(e, in)
	case (e.Name == "left" || e.Name == "right") && n == 2:
		g, t, err = p.leftRight(e, in)
		return g, t, true, err
	case e.Name == "make_date" && n == 3:
		args, types, err := p.exprs(e.Children, in)
		if err != nil {
			return nil, t, true, err
		}
		if !keys2(sigKeys(types), "i64", "i64", "i64") {
			return nil, t, true, unsupportedFunc(e.Name, types)
		}
		// Nullable also when no argument is: an invalid date is an error,
		// never a NULL, but DuckDB's own column is declared nullable.
		out := colType{duck: *e.ReturnType, nullable: anyNullable(types)}
		g, t, err = p.call(funcRef{urnRigel, "make_date:i64_i64_i64", nil}, out, valueArgs(args...)...)
		return g, t, true, err
	case e.Name == "-" && n == 2:
		return p.timestampDifference(e, in)
	case e.Name == "normalized_interval" && n == 1:
		x, xt, err := p.expr(e.Children[0], in)
		if err != nil {
			return nil, t, true, err
		}
		if sigKey(xt.duck) != "icompound" {
			return nil, t, true, unsupportedFunc(e.Name, []colType{xt})
		}
		g, t, err = p.call(funcRef{urnRigel, "normalized_interval:any", nil}, colType{duck: *e.ReturnType, nullable: xt.nullable}, valueArgs(x)...)
		return g, t, true, err
	}
	return nil, t, false, nil
}

func sigKeys(ts []colType) []string {
	ks := make([]string, len(ts))
	for i, t := range ts {
		ks[i] = sigKey(t.duck)
	}
	return ks
}

// constString is a VARCHAR constant's text (its JSON string unquoted).
func constString(v *duckValue) string {
	s := string(v.Value)
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
	}
	return s
}

// dayOfWeek converts DuckDB's day-of-week parts. DuckDB's dayofweek (and
// date_part 'dow', weekday) counts Sunday 0 .. Saturday 6: Substrait's
// SUNDAY_DAY_OF_WEEK indexed from ZERO. isodow counts Monday 1 .. Sunday 7:
// MONDAY_DAY_OF_WEEK indexed from ONE.
func (p *producer) dayOfWeek(part string, arg *duckExpr, e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	x, xt, err := p.expr(arg, in)
	if err != nil {
		return nil, xt, err
	}
	k := sigKey(xt.duck)
	if k != "date" && k != "pts" {
		return nil, colType{}, unsupported("function %s(%s) [date part %q]", e.Name, xt.duck, part)
	}
	component, index := "SUNDAY_DAY_OF_WEEK", "ZERO"
	if part == "isodow" {
		component, index = "MONDAY_DAY_OF_WEEK", "ONE"
	}
	out := colType{duck: *e.ReturnType, nullable: xt.nullable}
	return p.call(funcRef{urnDatetime, "extract:req_req_" + k, nil}, out, enumArg(component), enumArg(index), valueArgs(x)[0])
}

// intConstant reads a converted argument that is an integer literal.
func intConstant(x *pb.Expression) (int64, bool) {
	lit := x.GetLiteral()
	if lit == nil {
		return 0, false
	}
	switch v := lit.GetLiteralType().(type) {
	case *pb.Expression_Literal_I8:
		return int64(v.I8), true
	case *pb.Expression_Literal_I16:
		return int64(v.I16), true
	case *pb.Expression_Literal_I32:
		return int64(v.I32), true
	case *pb.Expression_Literal_I64:
		return v.I64, true
	}
	return 0, false
}

func i32Literal(v int32) *pb.Expression {
	return &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
		LiteralType: &pb.Expression_Literal_I32{I32: v},
	}}}
}

// roundDecimal converts round(DECIMAL(P,S), d). DuckDB needs d constant
// (it picks the result type from it) and rounds halves away from zero,
// giving DECIMAL(P, S') with S' = d clamped to [0, S]; the standard
// decimal round gives the same value as DECIMAL(P+1, S), which the cast to
// DECIMAL(P, S') keeps exactly (its digits below S' are zeros). Refused:
//   - d <= -(P-S): DuckDB then returns 0 whatever x is (round(50.00, -2)
//     of a DECIMAL(4,2) is 0, not 100), which no standard round gives;
//   - P = 38 with d < S: the standard result cannot widen to hold a carry
//     into a new integer digit (its precision stays 38), where DuckDB's
//     can. With d >= S (round(sum(x), 2) of a DECIMAL(38,2) sum) nothing
//     is rounded and the standard result is x itself, DECIMAL(38,S).
func (p *producer) roundDecimal(e *duckExpr, in []colType) (*pb.Expression, colType, bool, error) {
	if rt := e.Children[0].ReturnType; rt == nil || rt.ID != "DECIMAL" {
		return nil, colType{}, false, nil // float round: scalarRef
	}
	args, types, err := p.exprs(e.Children, in)
	if err != nil {
		return nil, colType{}, true, err
	}
	if types[0].duck.TypeInfo == nil {
		return nil, colType{}, true, fmt.Errorf("duckdb plan: DECIMAL without width and scale")
	}
	d, ok := intConstant(args[1])
	if !ok || numericKind(sigKey(types[1].duck)) != "int" {
		return nil, colType{}, true, unsupported("function round(%s, %s) with digits that are not a constant", types[0].duck, types[1].duck)
	}
	w, s := types[0].duck.TypeInfo.Width, types[0].duck.TypeInfo.Scale
	switch {
	case d <= -int64(w-s):
		return nil, colType{}, true, unsupported("function round(%s, %d): DuckDB gives 0 when every integer digit is rounded away", types[0].duck, d)
	case w >= 38 && d < int64(s):
		return nil, colType{}, true, unsupported("function round(%s, %d): the standard decimal round cannot widen DECIMAL(38,S)", types[0].duck, d)
	}
	if w >= 38 {
		w = 37 // d >= S: nothing is rounded, so no carry; the result keeps x's type
	}
	inner := decimalCol(w+1, s, true)
	r, _, err := p.call(funcRef{urnRoundingDec, "round:dec_i32", optRound}, inner, valueArgs(args[0], i32Literal(int32(d)))...)
	if err != nil {
		return nil, colType{}, true, err
	}
	g, t, err := p.castTo(r, colType{duck: *e.ReturnType, nullable: true}, false)
	return g, t, true, err
}

// urnRoundingDec is the standard decimal rounding extension.
const urnRoundingDec = "extension:io.substrait:functions_rounding_decimal"

// signFloat converts sign of a DOUBLE or FLOAT: DuckDB gives a TINYINT,
// 0 for NaN and for -0.0. The standard sign of a float returns the float
// type and leaves NaN unspecified, so this is rigel's sign. Integer signs
// are intSign's (p.function).
func (p *producer) signFloat(e *duckExpr, in []colType) (*pb.Expression, colType, bool, error) {
	return p.floatCall(e, in, func(k string) funcRef { return funcRef{urnRigel, "sign:" + k, nil} })
}

// roundFloat converts round(x) of a DOUBLE or FLOAT: round(x, 0), halves
// away from zero, as DuckDB rounds them (TPC-DS q54). Other types go the
// ordinary way.
func (p *producer) roundFloat(e *duckExpr, in []colType) (*pb.Expression, colType, bool, error) {
	return p.floatCall(e, in, func(k string) funcRef { return funcRef{urnRounding, "round:" + k + "_i32", optRound} }, i32Literal(0))
}

// floatCall converts e, a function of one DOUBLE or FLOAT argument x, into
// fn(k)(x, extra...), k being x's signature key (fp64, fp32); ok is false
// for an argument of another type, which takes the ordinary way.
func (p *producer) floatCall(e *duckExpr, in []colType, fn func(k string) funcRef, extra ...*pb.Expression) (*pb.Expression, colType, bool, error) {
	if rt := e.Children[0].ReturnType; rt == nil || (rt.ID != "DOUBLE" && rt.ID != "FLOAT") {
		return nil, colType{}, false, nil
	}
	x, xt, err := p.expr(e.Children[0], in)
	if err != nil {
		return nil, colType{}, true, err
	}
	g, t, err := p.call(fn(sigKey(xt.duck)), colType{duck: *e.ReturnType, nullable: xt.nullable}, valueArgs(append([]*pb.Expression{x}, extra...)...)...)
	return g, t, true, err
}

// leftRight converts left/right(s, n) with a constant n (DuckDB's count is
// a BIGINT; Substrait's an i32). DuckDB counts code points, as the
// standard functions do; for n >= 0 the meanings agree (a count past the
// string's end takes it whole). A negative n means "all but |n|" in
// DuckDB, which the standard left/right do not say: right(s, -n) is the
// standard substring(s, n+1) (from the character after the first n);
// left(s, -n) and counts that are not constants are refused.
func (p *producer) leftRight(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	args, types, err := p.exprs(e.Children, in)
	if err != nil {
		return nil, colType{}, err
	}
	if sigKey(types[0].duck) != "str" || numericKind(sigKey(types[1].duck)) != "int" {
		return nil, colType{}, unsupportedFunc(e.Name, types)
	}
	n, ok := intConstant(args[1])
	if !ok {
		return nil, colType{}, unsupported("function %s(%s, %s) with a count that is not a constant", e.Name, types[0].duck, types[1].duck)
	}
	out := colType{duck: *e.ReturnType, nullable: types[0].nullable}
	switch {
	case n >= 0:
		if n > 1<<31-1 {
			n = 1<<31 - 1 // past any string's end either way
		}
		return p.call(funcRef{urnString, e.Name + ":str_i32", nil}, out, valueArgs(args[0], i32Literal(int32(n)))...)
	case e.Name == "right" && n > -(1<<31-1):
		return p.call(funcRef{urnString, "substring:str_i32", map[string]string{"negative_start": "WRAP_FROM_END"}}, out,
			valueArgs(args[0], i32Literal(int32(-n+1)))...)
	}
	return nil, colType{}, unsupported("function %s(%s, %d): a negative count", e.Name, types[0].duck, n)
}

// timestampDifference converts TIMESTAMP - TIMESTAMP. DuckDB's result is
// the INTERVAL of 0 months, the whole days of the difference and the rest
// in microseconds (both truncated toward zero, so of the difference's
// sign): an interval_day<6> value. rigel's subtract gives that type (a
// YAML cannot name interval_compound for substrait-go), and a cast makes
// it DuckDB's INTERVAL (interval_compound<6>), losing nothing.
func (p *producer) timestampDifference(e *duckExpr, in []colType) (*pb.Expression, colType, bool, error) {
	args, types, err := p.exprs(e.Children, in)
	if err != nil {
		return nil, colType{}, true, err
	}
	if types[0].duck.ID != "TIMESTAMP" || types[1].duck.ID != "TIMESTAMP" {
		return nil, colType{}, false, nil // p.function converts it (again)
	}
	nullable := anyNullable(types)
	f := funcRef{urnRigel, "subtract:pts_pts", nil}
	anchor, opts, err := p.reg.scalar(f)
	if err != nil {
		return nil, colType{}, true, err
	}
	iday := &pb.Type{Kind: &pb.Type_IntervalDay_{IntervalDay: &pb.Type_IntervalDay{
		Precision: ptrInt32(6), Nullability: nullability(nullable),
	}}}
	diff := &pb.Expression{RexType: &pb.Expression_ScalarFunction_{ScalarFunction: &pb.Expression_ScalarFunction{
		FunctionReference: anchor, Arguments: valueArgs(args...), OutputType: iday, Options: opts,
	}}}
	if e.ReturnType.ID != "INTERVAL" {
		return nil, colType{}, true, fmt.Errorf("duckdb plan: TIMESTAMP - TIMESTAMP of type %s, want INTERVAL", e.ReturnType)
	}
	g, t, err := p.castTo(diff, colType{duck: *e.ReturnType, nullable: nullable}, false)
	return g, t, true, err
}

func ptrInt32(v int32) *int32 { return &v }

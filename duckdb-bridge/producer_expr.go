package duckdbbridge

import (
	"fmt"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// fieldRef is a reference to column i of the input record.
func fieldRef(i int) *pb.Expression {
	return &pb.Expression{RexType: &pb.Expression_Selection{Selection: &pb.Expression_FieldReference{
		ReferenceType: &pb.Expression_FieldReference_DirectReference{DirectReference: &pb.Expression_ReferenceSegment{
			ReferenceType: &pb.Expression_ReferenceSegment_StructField_{StructField: &pb.Expression_ReferenceSegment_StructField{Field: int32(i)}},
		}},
		RootType: &pb.Expression_FieldReference_RootReference_{RootReference: &pb.Expression_FieldReference_RootReference{}},
	}}}
}

func valueArgs(es ...*pb.Expression) []*pb.FunctionArgument {
	out := make([]*pb.FunctionArgument, len(es))
	for i, e := range es {
		out[i] = &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Value{Value: e}}
	}
	return out
}

func enumArg(v string) *pb.FunctionArgument {
	return &pb.FunctionArgument{ArgType: &pb.FunctionArgument_Enum{Enum: v}}
}

// call builds a scalar function call of the given output type.
func (p *producer) call(f funcRef, out colType, args ...*pb.FunctionArgument) (*pb.Expression, colType, error) {
	anchor, opts, err := p.reg.scalar(f)
	if err != nil {
		return nil, out, err
	}
	t, err := substraitType(out)
	if err != nil {
		return nil, out, err
	}
	return &pb.Expression{RexType: &pb.Expression_ScalarFunction_{ScalarFunction: &pb.Expression_ScalarFunction{
		FunctionReference: anchor, Arguments: args, OutputType: t, Options: opts,
	}}}, out, nil
}

func (p *producer) not(e *pb.Expression, nullable bool) (*pb.Expression, colType, error) {
	return p.call(funcRef{urnBoolean, "not:bool", nil}, boolType(nullable), valueArgs(e)...)
}

// exprs converts a list of expressions over the same input.
func (p *producer) exprs(es []*duckExpr, in []colType) ([]*pb.Expression, []colType, error) {
	out := make([]*pb.Expression, len(es))
	types := make([]colType, len(es))
	for i, e := range es {
		var err error
		if out[i], types[i], err = p.expr(e, in); err != nil {
			return nil, nil, err
		}
	}
	return out, types, nil
}

func anyNullable(ts []colType) bool {
	for _, t := range ts {
		if t.nullable {
			return true
		}
	}
	return false
}

// expr converts one DuckDB bound expression over an input record of types
// in. The result type is DuckDB's return type.
func (p *producer) expr(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	if e == nil {
		return nil, colType{}, fmt.Errorf("duckdb plan: missing expression")
	}
	switch e.ExpressionClass {
	case "BOUND_REF":
		if e.Index == nil || *e.Index >= uint64(len(in)) {
			return nil, colType{}, fmt.Errorf("duckdb plan: column reference %q is out of range of its input (%d columns)", e.Alias, len(in))
		}
		t := in[*e.Index]
		if t.rowID {
			return nil, colType{}, unsupported("reference to the row id column")
		}
		if e.ReturnType != nil && !sameType(*e.ReturnType, t.duck) {
			return nil, colType{}, fmt.Errorf("duckdb plan: column reference %q has type %s but its input column is %s", e.Alias, e.ReturnType, t.duck)
		}
		return fieldRef(int(*e.Index)), t, nil
	case "BOUND_CONSTANT":
		if e.Value == nil {
			return nil, colType{}, fmt.Errorf("duckdb plan: constant without a value")
		}
		lit, t, err := literal(e.Value)
		if err != nil {
			return nil, t, err
		}
		return &pb.Expression{RexType: &pb.Expression_Literal_{Literal: lit}}, t, nil
	case "BOUND_COMPARISON":
		return p.comparison(e, in)
	case "BOUND_CONJUNCTION":
		return p.conjunction(e, in)
	case "BOUND_OPERATOR":
		return p.operator(e, in)
	case "BOUND_BETWEEN":
		return p.between(e, in)
	case "BOUND_CAST":
		return p.cast(e, in)
	case "BOUND_CASE":
		return p.caseExpr(e, in)
	case "BOUND_FUNCTION":
		return p.function(e, in)
	}
	return nil, colType{}, unsupported("expression %s", e.ExpressionClass)
}

var comparisonFuncs = map[string]string{
	"COMPARE_EQUAL":                "equal:any_any",
	"COMPARE_NOTEQUAL":             "not_equal:any_any",
	"COMPARE_LESSTHAN":             "lt:any_any",
	"COMPARE_GREATERTHAN":          "gt:any_any",
	"COMPARE_LESSTHANOREQUALTO":    "lte:any_any",
	"COMPARE_GREATERTHANOREQUALTO": "gte:any_any",
	"COMPARE_DISTINCT_FROM":        "is_distinct_from:any_any",
	"COMPARE_NOT_DISTINCT_FROM":    "is_not_distinct_from:any_any",
}

func (p *producer) compare(kind string, l, r *pb.Expression, lt, rt colType) (*pb.Expression, colType, error) {
	name, ok := comparisonFuncs[kind]
	if !ok {
		return nil, colType{}, unsupported("comparison %s", kind)
	}
	nullable := lt.nullable || rt.nullable
	if kind == "COMPARE_DISTINCT_FROM" || kind == "COMPARE_NOT_DISTINCT_FROM" {
		nullable = false
	}
	return p.call(funcRef{urnComparison, name, nil}, boolType(nullable), valueArgs(l, r)...)
}

func (p *producer) comparison(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	l, lt, err := p.expr(e.Left, in)
	if err != nil {
		return nil, lt, err
	}
	r, rt, err := p.expr(e.Right, in)
	if err != nil {
		return nil, rt, err
	}
	return p.compare(e.Type, l, r, lt, rt)
}

func (p *producer) conjunction(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	args, types, err := p.exprs(e.Children, in)
	if err != nil {
		return nil, colType{}, err
	}
	if len(args) == 1 {
		return args[0], types[0], nil
	}
	switch e.Type {
	case "CONJUNCTION_AND":
		return p.call(funcRef{urnBoolean, "and:bool", nil}, boolType(anyNullable(types)), valueArgs(args...)...)
	case "CONJUNCTION_OR":
		return p.call(funcRef{urnBoolean, "or:bool", nil}, boolType(anyNullable(types)), valueArgs(args...)...)
	}
	return nil, colType{}, unsupported("conjunction %s", e.Type)
}

func (p *producer) operator(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	args, types, err := p.exprs(e.Children, in)
	if err != nil {
		return nil, colType{}, err
	}
	switch e.Type {
	case "OPERATOR_NOT":
		if len(args) == 1 {
			return p.not(args[0], types[0].nullable)
		}
	case "OPERATOR_IS_NULL":
		if len(args) == 1 {
			return p.call(funcRef{urnComparison, "is_null:any", nil}, boolType(false), valueArgs(args[0])...)
		}
	case "OPERATOR_IS_NOT_NULL":
		if len(args) == 1 {
			return p.call(funcRef{urnComparison, "is_not_null:any", nil}, boolType(false), valueArgs(args[0])...)
		}
	case "COMPARE_IN", "COMPARE_NOT_IN":
		if len(args) >= 2 {
			// SQL's IN: true on a match, NULL when the value or an option is
			// NULL and nothing matched, false otherwise; Substrait's
			// SingularOrList has the same meaning.
			nullable := anyNullable(types)
			if types[0].nullable {
				nullableLiterals(args[1:])
			}
			in := &pb.Expression{RexType: &pb.Expression_SingularOrList_{SingularOrList: &pb.Expression_SingularOrList{
				Value: args[0], Options: args[1:],
			}}}
			if e.Type == "COMPARE_NOT_IN" {
				return p.not(in, nullable)
			}
			return in, boolType(nullable), nil
		}
	case "OPERATOR_COALESCE":
		if len(args) >= 1 && e.ReturnType != nil {
			nullable := true
			for _, t := range types {
				nullable = nullable && t.nullable
			}
			return p.call(funcRef{urnComparison, "coalesce:any", nil}, colType{duck: *e.ReturnType, nullable: nullable}, valueArgs(args...)...)
		}
	default:
		return nil, colType{}, unsupported("operator %s", e.Type)
	}
	return nil, colType{}, fmt.Errorf("duckdb plan: operator %s with %d arguments", e.Type, len(args))
}

// between becomes lower <(=) input AND input <(=) upper.
func (p *producer) between(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	x, xt, err := p.expr(e.Input, in)
	if err != nil {
		return nil, xt, err
	}
	lo, lot, err := p.expr(e.Lower, in)
	if err != nil {
		return nil, lot, err
	}
	hi, hit, err := p.expr(e.Upper, in)
	if err != nil {
		return nil, hit, err
	}
	lowerCmp, upperCmp := "COMPARE_GREATERTHAN", "COMPARE_LESSTHAN"
	if e.LowerInclusive {
		lowerCmp = "COMPARE_GREATERTHANOREQUALTO"
	}
	if e.UpperInclusive {
		upperCmp = "COMPARE_LESSTHANOREQUALTO"
	}
	a, at, err := p.compare(lowerCmp, x, lo, xt, lot)
	if err != nil {
		return nil, at, err
	}
	b, bt, err := p.compare(upperCmp, x, hi, xt, hit)
	if err != nil {
		return nil, bt, err
	}
	return p.call(funcRef{urnBoolean, "and:bool", nil}, boolType(at.nullable || bt.nullable), valueArgs(a, b)...)
}

func (p *producer) cast(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	x, xt, err := p.expr(e.Child, in)
	if err != nil {
		return nil, xt, err
	}
	if e.ReturnType == nil {
		return nil, colType{}, fmt.Errorf("duckdb plan: cast without a target type")
	}
	out := colType{duck: *e.ReturnType, nullable: xt.nullable || e.TryCast}
	if err := checkUnsignedCast(xt.duck, out.duck); err != nil {
		return nil, out, err
	}
	return p.castTo(x, out, e.TryCast)
}

func (p *producer) castTo(x *pb.Expression, out colType, try bool) (*pb.Expression, colType, error) {
	t, err := substraitType(out)
	if err != nil {
		return nil, out, err
	}
	fb := pb.Expression_Cast_FAILURE_BEHAVIOR_THROW_EXCEPTION
	if try {
		fb = pb.Expression_Cast_FAILURE_BEHAVIOR_RETURN_NULL
	}
	return &pb.Expression{RexType: &pb.Expression_Cast_{Cast: &pb.Expression_Cast{
		Type: t, Input: x, FailureBehavior: fb,
	}}}, out, nil
}

func (p *producer) caseExpr(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	if e.ReturnType == nil || len(e.CaseChecks) == 0 {
		return nil, colType{}, fmt.Errorf("duckdb plan: CASE without a type or WHEN branches")
	}
	out := colType{duck: *e.ReturnType}
	it := &pb.Expression_IfThen{}
	for _, c := range e.CaseChecks {
		w, _, err := p.expr(c.When, in)
		if err != nil {
			return nil, out, err
		}
		t, tt, err := p.expr(c.Then, in)
		if err != nil {
			return nil, out, err
		}
		out.nullable = out.nullable || tt.nullable
		it.Ifs = append(it.Ifs, &pb.Expression_IfThen_IfClause{If: w, Then: t})
	}
	if e.Else == nil {
		out.nullable = true
		t, err := substraitType(colType{duck: out.duck, nullable: true})
		if err != nil {
			return nil, out, err
		}
		it.Else = &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
			LiteralType: &pb.Expression_Literal_Null{Null: t}, Nullable: true,
		}}}
	} else {
		el, et, err := p.expr(e.Else, in)
		if err != nil {
			return nil, out, err
		}
		out.nullable = out.nullable || et.nullable
		it.Else = el
	}
	return &pb.Expression{RexType: &pb.Expression_IfThen_{IfThen: it}}, out, nil
}

// datePartFunctions are DuckDB's one-argument date part functions.
var datePartFunctions = map[string]bool{
	"year": true, "quarter": true, "month": true, "day": true, "dayofmonth": true,
	"dayofyear": true, "hour": true, "minute": true, "second": true,
}

func (p *producer) function(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	if e.ReturnType == nil {
		return nil, colType{}, fmt.Errorf("duckdb plan: function %s without a return type", e.Name)
	}
	if g, t, ok, err := p.corpusFunction(e, in); ok { // producer_funcs_duckdb.go
		return g, t, err
	}
	switch {
	case datePartFunctions[e.Name] && len(e.Children) == 1:
		return p.datePart(e.Name, e.Children[0], e, in)
	case (e.Name == "date_part" || e.Name == "datepart") && len(e.Children) == 2 &&
		e.Children[0].ExpressionClass == "BOUND_CONSTANT" && e.Children[0].Value != nil && !e.Children[0].Value.IsNull:
		part := string(e.Children[0].Value.Value)
		if len(part) >= 2 && part[0] == '"' {
			part = part[1 : len(part)-1]
		}
		return p.datePart(part, e.Children[1], e, in)
	case e.Name == "substring" || e.Name == "substr":
		return p.substring(e, in)
	case e.Name == "constant_or_null" && len(e.Children) >= 2:
		return p.constantOrNull(e, in)
	}
	args, types, err := p.exprs(e.Children, in)
	if err != nil {
		return nil, colType{}, err
	}
	if err := checkUnsignedFunction(e.Name, types, *e.ReturnType); err != nil {
		return nil, colType{}, err
	}
	args, types = trimSpaces(e.Name, args, types)
	if e.Name == "-" && len(types) == 1 && sigKey(types[0].duck) == "dec" {
		return p.decimalNegate(args[0], types[0], colType{duck: *e.ReturnType, nullable: types[0].nullable})
	}
	if e.Name == "sign" && len(types) == 1 && numericKind(sigKey(types[0].duck)) == "int" {
		return p.intSign(args[0], types[0], colType{duck: *e.ReturnType, nullable: types[0].nullable})
	}
	f, err := scalarRef(e.Name, types)
	if err != nil {
		return nil, colType{}, err
	}
	nullable := anyNullable(types)
	switch e.Name {
	case "//", "%":
		nullable = true // NULL on division by zero
	case "concat":
		nullable = true
		for _, t := range types {
			nullable = nullable && t.nullable
		}
	}
	out := colType{duck: *e.ReturnType, nullable: nullable}
	if e.Name == "!~~" || e.Name == "!~~*" {
		like, _, err := p.call(f, boolType(nullable), valueArgs(args...)...)
		if err != nil {
			return nil, out, err
		}
		return p.not(like, nullable)
	}
	return p.call(f, out, valueArgs(args...)...)
}

// constantOrNull is DuckDB's constant_or_null(c, x...), which its
// optimizer writes for a comparison it decided from c alone (TPC-DS q13,
// q15, q48): null where any x is null, else c. It becomes
// CASE WHEN x1 IS NULL OR ... THEN NULL ELSE c END over the nullable x.
func (p *producer) constantOrNull(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	c, ct, err := p.expr(e.Children[0], in)
	if err != nil {
		return nil, ct, err
	}
	var nulls []*pb.Expression
	for _, x := range e.Children[1:] {
		g, xt, err := p.expr(x, in)
		if err != nil {
			return nil, xt, err
		}
		if !xt.nullable {
			continue
		}
		isNull, _, err := p.call(funcRef{urnComparison, "is_null:any", nil}, boolType(false), valueArgs(g)...)
		if err != nil {
			return nil, ct, err
		}
		nulls = append(nulls, isNull)
	}
	if len(nulls) == 0 {
		return c, ct, nil
	}
	cond := nulls[0]
	if len(nulls) > 1 {
		if cond, _, err = p.call(funcRef{urnBoolean, "or:bool", nil}, boolType(false), valueArgs(nulls...)...); err != nil {
			return nil, ct, err
		}
	}
	out := colType{duck: *e.ReturnType, nullable: true}
	t, err := substraitType(out)
	if err != nil {
		return nil, out, err
	}
	null := &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
		LiteralType: &pb.Expression_Literal_Null{Null: t}, Nullable: true,
	}}}
	return &pb.Expression{RexType: &pb.Expression_IfThen_{IfThen: &pb.Expression_IfThen{
		Ifs:  []*pb.Expression_IfThen_IfClause{{If: cond, Then: null}},
		Else: c,
	}}}, out, nil
}

// datePart converts year(x), month(x)... and date_part('part', x) into
// Substrait's extract(COMPONENT[, ONE], x).
func (p *producer) datePart(part string, arg *duckExpr, e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	x, xt, err := p.expr(arg, in)
	if err != nil {
		return nil, xt, err
	}
	component, indexed, ok := extractPart(part)
	k := sigKey(xt.duck)
	if !ok || (k != "date" && k != "pts") {
		return nil, colType{}, unsupported("function %s(%s) [date part %q]", e.Name, xt.duck, part)
	}
	if k == "date" && (component == "HOUR" || component == "MINUTE" || component == "SECOND") {
		return nil, colType{}, unsupported("function %s(%s) [date part %q]", e.Name, xt.duck, part)
	}
	out := colType{duck: *e.ReturnType, nullable: xt.nullable}
	if indexed {
		return p.call(funcRef{urnDatetime, "extract:req_req_" + k, nil}, out, enumArg(component), enumArg("ONE"), valueArgs(x)[0])
	}
	return p.call(funcRef{urnDatetime, "extract:req_" + k, nil}, out, enumArg(component), valueArgs(x)[0])
}

// substring maps DuckDB's substring(s, start[, length]) with BIGINT
// positions onto Substrait's i32 positions: constants are narrowed exactly,
// other expressions are cast (an error if the value does not fit).
func (p *producer) substring(e *duckExpr, in []colType) (*pb.Expression, colType, error) {
	args, types, err := p.exprs(e.Children, in)
	if err != nil {
		return nil, colType{}, err
	}
	if (len(args) != 2 && len(args) != 3) || sigKey(types[0].duck) != "str" {
		return nil, colType{}, unsupportedFunc(e.Name, types)
	}
	name := "substring:str_i32"
	if len(args) == 3 {
		name = "substring:str_i32_i32"
	}
	for i := 1; i < len(args); i++ {
		switch types[i].duck.ID {
		case "INTEGER":
		case "BIGINT", "SMALLINT", "TINYINT":
			i32 := colType{duck: duckType{ID: "INTEGER"}, nullable: types[i].nullable}
			if lit := args[i].GetLiteral(); lit != nil && lit.GetLiteralType() != nil {
				if v, ok := lit.GetLiteralType().(*pb.Expression_Literal_I64); ok && v.I64 >= -1<<31 && v.I64 < 1<<31 {
					args[i] = &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
						LiteralType: &pb.Expression_Literal_I32{I32: int32(v.I64)},
					}}}
					continue
				}
			}
			if args[i], _, err = p.castTo(args[i], i32, false); err != nil {
				return nil, colType{}, err
			}
		default:
			return nil, colType{}, unsupportedFunc(e.Name, types)
		}
	}
	out := colType{duck: *e.ReturnType, nullable: anyNullable(types)}
	return p.call(funcRef{urnString, name, map[string]string{"negative_start": "WRAP_FROM_END"}}, out, valueArgs(args...)...)
}

// nullableLiterals marks literal IN-list options nullable, to match a
// nullable tested value: the validator requires the options' types to equal
// the value's type, nullability included, and a literal's value is the same
// either way.
func nullableLiterals(opts []*pb.Expression) {
	for _, o := range opts {
		if lit := o.GetLiteral(); lit != nil {
			lit.Nullable = true
		}
	}
}

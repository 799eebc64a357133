package duckdbbridge

import (
	"fmt"
	"math/big"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// Extension URNs of the standard math and rounding functions.
const (
	urnRounding    = "extension:io.substrait:functions_rounding"
	urnLogarithmic = "extension:io.substrait:functions_logarithmic"
)

// DuckDB's behaviour of its math functions, as Substrait options: sqrt and
// the logarithms raise an error outside their domain ("cannot take square
// root of a negative number", "cannot take logarithm of zero"); power gives
// NaN there (power(-8.0, 1/3)); round rounds halves away from zero.
var (
	optDomainError = map[string]string{"rounding": "TIE_TO_EVEN", "on_domain_error": "ERROR", "on_log_zero": "ERROR"}
	optPower       = map[string]string{"rounding": "TIE_TO_EVEN", "on_domain_error": "NAN"}
	optRound       = map[string]string{"rounding": "TIE_AWAY_FROM_ZERO"}
)

// mathStringRef maps the DuckDB functions of the math and string families
// that have a standard Substrait counterpart with the same meaning and
// result type (scalarRef's cases first). Left out on purpose, because the
// meanings differ: sign (DuckDB returns TINYINT, 0 for NaN), round, ceil and
// floor of decimals (DuckDB changes the scale), left/right (negative counts),
// regexp_matches (Substrait has no boolean search).
func mathStringRef(name string, keys []string) (funcRef, bool) {
	one := len(keys) == 1
	float := one && (keys[0] == "fp64" || keys[0] == "fp32")
	switch {
	case (name == "ceil" || name == "ceiling") && float:
		return funcRef{urnRounding, "ceil:" + keys[0], nil}, true
	case name == "floor" && float:
		return funcRef{urnRounding, "floor:" + keys[0], nil}, true
	case name == "round" && len(keys) == 2 && keys[1] == "i32" && (keys[0] == "fp64" || keys[0] == "fp32"):
		return funcRef{urnRounding, "round:" + keys[0] + "_i32", optRound}, true
	case name == "sqrt" && keys2(keys, "fp64"):
		return funcRef{urnArithmetic, "sqrt:fp64", optDomainError}, true
	case name == "exp" && keys2(keys, "fp64"):
		return funcRef{urnArithmetic, "exp:fp64", map[string]string{"rounding": "TIE_TO_EVEN"}}, true
	case (name == "ln" || name == "log10") && keys2(keys, "fp64"):
		return funcRef{urnLogarithmic, name + ":fp64", optDomainError}, true
	case (name == "power" || name == "pow" || name == "**" || name == "^") && keys2(keys, "fp64", "fp64"):
		return funcRef{urnArithmetic, "power:fp64_fp64", optPower}, true
	case (name == "greatest" || name == "least") && len(keys) >= 2 && sameKeys(keys):
		// DuckDB's greatest/least skip NULL arguments (greatest(1, NULL)
		// is 1): the _skip_null variants.
		return funcRef{urnComparison, name + "_skip_null:any", nil}, true
	case name == "starts_with" && keys2(keys, "str", "str"):
		return funcRef{urnString, "starts_with:str_str", map[string]string{"case_sensitivity": "CASE_SENSITIVE"}}, true
	case name == "ends_with" && keys2(keys, "str", "str"):
		return funcRef{urnString, "ends_with:str_str", map[string]string{"case_sensitivity": "CASE_SENSITIVE"}}, true
	case name == "replace" && keys2(keys, "str", "str", "str"):
		return funcRef{urnString, "replace:str_str_str", map[string]string{"case_sensitivity": "CASE_SENSITIVE"}}, true
	case name == "reverse" && keys2(keys, "str"):
		return funcRef{urnString, "reverse:str", nil}, true
	case (name == "strpos" || name == "instr" || name == "position") && keys2(keys, "str", "str"):
		return funcRef{urnString, "strpos:str_str", map[string]string{"case_sensitivity": "CASE_SENSITIVE"}}, true
	case (name == "lpad" || name == "rpad") && keys2(keys, "str", "i32", "str"):
		return funcRef{urnString, name + ":str_i32_str", nil}, true
	case name == "repeat" && keys2(keys, "str", "i64"):
		return funcRef{urnString, "repeat:str_i64", nil}, true
	case (name == "trim" || name == "ltrim" || name == "rtrim") && keys2(keys, "str", "str"):
		return funcRef{urnString, name + ":str_str", nil}, true
	}
	return funcRef{}, false
}

func keys2(keys []string, want ...string) bool {
	if len(keys) != len(want) {
		return false
	}
	for i := range keys {
		if keys[i] != want[i] {
			return false
		}
	}
	return true
}

func sameKeys(keys []string) bool {
	for _, k := range keys {
		if k != keys[0] || k == "" {
			return false
		}
	}
	return true
}

// trimSpaces completes DuckDB's one-argument trim/ltrim/rtrim, which remove
// spaces, with Substrait's characters argument: a single space.
func trimSpaces(name string, args []*pb.Expression, types []colType) ([]*pb.Expression, []colType) {
	if (name != "trim" && name != "ltrim" && name != "rtrim") || len(args) != 1 {
		return args, types
	}
	space := &pb.Expression{RexType: &pb.Expression_Literal_{Literal: &pb.Expression_Literal{
		LiteralType: &pb.Expression_Literal_String_{String_: " "},
	}}}
	return append(args, space), append(types, colType{duck: duckType{ID: "VARCHAR"}})
}

// intSign converts DuckDB's sign of an integer, which is TINYINT, into
// Substrait's sign of that integer type (-1, 0 or 1 of the argument's type)
// cast to DuckDB's result type: the values are the same.
func (p *producer) intSign(x *pb.Expression, xt colType, out colType) (*pb.Expression, colType, error) {
	k := sigKey(xt.duck)
	s, st, err := p.call(funcRef{urnArithmetic, "sign:" + k, nil}, colType{duck: xt.duck, nullable: xt.nullable}, valueArgs(x)...)
	if err != nil {
		return nil, st, err
	}
	if sameType(st.duck, out.duck) {
		return s, st, nil
	}
	return p.castTo(s, out, false)
}

// decimalNegate converts -x of a DECIMAL or HUGEINT: the standard decimal
// extension has no negate, so it is 0 - x, the zero of x's own type, with
// DuckDB's result type (x's type: negation cannot overflow a decimal).
func (p *producer) decimalNegate(x *pb.Expression, xt colType, out colType) (*pb.Expression, colType, error) {
	width, scale := int32(38), int32(0) // HUGEINT
	if xt.duck.ID == "DECIMAL" {
		if xt.duck.TypeInfo == nil {
			return nil, out, fmt.Errorf("duckdb plan: DECIMAL without width and scale")
		}
		width, scale = xt.duck.TypeInfo.Width, xt.duck.TypeInfo.Scale
	}
	zero := &pb.Expression_Literal{}
	if err := setDecimalLiteral(zero, new(big.Int), width, scale); err != nil {
		return nil, out, err
	}
	return p.call(funcRef{urnArithmeticDec, "subtract:dec_dec", optIntArith}, out,
		valueArgs(&pb.Expression{RexType: &pb.Expression_Literal_{Literal: zero}}, x)...)
}

package functions

import (
	"fmt"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/substrait-io/substrait-go/v8/expr"
	"github.com/substrait-io/substrait-go/v8/testcases/parser"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

type expectKind int

const (
	expectValue     expectKind = iota
	expectError                // <!ERROR>: only a clean error passes
	expectUndefined            // <!UNDEFINED>: any value (or a clean error) passes
)

// expectation is what a case wants, independent of how substrait-go's
// parser stores it.
type expectation struct {
	kind expectKind
	typ  types.Type                // expectValue only
	lit  *proto.Expression_Literal // expectValue only; nil for a null result
}

// expectedOf is the one place that reads TestCase.Result: substrait-go is
// about to replace that field (an unreleased commit changes
// `Result *CaseLiteral`), and only this adapter should need to follow.
func expectedOf(tc *parser.TestCase) (expectation, error) {
	r := tc.Result
	if r == nil {
		return expectation{}, fmt.Errorf("case has no expected result")
	}
	if r.SubstraitError != nil {
		switch r.SubstraitError.Error {
		case "ERROR":
			return expectation{kind: expectError}, nil
		case "UNDEFINED":
			return expectation{kind: expectUndefined}, nil
		}
		return expectation{}, fmt.Errorf("unknown expected outcome %s", r.SubstraitError)
	}
	if r.Type == nil {
		return expectation{}, fmt.Errorf("expected result has no type")
	}
	e := expectation{kind: expectValue, typ: r.Type}
	switch v := r.Value.(type) {
	case nil, *expr.NullLiteral:
	case expr.Literal:
		p := v.ToProtoLiteral()
		if _, isNull := p.LiteralType.(*proto.Expression_Literal_Null); !isNull {
			e.lit = p
		}
	default:
		return expectation{}, fmt.Errorf("expected result %T is not a literal", r.Value)
	}
	return e, nil
}

// arrowTypeFor is the Arrow type rigel returns for a Substrait type, or an
// error for types rigel has no column representation of.
func arrowTypeFor(t types.Type) (arrow.DataType, error) {
	switch k := types.TypeToProto(t).Kind.(type) {
	case *proto.Type_Bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case *proto.Type_I8_:
		return arrow.PrimitiveTypes.Int8, nil
	case *proto.Type_I16_:
		return arrow.PrimitiveTypes.Int16, nil
	case *proto.Type_I32_:
		return arrow.PrimitiveTypes.Int32, nil
	case *proto.Type_I64_:
		return arrow.PrimitiveTypes.Int64, nil
	case *proto.Type_Fp32:
		return arrow.PrimitiveTypes.Float32, nil
	case *proto.Type_Fp64:
		return arrow.PrimitiveTypes.Float64, nil
	case *proto.Type_Date_:
		return arrow.FixedWidthTypes.Date32, nil
	case *proto.Type_Decimal_:
		return &arrow.Decimal128Type{Precision: k.Decimal.Precision, Scale: k.Decimal.Scale}, nil
	case *proto.Type_String_, *proto.Type_Varchar, *proto.Type_FixedChar_:
		return arrow.BinaryTypes.String, nil
	}
	if dt, ok := temporalArrowType(t); ok {
		return dt, nil
	}
	return nil, fmt.Errorf("type %s has no column representation in rigel", t)
}

// Float results compare to a relative tolerance: the spec writes some
// expected values rounded (a sum printed to 17 digits), and summation
// order may differ between engines. NaN equals NaN; infinities must match.
const (
	relTol64 = 1e-12
	relTol32 = 1e-6
)

func floatsMatch(got, want, tol float64) bool {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		return math.IsNaN(want) && math.IsNaN(got)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return got == want
	case got == want:
		return true
	}
	return math.Abs(got-want) <= tol*math.Max(math.Abs(got), math.Abs(want))
}

// check compares a one-row result column with the expectation; "" means
// it matches, otherwise the reason (grouping key) and the detail.
func check(e expectation, field arrow.Field, arr arrow.Array) (reason, detail string) {
	want, err := arrowTypeFor(e.typ)
	if err != nil {
		return "expected type not representable", err.Error()
	}
	if !arrow.TypeEqual(arr.DataType(), want) {
		return "wrong result type", fmt.Sprintf("got %s, want %s", arr.DataType(), want)
	}
	wantNullable := e.typ.GetNullability() == types.NullabilityNullable
	if field.Nullable != wantNullable {
		return "wrong result nullability", fmt.Sprintf("result column nullable=%v, want %s", field.Nullable, e.typ)
	}
	if arr.Len() != 1 {
		return "wrong row count", fmt.Sprintf("%d rows, want 1", arr.Len())
	}
	if e.lit == nil {
		if !arr.IsNull(0) {
			return "wrong value", fmt.Sprintf("got %s, want null", cellString(arr))
		}
		return "", ""
	}
	if arr.IsNull(0) {
		return "wrong value", "got null, want a value"
	}
	ok, wantText := matchValue(e.lit, arr)
	if !ok {
		return "wrong value", fmt.Sprintf("got %s, want %s", cellString(arr), wantText)
	}
	return "", ""
}

// matchValue compares row 0 of arr (same type as the literal, checked
// before) with the expected literal.
func matchValue(lit *proto.Expression_Literal, arr arrow.Array) (bool, string) {
	switch x := lit.LiteralType.(type) {
	case *proto.Expression_Literal_Boolean:
		a, ok := arr.(*array.Boolean)
		return ok && a.Value(0) == x.Boolean, fmt.Sprint(x.Boolean)
	case *proto.Expression_Literal_I8:
		a, ok := arr.(*array.Int8)
		return ok && int32(a.Value(0)) == x.I8, fmt.Sprint(x.I8)
	case *proto.Expression_Literal_I16:
		a, ok := arr.(*array.Int16)
		return ok && int32(a.Value(0)) == x.I16, fmt.Sprint(x.I16)
	case *proto.Expression_Literal_I32:
		a, ok := arr.(*array.Int32)
		return ok && a.Value(0) == x.I32, fmt.Sprint(x.I32)
	case *proto.Expression_Literal_I64:
		a, ok := arr.(*array.Int64)
		return ok && a.Value(0) == x.I64, fmt.Sprint(x.I64)
	case *proto.Expression_Literal_Fp32:
		a, ok := arr.(*array.Float32)
		return ok && floatsMatch(float64(a.Value(0)), float64(x.Fp32), relTol32), fmt.Sprint(x.Fp32)
	case *proto.Expression_Literal_Fp64:
		a, ok := arr.(*array.Float64)
		return ok && floatsMatch(a.Value(0), x.Fp64, relTol64), fmt.Sprint(x.Fp64)
	case *proto.Expression_Literal_Date:
		a, ok := arr.(*array.Date32)
		return ok && int32(a.Value(0)) == x.Date, fmt.Sprintf("date %d", x.Date)
	case *proto.Expression_Literal_Decimal_:
		a, ok := arr.(*array.Decimal128)
		if len(x.Decimal.Value) != 16 {
			return false, fmt.Sprintf("malformed decimal literal (%d bytes)", len(x.Decimal.Value))
		}
		want := decimalBytes(x.Decimal.Value)
		return ok && a.Value(0).BigInt().Cmp(want) == 0, decimalText(want, x.Decimal.Scale)
	case *proto.Expression_Literal_String_:
		a, ok := arr.(*array.String)
		return ok && a.Value(0) == x.String_, fmt.Sprintf("%q", x.String_)
	case *proto.Expression_Literal_VarChar_:
		a, ok := arr.(*array.String)
		return ok && a.Value(0) == x.VarChar.Value, fmt.Sprintf("%q", x.VarChar.Value)
	case *proto.Expression_Literal_FixedChar:
		a, ok := arr.(*array.String)
		return ok && a.Value(0) == x.FixedChar, fmt.Sprintf("%q", x.FixedChar)
	}
	if ok, want, handled := matchTemporal(lit, arr); handled {
		return ok, want
	}
	return false, fmt.Sprintf("a %T literal (no comparison for it yet)", lit.LiteralType)
}

// decimalBytes reads Substrait's 16-byte little-endian two's complement.
func decimalBytes(b []byte) *big.Int {
	// big.Int wants big-endian magnitude: reverse, then undo two's complement.
	be := make([]byte, 16)
	for i := range b {
		be[15-i] = b[i]
	}
	n := new(big.Int).SetBytes(be)
	if be[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	return n
}

// decimalText renders an unscaled value (16 bytes' worth) with its scale.
func decimalText(unscaled *big.Int, scale int32) string {
	if scale < -decimal128.MaxScale || scale > decimal128.MaxScale {
		return fmt.Sprintf("%s (scale %d)", unscaled, scale)
	}
	return decimal128.FromBigInt(unscaled).ToString(scale)
}

// cellString renders row 0 of a result column for messages.
func cellString(arr arrow.Array) string {
	if arr.Len() == 0 {
		return "(no rows)"
	}
	if arr.IsNull(0) {
		return "null"
	}
	if d, ok := arr.(*array.Decimal128); ok {
		return decimalText(d.Value(0).BigInt(), d.DataType().(*arrow.Decimal128Type).Scale)
	}
	return arr.ValueStr(0)
}

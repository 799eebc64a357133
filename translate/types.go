package translate

import (
	"fmt"
	"github.com/rigel-db/rigel/substrait"

	"github.com/rigel-db/rigel/gpu"
	"github.com/substrait-io/substrait-go/v8/types"
	proto "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// gpuType maps a Substrait type to the device type rigel computes it in.
func gpuType(t types.Type) (gpu.Type, error) {
	if t == nil {
		return gpu.Type{}, unsupported("an expression without a type")
	}
	p, err := substrait.TypeProto(t)
	if err != nil {
		return gpu.Type{}, unsupported(err.Error())
	}
	out := gpu.Type{Nullable: t.GetNullability() != types.NullabilityRequired}
	switch k := p.Kind.(type) {
	case *proto.Type_Bool:
		out.Kind = gpu.Bool
	case *proto.Type_I8_:
		out.Kind = gpu.Int8
	case *proto.Type_I16_:
		out.Kind = gpu.Int16
	case *proto.Type_I32_:
		out.Kind = gpu.Int32
	case *proto.Type_I64_:
		out.Kind = gpu.Int64
	case *proto.Type_Fp32:
		out.Kind = gpu.Float32
	case *proto.Type_Fp64:
		out.Kind = gpu.Float64
	case *proto.Type_Date_:
		out.Kind = gpu.Date32
	case *proto.Type_String_, *proto.Type_Varchar, *proto.Type_FixedChar_:
		out.Kind = gpu.Dict
	case *proto.Type_Decimal_:
		out = decimalType(k.Decimal.Precision, k.Decimal.Scale, out.Nullable)
	default:
		return gpu.Type{}, unsupported(fmt.Sprintf("type %s", t))
	}
	return out, nil
}

// decimalType picks the 64- or 128-bit representation for a precision.
func decimalType(precision, scale int32, nullable bool) gpu.Type {
	k := gpu.Decimal64
	if precision > 18 {
		k = gpu.Decimal128
	}
	return gpu.Type{Kind: k, Precision: precision, Scale: scale, Nullable: nullable}
}

// integerDigits is how many decimal digits an integer kind can need.
func integerDigits(k gpu.Kind) int32 {
	switch k {
	case gpu.Int8:
		return 3
	case gpu.Int16:
		return 5
	case gpu.Int32:
		return 10
	case gpu.Int64:
		return 19
	}
	return 0
}

// asDecimal is the decimal type that holds every value of t exactly.
func asDecimal(t gpu.Type) (gpu.Type, bool) {
	switch {
	case t.Kind == gpu.Decimal64 || t.Kind == gpu.Decimal128:
		return t, true
	case t.Kind == gpu.Int8 || t.Kind == gpu.Int16 || t.Kind == gpu.Int32 || t.Kind == gpu.Int64:
		return decimalType(integerDigits(t.Kind), 0, t.Nullable), true
	}
	return gpu.Type{}, false
}

func isDecimal(t gpu.Type) bool { return t.Kind == gpu.Decimal64 || t.Kind == gpu.Decimal128 }

func isInt(t gpu.Type) bool {
	switch t.Kind {
	case gpu.Int8, gpu.Int16, gpu.Int32, gpu.Int64:
		return true
	}
	return false
}

// wider returns the integer kind that holds both.
func widerInt(a, b gpu.Kind) gpu.Kind {
	if a.Width() >= b.Width() {
		return a
	}
	return b
}

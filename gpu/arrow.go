package gpu

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TypeOf maps an Arrow type to the device type it is uploaded as.
func TypeOf(dt arrow.DataType, nullable bool) (Type, error) {
	t := Type{Nullable: nullable}
	switch d := dt.(type) {
	case *arrow.BooleanType:
		t.Kind = Bool
	case *arrow.Int8Type:
		t.Kind = Int8
	case *arrow.Int16Type:
		t.Kind = Int16
	case *arrow.Int32Type:
		t.Kind = Int32
	case *arrow.Int64Type:
		t.Kind = Int64
	case *arrow.Float32Type:
		t.Kind = Float32
	case *arrow.Float64Type:
		t.Kind = Float64
	case *arrow.Date32Type:
		t.Kind = Date32
	case *arrow.StringType, *arrow.LargeStringType, *arrow.StringViewType:
		t.Kind = Dict
	case *arrow.DictionaryType:
		// Strings already encoded (a loader's, EncodeDictionary takes
		// their codes as they are when the dictionary is sorted).
		if !arrow.TypeEqual(d.IndexType, arrow.PrimitiveTypes.Int32) || !arrow.TypeEqual(d.ValueType, arrow.BinaryTypes.String) {
			return Type{}, fmt.Errorf("arrow type %s: %w", dt, ErrUnsupported)
		}
		t.Kind = Dict
	case *arrow.Decimal128Type:
		t.Kind, t.Precision, t.Scale = Decimal128, d.Precision, d.Scale
		if d.Precision <= 18 {
			t.Kind = Decimal64
		}
	case *arrow.Decimal64Type:
		t.Kind, t.Precision, t.Scale = Decimal64, d.Precision, d.Scale
	default:
		return Type{}, fmt.Errorf("arrow type %s: %w", dt, ErrUnsupported)
	}
	return t, nil
}

// ArrowType is the Arrow type a column of type t downloads as.
func ArrowType(t Type) arrow.DataType {
	switch t.Kind {
	case Bool:
		return arrow.FixedWidthTypes.Boolean
	case Int8:
		return arrow.PrimitiveTypes.Int8
	case Int16:
		return arrow.PrimitiveTypes.Int16
	case Int32:
		return arrow.PrimitiveTypes.Int32
	case Int64:
		return arrow.PrimitiveTypes.Int64
	case Float32:
		return arrow.PrimitiveTypes.Float32
	case Float64:
		return arrow.PrimitiveTypes.Float64
	case Date32:
		return arrow.FixedWidthTypes.Date32
	case Decimal64, Decimal128:
		return &arrow.Decimal128Type{Precision: t.Precision, Scale: t.Scale}
	case Dict, Str:
		return arrow.BinaryTypes.String
	}
	panic(fmt.Sprintf("gpu.ArrowType: unknown kind %v", t.Kind))
}

// Dictionary is a string column encoded for the device: Codes[i] indexes
// Values (sorted ascending by bytes, no duplicates); Valid is nil when no
// value is null, else Valid[i] is false for nulls (whose code is 0).
type Dictionary struct {
	Values *array.String
	Codes  []int32
	Valid  []bool
}

// MaxDictionary is the largest number of distinct strings a column may have
// to be uploaded. Beyond it Upload reports ErrUnsupported: strings in plain
// Arrow layout on the device come with a later version.
const MaxDictionary = 1 << 28

// stringValues abstracts utf8, large utf8 and string view arrays.
type stringValues interface {
	arrow.Array
	Value(i int) string
}

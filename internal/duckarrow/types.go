package duckarrow

import (
	"github.com/apache/arrow-go/v18/arrow"
	bindings "github.com/duckdb/duckdb-go-bindings"
)

// fixedType is a DuckDB type whose vectors hold its values exactly as an
// Arrow array's values buffer of arrowType does, width bytes each: what
// both readers of a column (QueryColumn's copier, ScatterColumn) copy as
// they are.
type fixedType struct {
	duck      bindings.Type
	arrowType arrow.DataType
	width     int
}

var fixedTypes = []fixedType{
	{bindings.TypeTinyInt, arrow.PrimitiveTypes.Int8, 1},
	{bindings.TypeSmallInt, arrow.PrimitiveTypes.Int16, 2},
	{bindings.TypeInteger, arrow.PrimitiveTypes.Int32, 4},
	{bindings.TypeBigInt, arrow.PrimitiveTypes.Int64, 8},
	{bindings.TypeFloat, arrow.PrimitiveTypes.Float32, 4},
	{bindings.TypeDouble, arrow.PrimitiveTypes.Float64, 8},
	{bindings.TypeDate, arrow.FixedWidthTypes.Date32, 4},
	{bindings.TypeTimestamp, &arrow.TimestampType{Unit: arrow.Microsecond}, 8},
}

// fixedOfDuck is the fixed type of DuckDB's type id.
func fixedOfDuck(id bindings.Type) (fixedType, bool) {
	for _, f := range fixedTypes {
		if f.duck == id {
			return f, true
		}
	}
	return fixedType{}, false
}

// fixedOfArrow is the fixed type an Arrow type is read from.
func fixedOfArrow(t arrow.DataType) (fixedType, bool) {
	for _, f := range fixedTypes {
		if arrow.TypeEqual(f.arrowType, t) {
			return f, true
		}
	}
	return fixedType{}, false
}

// decimalStorage is the integer type DuckDB stores a decimal of precision
// p in.
func decimalStorage(p int32) bindings.Type {
	switch {
	case p <= 4:
		return bindings.TypeSmallInt
	case p <= 9:
		return bindings.TypeInteger
	case p <= 18:
		return bindings.TypeBigInt
	}
	return bindings.TypeHugeInt
}

// decimalStorageWidth is the bytes of a decimal's storage integer (0: not
// one of them).
func decimalStorageWidth(id bindings.Type) int {
	switch id {
	case bindings.TypeSmallInt:
		return 2
	case bindings.TypeInteger:
		return 4
	case bindings.TypeBigInt:
		return 8
	case bindings.TypeHugeInt:
		return 16
	}
	return 0
}

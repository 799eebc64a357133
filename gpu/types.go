// Package gpu defines the Device interface that rigel's execution engine runs
// on, and the small typed kernel IR (expressions, pipelines, sinks) that every
// device implements with the same semantics.
//
// gpu knows nothing of SQL or Substrait: the translator lowers a query into
// Pipelines, and a Device (gpu/cuda on an NVIDIA GPU, gpu/host as the plain-Go
// reference) runs them over device-resident columns.
package gpu

import (
	"fmt"
	"math/big"
)

// Kind is the physical representation of a column's values.
type Kind uint8

const (
	// Bool: one byte per value on the device (0 or 1); Arrow's bit-packed
	// booleans are widened at upload and packed again at download.
	Bool Kind = iota + 1
	Int8
	Int16
	Int32
	Int64
	Float32
	Float64
	// Date32: int32 days since 1970-01-01 (Arrow date32).
	Date32
	// Decimal64: int64 unscaled value, with Precision (<=18) and Scale.
	Decimal64
	// Decimal128: two's complement 128-bit unscaled value stored as Arrow
	// does (little-endian: low uint64 then high int64), Precision <= 38.
	// HUGEINT is Decimal128 with scale 0.
	Decimal128
	// Dict: a string column, dictionary-encoded. The device holds int32 codes;
	// the dictionary (host side) is sorted ascending by bytes, so code order is
	// string order and code equality is string equality.
	Dict
	// Str: a string column in Arrow layout (ext_strings.go): an upload
	// holds an int32 offsets buffer of Len()+1 entries starting at 0, the
	// UTF-8 characters, and the validity. physical picks it for
	// high-cardinality columns; ext_strings.go lists the operations that
	// take it. Width is the offset's 4 bytes per value; the characters come
	// on top.
	Str
)

var kindNames = map[Kind]string{
	Bool: "bool", Int8: "int8", Int16: "int16", Int32: "int32", Int64: "int64",
	Float32: "float32", Float64: "float64", Date32: "date32",
	Decimal64: "decimal64", Decimal128: "decimal128", Dict: "dict", Str: "str",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Width is the size in bytes of one value on the device.
func (k Kind) Width() int {
	switch k {
	case Bool, Int8:
		return 1
	case Int16:
		return 2
	case Int32, Float32, Date32, Dict, Str:
		return 4
	case Int64, Float64, Decimal64:
		return 8
	case Decimal128:
		return 16
	}
	return 0
}

// IsInteger reports whether values are two's complement integers (decimals
// and dates included: they compare and add as integers).
func (k Kind) IsInteger() bool {
	switch k {
	case Int8, Int16, Int32, Int64, Date32, Decimal64, Decimal128:
		return true
	}
	return false
}

// IsFloat reports whether values are IEEE floats.
func (k Kind) IsFloat() bool { return k == Float32 || k == Float64 }

// Type is a column or expression type.
type Type struct {
	Kind Kind
	// Precision and Scale are set for Decimal64 and Decimal128 only.
	Precision int32
	Scale     int32
	// Nullable: values may be null. A column that is not nullable has no
	// validity bitmap on the device.
	Nullable bool
}

func (t Type) String() string {
	s := t.Kind.String()
	if t.Kind == Decimal64 || t.Kind == Decimal128 {
		s = fmt.Sprintf("%s(%d,%d)", s, t.Precision, t.Scale)
	}
	if t.Nullable {
		s += "?"
	}
	return s
}

// WithNullable returns t with Nullable set to n.
func (t Type) WithNullable(n bool) Type { t.Nullable = n; return t }

// Value is a literal in the kernel IR. Exactly one field is meaningful,
// chosen by the Type of the expression that holds it; Null marks a typed null.
type Value struct {
	Null bool
	I64  int64    // Bool (0/1), Int8..Int64, Date32, Decimal64, Dict (code)
	F64  float64  // Float32, Float64
	I128 *big.Int // Decimal128
}

package duckdbbridge

import (
	"fmt"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// colType is the type of one column or expression as the producer tracks it:
// DuckDB's own logical type (which always wins, see ProducePlan) and whether
// values may be null.
//
// Nullability rules (DuckDB's plan carries none, so the producer derives it
// the same way everywhere): table columns are nullable unless declared NOT
// NULL; literals are nullable only when they are NULL; functions,
// comparisons, casts and arithmetic are nullable when an argument is;
// division and modulus (NULL on division by zero), TRY_CAST, CASE without
// ELSE and every aggregate except count are nullable; IS [NOT] NULL and
// count never are.
type colType struct {
	duck     duckType
	nullable bool
	// rowID marks a scan output that stands in for DuckDB's virtual row id
	// (see producer.get); references to it are refused.
	rowID bool
}

// decimalCol is a DECIMAL(width, scale) column type, for values the
// producer computes itself (DuckDB's plan carries no type for them).
func decimalCol(width, scale int32, nullable bool) colType {
	return colType{duck: duckType{ID: "DECIMAL", TypeInfo: &struct {
		Type  string `json:"type"`
		Width int32  `json:"width"`
		Scale int32  `json:"scale"`
	}{Type: "DECIMAL_TYPE_INFO", Width: width, Scale: scale}}, nullable: nullable}
}

func (c colType) String() string {
	if c.nullable {
		return c.duck.String() + "?"
	}
	return c.duck.String()
}

func boolType(nullable bool) colType {
	return colType{duck: duckType{ID: "BOOLEAN"}, nullable: nullable}
}

func nullability(nullable bool) pb.Type_Nullability {
	if nullable {
		return pb.Type_NULLABILITY_NULLABLE
	}
	return pb.Type_NULLABILITY_REQUIRED
}

// substraitType maps a DuckDB type to its Substrait type.
//
// HUGEINT becomes DECIMAL(38,0): Substrait has no 128-bit integer, and the
// decimal holds every value DuckDB's sum over integers produces in practice
// (HUGEINT's range is about 1.7e38, decimal(38,0)'s is 1e38). Unsigned
// integers become the signed type that holds all their values
// (producer_unsigned.go). Nested and other types have no Substrait
// counterpart here and are reported as unsupported.
func substraitType(c colType) (*pb.Type, error) {
	n := nullability(c.nullable)
	if t, ok := unsignedSubstraitType(c.duck.ID, n); ok {
		return t, nil
	}
	switch c.duck.ID {
	case "BOOLEAN":
		return &pb.Type{Kind: &pb.Type_Bool{Bool: &pb.Type_Boolean{Nullability: n}}}, nil
	case "TINYINT":
		return &pb.Type{Kind: &pb.Type_I8_{I8: &pb.Type_I8{Nullability: n}}}, nil
	case "SMALLINT":
		return &pb.Type{Kind: &pb.Type_I16_{I16: &pb.Type_I16{Nullability: n}}}, nil
	case "INTEGER":
		return &pb.Type{Kind: &pb.Type_I32_{I32: &pb.Type_I32{Nullability: n}}}, nil
	case "BIGINT":
		return &pb.Type{Kind: &pb.Type_I64_{I64: &pb.Type_I64{Nullability: n}}}, nil
	case "HUGEINT":
		return decimalType(38, 0, n), nil
	case "FLOAT":
		return &pb.Type{Kind: &pb.Type_Fp32{Fp32: &pb.Type_FP32{Nullability: n}}}, nil
	case "DOUBLE":
		return &pb.Type{Kind: &pb.Type_Fp64{Fp64: &pb.Type_FP64{Nullability: n}}}, nil
	case "DECIMAL":
		if c.duck.TypeInfo == nil {
			return nil, fmt.Errorf("duckdb plan: DECIMAL type without width and scale")
		}
		return decimalType(c.duck.TypeInfo.Width, c.duck.TypeInfo.Scale, n), nil
	case "VARCHAR":
		return &pb.Type{Kind: &pb.Type_String_{String_: &pb.Type_String{Nullability: n}}}, nil
	case "BLOB":
		return &pb.Type{Kind: &pb.Type_Binary_{Binary: &pb.Type_Binary{Nullability: n}}}, nil
	case "DATE":
		return &pb.Type{Kind: &pb.Type_Date_{Date: &pb.Type_Date{Nullability: n}}}, nil
	case "TIME":
		return &pb.Type{Kind: &pb.Type_PrecisionTime_{PrecisionTime: &pb.Type_PrecisionTime{Precision: 6, Nullability: n}}}, nil
	case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS":
		return &pb.Type{Kind: &pb.Type_PrecisionTimestamp_{PrecisionTimestamp: &pb.Type_PrecisionTimestamp{Precision: timestampPrecision(c.duck.ID), Nullability: n}}}, nil
	case "TIMESTAMP WITH TIME ZONE":
		return &pb.Type{Kind: &pb.Type_PrecisionTimestampTz{PrecisionTimestampTz: &pb.Type_PrecisionTimestampTZ{Precision: 6, Nullability: n}}}, nil
	case "INTERVAL":
		// DuckDB intervals are (months, days, microseconds): Substrait's
		// compound interval holds exactly that.
		return &pb.Type{Kind: &pb.Type_IntervalCompound_{IntervalCompound: &pb.Type_IntervalCompound{Precision: 6, Nullability: n}}}, nil
	case "UUID":
		return &pb.Type{Kind: &pb.Type_Uuid{Uuid: &pb.Type_UUID{Nullability: n}}}, nil
	}
	return nil, unsupported("type %s", c.duck)
}

func decimalType(width, scale int32, n pb.Type_Nullability) *pb.Type {
	return &pb.Type{Kind: &pb.Type_Decimal_{Decimal: &pb.Type_Decimal{Precision: width, Scale: scale, Nullability: n}}}
}

// timestampPrecision is the number of fractional second digits of DuckDB's
// timestamp types (their stored unit).
func timestampPrecision(id string) int32 {
	switch id {
	case "TIMESTAMP_S":
		return 0
	case "TIMESTAMP_MS":
		return 3
	case "TIMESTAMP_NS":
		return 9
	}
	return 6
}

// sigKey is the short name Substrait's function signatures use for an
// argument of this type ("add:i32_i32", "sum:dec"...); "" when the type has
// none.
func sigKey(t duckType) string {
	switch t.ID {
	case "BOOLEAN":
		return "bool"
	case "TINYINT":
		return "i8"
	case "SMALLINT":
		return "i16"
	case "INTEGER":
		return "i32"
	case "BIGINT":
		return "i64"
	case "HUGEINT", "DECIMAL":
		return "dec"
	case "FLOAT":
		return "fp32"
	case "DOUBLE":
		return "fp64"
	case "VARCHAR":
		return "str"
	case "DATE":
		return "date"
	case "TIME":
		return "time"
	case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS":
		return "pts"
	case "TIMESTAMP WITH TIME ZONE":
		return "ptstz"
	case "INTERVAL":
		return "icompound"
	}
	return ""
}

// sameType reports whether two DuckDB types are identical (decimal width and
// scale included).
func sameType(a, b duckType) bool {
	if a.ID != b.ID {
		return false
	}
	if a.ID == "DECIMAL" {
		if a.TypeInfo == nil || b.TypeInfo == nil {
			return a.TypeInfo == b.TypeInfo
		}
		return a.TypeInfo.Width == b.TypeInfo.Width && a.TypeInfo.Scale == b.TypeInfo.Scale
	}
	return true
}

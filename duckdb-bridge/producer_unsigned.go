package duckdbbridge

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	pb "github.com/substrait-io/substrait-protobuf/go/substraitpb"
)

// DuckDB's unsigned integers (UTINYINT, USMALLINT, UINTEGER, UBIGINT) and
// Substrait, which has no unsigned types.
//
// The producer widens each unsigned type to the narrowest signed Substrait
// type that holds every one of its values:
//
//	UTINYINT  (0..255)        -> i16
//	USMALLINT (0..65535)      -> i32
//	UINTEGER  (0..4294967295) -> i64
//	UBIGINT   (0..2^64-1)     -> decimal(20,0)
//
// Widening keeps every value and the order between values, so the
// operations that only compare or carry values mean exactly the same on
// the widened type: scans, filters and join conditions (DuckDB itself casts
// an unsigned and a signed operand to a common signed type first: uti = ti
// compares CAST(uti AS SMALLINT) with CAST(ti AS SMALLINT)), GROUP BY,
// DISTINCT, ORDER BY, IN, BETWEEN, CASE, COALESCE, min, max, any_value,
// count, and sum and avg (DuckDB casts their unsigned argument to BIGINT or
// HUGEINT in the plan). Casts from an unsigned type to a wider one (signed
// or unsigned) cannot fail and map to the cast between the widened types;
// casts to a narrower signed type fail exactly when DuckDB's do (the
// widened value is out of the target's range).
//
// What widening would change is refused (ErrUnsupported: the engine runs
// the query on DuckDB, which gives its own answer or its own error):
//
//   - Scalar functions over or into an unsigned type: DuckDB's arithmetic on
//     unsigned types keeps the unsigned type and raises an error past its
//     range (UTINYINT 255 + 1, and 0 - 1, are errors), which the widened
//     arithmetic would not (256, -1).
//   - Casts into an unsigned type from anything but a narrower unsigned
//     type: DuckDB raises a conversion error for values outside the target
//     range (CAST(-1 AS UTINYINT)), which Substrait cannot express on the
//     widened type.
//
// Tables hands the scans the widened Arrow types (tables_unsigned.go), and
// the engine gives result columns whose DuckDB type is unsigned their
// Arrow unsigned type again (result_types.go), so that a query's answer
// has the same schema wherever it ran.

// unsignedRange is the largest value of an unsigned DuckDB type; ok is
// false for other types.
func unsignedRange(id string) (max uint64, ok bool) {
	switch id {
	case "UTINYINT":
		return 1<<8 - 1, true
	case "USMALLINT":
		return 1<<16 - 1, true
	case "UINTEGER":
		return 1<<32 - 1, true
	case "UBIGINT":
		return 1<<64 - 1, true
	}
	return 0, false
}

func isUnsigned(t duckType) bool {
	_, ok := unsignedRange(t.ID)
	return ok
}

// unsignedSubstraitType is the widened Substrait type of an unsigned DuckDB
// type; ok is false for other types.
func unsignedSubstraitType(id string, n pb.Type_Nullability) (*pb.Type, bool) {
	switch id {
	case "UTINYINT":
		return &pb.Type{Kind: &pb.Type_I16_{I16: &pb.Type_I16{Nullability: n}}}, true
	case "USMALLINT":
		return &pb.Type{Kind: &pb.Type_I32_{I32: &pb.Type_I32{Nullability: n}}}, true
	case "UINTEGER":
		return &pb.Type{Kind: &pb.Type_I64_{I64: &pb.Type_I64{Nullability: n}}}, true
	case "UBIGINT":
		return decimalType(20, 0, n), true
	}
	return nil, false
}

// widenedKey is the function signature key of a type's Substrait form:
// the widened type's key for an unsigned type, sigKey otherwise. Only for
// functions whose result is the same on the widened values (aggregates).
func widenedKey(t duckType) string {
	switch t.ID {
	case "UTINYINT":
		return "i16"
	case "USMALLINT":
		return "i32"
	case "UINTEGER":
		return "i64"
	case "UBIGINT":
		return "dec"
	}
	return sigKey(t)
}

// unsignedLiteral sets lit to the widened form of an unsigned constant;
// ok is false when v is not of an unsigned type.
func unsignedLiteral(lit *pb.Expression_Literal, v *duckValue) (ok bool, err error) {
	max, ok := unsignedRange(v.Type.ID)
	if !ok {
		return false, nil
	}
	u, err := strconv.ParseUint(string(v.Value), 10, 64)
	if err != nil {
		return true, err
	}
	if u > max {
		return true, fmt.Errorf("out of range")
	}
	switch v.Type.ID {
	case "UTINYINT":
		lit.LiteralType = &pb.Expression_Literal_I16{I16: int32(u)}
	case "USMALLINT":
		lit.LiteralType = &pb.Expression_Literal_I32{I32: int32(u)}
	case "UINTEGER":
		lit.LiteralType = &pb.Expression_Literal_I64{I64: int64(u)}
	default: // UBIGINT
		lit.LiteralType = &pb.Expression_Literal_Decimal_{Decimal: &pb.Expression_Literal_Decimal{
			Value: decimalBytes(new(big.Int).SetUint64(u)), Precision: 20, Scale: 0,
		}}
	}
	return true, nil
}

// checkUnsignedCast refuses a cast into an unsigned type that could fail
// in DuckDB (see the top of this file); a cast from a narrower (or the
// same) unsigned type cannot fail and passes, as does every cast from an
// unsigned type, whose widened form fails where DuckDB's does.
func checkUnsignedCast(from, to duckType) error {
	toMax, ok := unsignedRange(to.ID)
	if !ok {
		return nil
	}
	if fromMax, ok := unsignedRange(from.ID); ok && fromMax <= toMax {
		return nil
	}
	return unsupported("cast from %s to %s (Substrait has no unsigned types: the check of DuckDB's range 0..%d cannot be expressed on the widened type)", from, to, toMax)
}

// checkUnsignedFunction refuses a scalar function over or into an unsigned
// type (see the top of this file).
func checkUnsignedFunction(name string, args []colType, ret duckType) error {
	unsigned := isUnsigned(ret)
	for _, a := range args {
		unsigned = unsigned || isUnsigned(a.duck)
	}
	if !unsigned {
		return nil
	}
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = a.duck.String()
	}
	return unsupported("function %s(%s) -> %s (Substrait has no unsigned types: DuckDB's errors outside the unsigned range cannot be expressed on the widened types)", name, strings.Join(ts, ", "), ret)
}

package duckdbbridge

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rigel-db/rigel/internal/sqltext"
)

// Scans of unsigned columns. rigel's devices have no unsigned kinds and
// the producer writes DuckDB's unsigned types as the signed types that hold
// all their values (producer_unsigned.go), so Tables reads such a column
// through a cast to that type: DuckDB converts the values (exactly, every
// value fits) and hands the scan the Arrow type the plan declares.
//
//	UTINYINT  (Arrow uint8)  -> SMALLINT      (int16)
//	USMALLINT (Arrow uint16) -> INTEGER       (int32)
//	UINTEGER  (Arrow uint32) -> BIGINT        (int64)
//	UBIGINT   (Arrow uint64) -> DECIMAL(20,0) (decimal128(20,0))

// widenUnsigned gives the widened Arrow type of a column DuckDB hands over
// as dt, and the DuckDB SQL type that produces it; ok is false when dt is
// not an unsigned integer.
func widenUnsigned(dt arrow.DataType) (wide arrow.DataType, sqlType string, ok bool) {
	switch dt.ID() {
	case arrow.UINT8:
		return arrow.PrimitiveTypes.Int16, "SMALLINT", true
	case arrow.UINT16:
		return arrow.PrimitiveTypes.Int32, "INTEGER", true
	case arrow.UINT32:
		return arrow.PrimitiveTypes.Int64, "BIGINT", true
	case arrow.UINT64:
		return &arrow.Decimal128Type{Precision: 20, Scale: 0}, "DECIMAL(20,0)", true
	}
	return dt, "", false
}

// scanValueSQL is the expression that reads a column of the Arrow type
// DuckDB hands over as dt, widened when it is unsigned.
func scanValueSQL(name string, dt arrow.DataType) string {
	if _, t, ok := widenUnsigned(dt); ok {
		return "CAST(" + sqltext.Ident(name) + " AS " + t + ")"
	}
	return sqltext.Ident(name)
}

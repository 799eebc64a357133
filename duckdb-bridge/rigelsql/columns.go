package rigelsql

import (
	"fmt"
	"math/big"
	"reflect"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// column is a result column as DuckDB types it; the driver converts the
// Arrow values of a rigel result to the Go values duckdb-go would return
// for that type.
type column struct {
	name         string
	typ          duckdb.Type
	width, scale uint8 // DECIMAL
}

// scanTypes are the Go types duckdb-go returns, for the column types the
// driver converts. A query with a column of another type (LIST, STRUCT,
// MAP, ENUM, UUID, UNION, TIMETZ, BIT, ...) goes to DuckDB whole; so does
// UHUGEINT, which DuckDB's Arrow output cannot hold (decimal128(38) wraps).
var scanTypes = map[duckdb.Type]reflect.Type{
	duckdb.TYPE_BOOLEAN:      reflect.TypeFor[bool](),
	duckdb.TYPE_TINYINT:      reflect.TypeFor[int8](),
	duckdb.TYPE_SMALLINT:     reflect.TypeFor[int16](),
	duckdb.TYPE_INTEGER:      reflect.TypeFor[int32](),
	duckdb.TYPE_BIGINT:       reflect.TypeFor[int64](),
	duckdb.TYPE_UTINYINT:     reflect.TypeFor[uint8](),
	duckdb.TYPE_USMALLINT:    reflect.TypeFor[uint16](),
	duckdb.TYPE_UINTEGER:     reflect.TypeFor[uint32](),
	duckdb.TYPE_UBIGINT:      reflect.TypeFor[uint64](),
	duckdb.TYPE_FLOAT:        reflect.TypeFor[float32](),
	duckdb.TYPE_DOUBLE:       reflect.TypeFor[float64](),
	duckdb.TYPE_HUGEINT:      reflect.TypeFor[*big.Int](),
	duckdb.TYPE_DECIMAL:      reflect.TypeFor[duckdb.Decimal](),
	duckdb.TYPE_VARCHAR:      reflect.TypeFor[string](),
	duckdb.TYPE_BLOB:         reflect.TypeFor[[]byte](),
	duckdb.TYPE_DATE:         reflect.TypeFor[time.Time](),
	duckdb.TYPE_TIME:         reflect.TypeFor[time.Time](),
	duckdb.TYPE_TIMESTAMP:    reflect.TypeFor[time.Time](),
	duckdb.TYPE_TIMESTAMP_S:  reflect.TypeFor[time.Time](),
	duckdb.TYPE_TIMESTAMP_MS: reflect.TypeFor[time.Time](),
	duckdb.TYPE_TIMESTAMP_NS: reflect.TypeFor[time.Time](),
	duckdb.TYPE_TIMESTAMP_TZ: reflect.TypeFor[time.Time](),
	duckdb.TYPE_INTERVAL:     reflect.TypeFor[duckdb.Interval](),
}

// typeNames are duckdb-go's database type names (ColumnTypeDatabaseTypeName).
var typeNames = map[duckdb.Type]string{
	duckdb.TYPE_BOOLEAN: "BOOLEAN", duckdb.TYPE_TINYINT: "TINYINT", duckdb.TYPE_SMALLINT: "SMALLINT",
	duckdb.TYPE_INTEGER: "INTEGER", duckdb.TYPE_BIGINT: "BIGINT", duckdb.TYPE_UTINYINT: "UTINYINT",
	duckdb.TYPE_USMALLINT: "USMALLINT", duckdb.TYPE_UINTEGER: "UINTEGER", duckdb.TYPE_UBIGINT: "UBIGINT",
	duckdb.TYPE_FLOAT: "FLOAT", duckdb.TYPE_DOUBLE: "DOUBLE", duckdb.TYPE_HUGEINT: "HUGEINT",
	duckdb.TYPE_UHUGEINT: "UHUGEINT", duckdb.TYPE_VARCHAR: "VARCHAR", duckdb.TYPE_BLOB: "BLOB",
	duckdb.TYPE_DATE: "DATE", duckdb.TYPE_TIME: "TIME", duckdb.TYPE_TIMESTAMP: "TIMESTAMP",
	duckdb.TYPE_TIMESTAMP_S: "TIMESTAMP_S", duckdb.TYPE_TIMESTAMP_MS: "TIMESTAMP_MS",
	duckdb.TYPE_TIMESTAMP_NS: "TIMESTAMP_NS", duckdb.TYPE_TIMESTAMP_TZ: "TIMESTAMPTZ",
	duckdb.TYPE_INTERVAL: "INTERVAL",
}

func (c column) dbTypeName() string {
	if c.typ == duckdb.TYPE_DECIMAL {
		return fmt.Sprintf("DECIMAL(%d,%d)", c.width, c.scale)
	}
	return typeNames[c.typ]
}

// resultColumns reads a prepared query's result columns; an error when a
// column's type is one the driver does not convert.
func resultColumns(st *duckdb.Stmt) ([]column, error) {
	n, err := st.ColumnCount()
	if err != nil {
		return nil, err
	}
	cols := make([]column, n)
	for i := range cols {
		name, err := st.ColumnName(i)
		if err != nil {
			return nil, err
		}
		info, err := st.ColumnTypeInfo(i)
		if err != nil {
			return nil, err
		}
		c := column{name: name, typ: info.InternalType()}
		if _, ok := scanTypes[c.typ]; !ok {
			return nil, fmt.Errorf("column %s: type %d is not converted by the driver", name, c.typ)
		}
		if d, ok := info.Details().(*duckdb.DecimalDetails); ok {
			c.width, c.scale = d.Width, d.Scale
		}
		cols[i] = c
	}
	return cols, nil
}

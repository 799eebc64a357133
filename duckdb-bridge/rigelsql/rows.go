package rigelsql

import (
	"database/sql/driver"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
	duckdbbridge "github.com/rigel-db/rigel/duckdb-bridge"
)

// arrowRows hands out a rigel result row by row, each value of the Go
// type duckdb-go returns for the column's DuckDB type.
type arrowRows struct {
	st   *duckdbbridge.Stream
	cols []column
	rec  arrow.RecordBatch
	row  int64
}

var (
	_ driver.RowsColumnTypeScanType         = (*arrowRows)(nil)
	_ driver.RowsColumnTypeDatabaseTypeName = (*arrowRows)(nil)
)

func newArrowRows(st *duckdbbridge.Stream, cols []column) *arrowRows {
	return &arrowRows{st: st, cols: cols}
}

func (r *arrowRows) Columns() []string {
	names := make([]string, len(r.cols))
	for i, c := range r.cols {
		names[i] = c.name
	}
	return names
}

func (r *arrowRows) Close() error {
	if r.st != nil {
		r.st.Release()
		r.st = nil
	}
	return nil
}

func (r *arrowRows) ColumnTypeScanType(i int) reflect.Type { return scanTypes[r.cols[i].typ] }

func (r *arrowRows) ColumnTypeDatabaseTypeName(i int) string { return r.cols[i].dbTypeName() }

func (r *arrowRows) Next(dest []driver.Value) error {
	if r.st == nil {
		return io.EOF
	}
	for r.rec == nil || r.row >= r.rec.NumRows() {
		if !r.st.Next() {
			if err := r.st.Err(); err != nil {
				return err
			}
			return io.EOF
		}
		r.rec, r.row = r.st.RecordBatch(), 0
	}
	for j, c := range r.cols {
		a := r.rec.Column(j)
		if a.IsNull(int(r.row)) {
			dest[j] = nil
			continue
		}
		v, err := goValue(c, a, int(r.row))
		if err != nil {
			return fmt.Errorf("rigel: column %s: %w", c.name, err)
		}
		dest[j] = v
	}
	r.row++
	return nil
}

// goValue converts a non-null Arrow value to duckdb-go's Go value for the
// column's DuckDB type. The Arrow type is DuckDB's own (a fallback) or the
// device's (gpu.ArrowType), which may be wider or narrower than DuckDB's
// for the same SQL type; values convert exactly or give an error.
func goValue(c column, a arrow.Array, i int) (driver.Value, error) {
	// The common exact matches first, without a big.Int per value.
	switch x := a.(type) {
	case *array.Int64:
		if c.typ == duckdb.TYPE_BIGINT {
			return x.Value(i), nil
		}
	case *array.Int32:
		if c.typ == duckdb.TYPE_INTEGER {
			return x.Value(i), nil
		}
	case *array.Int16:
		if c.typ == duckdb.TYPE_SMALLINT {
			return x.Value(i), nil
		}
	case *array.Int8:
		if c.typ == duckdb.TYPE_TINYINT {
			return x.Value(i), nil
		}
	}
	switch c.typ {
	case duckdb.TYPE_BOOLEAN:
		if b, ok := a.(*array.Boolean); ok {
			return b.Value(i), nil
		}
	case duckdb.TYPE_TINYINT, duckdb.TYPE_SMALLINT, duckdb.TYPE_INTEGER, duckdb.TYPE_BIGINT,
		duckdb.TYPE_UTINYINT, duckdb.TYPE_USMALLINT, duckdb.TYPE_UINTEGER, duckdb.TYPE_UBIGINT:
		n, ok := intValue(a, i)
		if !ok {
			break
		}
		return narrowInt(c.typ, n)
	case duckdb.TYPE_HUGEINT, duckdb.TYPE_UHUGEINT:
		if n, ok := intValue(a, i); ok {
			return n, nil
		}
	case duckdb.TYPE_FLOAT:
		switch x := a.(type) {
		case *array.Float32:
			return x.Value(i), nil
		case *array.Float64:
			return float32(x.Value(i)), nil
		}
	case duckdb.TYPE_DOUBLE:
		switch x := a.(type) {
		case *array.Float64:
			return x.Value(i), nil
		case *array.Float32:
			return float64(x.Value(i)), nil
		}
	case duckdb.TYPE_DECIMAL:
		v, scale, ok := unscaled(a, i)
		if !ok {
			break
		}
		v, err := rescale(v, scale, int32(c.scale))
		if err != nil {
			return nil, err
		}
		return duckdb.Decimal{Width: c.width, Scale: c.scale, Value: v}, nil
	case duckdb.TYPE_VARCHAR:
		if s, ok := stringValue(a, i); ok {
			return s, nil
		}
	case duckdb.TYPE_BLOB:
		if b, ok := bytesValue(a, i); ok {
			return b, nil
		}
	case duckdb.TYPE_DATE:
		switch x := a.(type) {
		case *array.Date32:
			y, m, d := x.Value(i).ToTime().Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
		case *array.Date64:
			y, m, d := x.Value(i).ToTime().Date()
			return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), nil
		}
	case duckdb.TYPE_TIME:
		var d time.Duration
		switch x := a.(type) {
		case *array.Time64:
			d = time.Duration(x.Value(i)) * x.DataType().(*arrow.Time64Type).Unit.Multiplier()
		case *array.Time32:
			d = time.Duration(x.Value(i)) * x.DataType().(*arrow.Time32Type).Unit.Multiplier()
		default:
			return nil, mismatch(c, a)
		}
		return time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC).Add(d), nil
	case duckdb.TYPE_TIMESTAMP, duckdb.TYPE_TIMESTAMP_S, duckdb.TYPE_TIMESTAMP_MS, duckdb.TYPE_TIMESTAMP_NS, duckdb.TYPE_TIMESTAMP_TZ:
		if x, ok := a.(*array.Timestamp); ok {
			v := int64(x.Value(i))
			switch x.DataType().(*arrow.TimestampType).Unit {
			case arrow.Second:
				return time.Unix(v, 0).UTC(), nil
			case arrow.Millisecond:
				return time.UnixMilli(v).UTC(), nil
			case arrow.Microsecond:
				return time.UnixMicro(v).UTC(), nil
			case arrow.Nanosecond:
				return time.Unix(0, v).UTC(), nil
			}
		}
	case duckdb.TYPE_INTERVAL:
		if x, ok := a.(*array.MonthDayNanoInterval); ok {
			v := x.Value(i)
			return duckdb.Interval{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000}, nil
		}
	}
	return nil, mismatch(c, a)
}

func mismatch(c column, a arrow.Array) error {
	return fmt.Errorf("a %s value came back as Arrow %s, which the driver does not convert to it", c.dbTypeName(), a.DataType())
}

// intValue reads an integer (or a decimal of scale 0) as a big.Int.
func intValue(a arrow.Array, i int) (*big.Int, bool) {
	switch x := a.(type) {
	case *array.Int8:
		return big.NewInt(int64(x.Value(i))), true
	case *array.Int16:
		return big.NewInt(int64(x.Value(i))), true
	case *array.Int32:
		return big.NewInt(int64(x.Value(i))), true
	case *array.Int64:
		return big.NewInt(x.Value(i)), true
	case *array.Uint8:
		return big.NewInt(int64(x.Value(i))), true
	case *array.Uint16:
		return big.NewInt(int64(x.Value(i))), true
	case *array.Uint32:
		return big.NewInt(int64(x.Value(i))), true
	case *array.Uint64:
		return new(big.Int).SetUint64(x.Value(i)), true
	}
	if v, scale, ok := unscaled(a, i); ok && scale == 0 {
		return v, true
	}
	return nil, false
}

// narrowInt converts to the Go integer type of a DuckDB integer type; a
// value out of its range is an error (the device computed a wrong type).
func narrowInt(t duckdb.Type, n *big.Int) (driver.Value, error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch t {
	case duckdb.TYPE_TINYINT:
		lo, hi = math.MinInt8, math.MaxInt8
	case duckdb.TYPE_SMALLINT:
		lo, hi = math.MinInt16, math.MaxInt16
	case duckdb.TYPE_INTEGER:
		lo, hi = math.MinInt32, math.MaxInt32
	case duckdb.TYPE_UTINYINT:
		lo, hi = 0, math.MaxUint8
	case duckdb.TYPE_USMALLINT:
		lo, hi = 0, math.MaxUint16
	case duckdb.TYPE_UINTEGER:
		lo, hi = 0, math.MaxUint32
	case duckdb.TYPE_UBIGINT:
		if n.Sign() < 0 || !n.IsUint64() {
			return nil, fmt.Errorf("value %s out of the range of UBIGINT", n)
		}
		return n.Uint64(), nil
	}
	if !n.IsInt64() || n.Int64() < lo || n.Int64() > hi {
		return nil, fmt.Errorf("value %s out of the range of %s", n, typeNames[t])
	}
	v := n.Int64()
	switch t {
	case duckdb.TYPE_TINYINT:
		return int8(v), nil
	case duckdb.TYPE_SMALLINT:
		return int16(v), nil
	case duckdb.TYPE_INTEGER:
		return int32(v), nil
	case duckdb.TYPE_UTINYINT:
		return uint8(v), nil
	case duckdb.TYPE_USMALLINT:
		return uint16(v), nil
	case duckdb.TYPE_UINTEGER:
		return uint32(v), nil
	}
	return v, nil
}

// unscaled reads a decimal's unscaled value and scale.
func unscaled(a arrow.Array, i int) (*big.Int, int32, bool) {
	switch x := a.(type) {
	case *array.Decimal128:
		return x.Value(i).BigInt(), x.DataType().(*arrow.Decimal128Type).Scale, true
	case *array.Decimal64:
		return big.NewInt(int64(x.Value(i))), x.DataType().(*arrow.Decimal64Type).Scale, true
	case *array.Decimal32:
		return big.NewInt(int64(x.Value(i))), x.DataType().(*arrow.Decimal32Type).Scale, true
	case *array.Decimal256:
		return x.Value(i).BigInt(), x.DataType().(*arrow.Decimal256Type).Scale, true
	}
	if n, ok := intValue(a, i); ok {
		return n, 0, true
	}
	return nil, 0, false
}

// rescale changes an unscaled decimal from one scale to another, exactly.
func rescale(v *big.Int, from, to int32) (*big.Int, error) {
	if from == to {
		return v, nil
	}
	if from < to {
		return new(big.Int).Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(to-from)), nil)), nil
	}
	q, r := new(big.Int).QuoRem(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(from-to)), nil), new(big.Int))
	if r.Sign() != 0 {
		return nil, fmt.Errorf("decimal %s with scale %d does not fit scale %d", v, from, to)
	}
	return q, nil
}

func stringValue(a arrow.Array, i int) (string, bool) {
	switch x := a.(type) {
	// Arrow's Value aliases the batch's buffer, which is freed with the
	// batch: the caller keeps the string longer.
	case *array.String:
		return strings.Clone(x.Value(i)), true
	case *array.LargeString:
		return strings.Clone(x.Value(i)), true
	case *array.StringView:
		return strings.Clone(x.Value(i)), true
	case *array.Dictionary:
		return stringValue(x.Dictionary(), x.GetValueIndex(i))
	}
	return "", false
}

func bytesValue(a arrow.Array, i int) ([]byte, bool) {
	var b []byte
	switch x := a.(type) {
	case *array.Binary:
		b = x.Value(i)
	case *array.LargeBinary:
		b = x.Value(i)
	case *array.BinaryView:
		b = x.Value(i)
	case *array.FixedSizeBinary:
		b = x.Value(i)
	default:
		return nil, false
	}
	return append([]byte{}, b...), true
}

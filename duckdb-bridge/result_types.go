package duckdbbridge

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A query's answer must not depend on where it ran: the result columns of a
// device run get the Arrow types DuckDB itself returns where the device's
// differ.
//
//   - The device computes DuckDB's unsigned columns in their widened signed
//     types (producer_unsigned.go): they get their unsigned Arrow type back
//     (UTINYINT uint8, USMALLINT uint16, UINTEGER uint32, UBIGINT uint64).
//   - The translator drops a cast that only widens a decimal's precision
//     (the values need no work), so CAST(ubi AS HUGEINT) comes back as
//     decimal128(20,0) where DuckDB says decimal128(38,0): such a column is
//     relabelled with DuckDB's precision (the same values and buffers).

// resultTypes gives, per output column of a plan, the Arrow type DuckDB
// returns for it where the device's may differ (nil for the others); nil
// when there is no such column.
func resultTypes(out []colType) []arrow.DataType {
	var types []arrow.DataType
	for i, c := range out {
		var dt arrow.DataType
		switch c.duck.ID {
		case "HUGEINT":
			dt = &arrow.Decimal128Type{Precision: 38, Scale: 0}
		case "DECIMAL":
			if c.duck.TypeInfo == nil {
				continue
			}
			dt = &arrow.Decimal128Type{Precision: c.duck.TypeInfo.Width, Scale: c.duck.TypeInfo.Scale}
		case "UTINYINT":
			dt = arrow.PrimitiveTypes.Uint8
		case "USMALLINT":
			dt = arrow.PrimitiveTypes.Uint16
		case "UINTEGER":
			dt = arrow.PrimitiveTypes.Uint32
		case "UBIGINT":
			dt = arrow.PrimitiveTypes.Uint64
		default:
			continue
		}
		if types == nil {
			types = make([]arrow.DataType, len(out))
		}
		types[i] = dt
	}
	return types
}

// retypeResult gives the result columns the types of resultTypes (nil:
// nothing to do): widened unsigned columns are converted, narrower decimals
// of the same scale relabelled; other columns are left as they are. It
// takes over the caller's reference to rec. A value outside the unsigned
// range is an error: the producer refuses every expression that could make
// one, so it would be a bug, never to be wrapped silently.
func retypeResult(rec arrow.RecordBatch, types []arrow.DataType) (arrow.RecordBatch, error) {
	if types == nil {
		return rec, nil
	}
	defer rec.Release()
	if int(rec.NumCols()) != len(types) {
		return nil, fmt.Errorf("result of %d columns, the plan has %d", rec.NumCols(), len(types))
	}
	fields := rec.Schema().Fields()
	cols := make([]arrow.Array, len(types))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, dt := range types {
		in := rec.Column(i)
		if dt == nil || arrow.TypeEqual(in.DataType(), dt) {
			in.Retain()
			cols[i] = in
			continue
		}
		if want, ok := dt.(*arrow.Decimal128Type); ok {
			got, ok := in.DataType().(*arrow.Decimal128Type)
			if ok && got.Scale == want.Scale && got.Precision < want.Precision {
				d := array.NewData(dt, in.Len(), in.Data().Buffers(), nil, in.NullN(), in.Data().Offset())
				cols[i] = array.MakeFromData(d)
				d.Release()
				fields[i].Type = dt
			} else {
				in.Retain()
				cols[i] = in
			}
			continue
		}
		out, err := toUnsigned(in, dt)
		if err != nil {
			return nil, fmt.Errorf("result column %q: %w", fields[i].Name, err)
		}
		cols[i] = out
		fields[i].Type = dt
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows()), nil
}

// toUnsigned converts one widened column (int16, int32, int64 or
// decimal128(p,0)) to the unsigned type dt.
func toUnsigned(a arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	var max uint64
	switch dt.ID() {
	case arrow.UINT8:
		max = 1<<8 - 1
	case arrow.UINT16:
		max = 1<<16 - 1
	case arrow.UINT32:
		max = 1<<32 - 1
	case arrow.UINT64:
		max = 1<<64 - 1
	default:
		return nil, fmt.Errorf("no unsigned retype into %s", dt)
	}
	// value reads row i as an unsigned value, or reports it out of range.
	var value func(i int) (uint64, bool)
	switch in := a.(type) {
	case *array.Int16:
		value = func(i int) (uint64, bool) { v := in.Value(i); return uint64(v), v >= 0 }
	case *array.Int32:
		value = func(i int) (uint64, bool) { v := in.Value(i); return uint64(v), v >= 0 }
	case *array.Int64:
		value = func(i int) (uint64, bool) { v := in.Value(i); return uint64(v), v >= 0 }
	case *array.Decimal128:
		if t := in.DataType().(*arrow.Decimal128Type); t.Scale != 0 {
			return nil, fmt.Errorf("an unsigned result computed as %s", t)
		}
		value = func(i int) (uint64, bool) { v := in.Value(i); return v.LowBits(), v.HighBits() == 0 }
	default:
		return nil, fmt.Errorf("an unsigned result computed as %s", a.DataType())
	}
	b := array.NewBuilder(memory.DefaultAllocator, dt)
	defer b.Release()
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		v, ok := value(i)
		if !ok || v > max {
			return nil, fmt.Errorf("value at row %d is outside the range of %s (a rigel bug: the producer refuses what could leave the range)", i, dt)
		}
		switch bb := b.(type) {
		case *array.Uint8Builder:
			bb.Append(uint8(v))
		case *array.Uint16Builder:
			bb.Append(uint16(v))
		case *array.Uint32Builder:
			bb.Append(uint32(v))
		case *array.Uint64Builder:
			bb.Append(v)
		}
	}
	return b.NewArray(), nil
}

package devicetest

import (
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/rigel-db/rigel/gpu"
)

// Arrow types used throughout the battery.
var (
	Bool    = arrow.FixedWidthTypes.Boolean
	I8      = arrow.PrimitiveTypes.Int8
	I16     = arrow.PrimitiveTypes.Int16
	I32     = arrow.PrimitiveTypes.Int32
	I64     = arrow.PrimitiveTypes.Int64
	F32     = arrow.PrimitiveTypes.Float32
	F64     = arrow.PrimitiveTypes.Float64
	Date    = arrow.FixedWidthTypes.Date32
	String  = arrow.BinaryTypes.String
	LString = arrow.BinaryTypes.LargeString
)

// Dec returns the Arrow decimal128(p, s) type.
func Dec(p, s int32) arrow.DataType { return &arrow.Decimal128Type{Precision: p, Scale: s} }

// MakeArray builds an Arrow array of type dt. Each value is nil (null) or:
// bool (boolean); int/int64 (integers, date32 days, decimal unscaled);
// *big.Int (decimal unscaled); float64 (floats); string (strings, or a
// "YYYY-MM-DD" date). A value that does not fit dt panics: the battery's
// inputs are written by hand or generated in range.
func MakeArray(dt arrow.DataType, vals ...any) arrow.Array {
	mem := memory.DefaultAllocator
	switch d := dt.(type) {
	case *arrow.BooleanType:
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(v.(bool))
			}
		}
		return b.NewArray()
	case *arrow.Int8Type:
		b := array.NewInt8Builder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(int8(mustInt(v, -1<<7, 1<<7-1)))
			}
		}
		return b.NewArray()
	case *arrow.Int16Type:
		b := array.NewInt16Builder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(int16(mustInt(v, -1<<15, 1<<15-1)))
			}
		}
		return b.NewArray()
	case *arrow.Int32Type:
		b := array.NewInt32Builder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(int32(mustInt(v, -1<<31, 1<<31-1)))
			}
		}
		return b.NewArray()
	case *arrow.Int64Type:
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(mustInt(v, -1<<63, 1<<63-1))
			}
		}
		return b.NewArray()
	case *arrow.Float32Type:
		b := array.NewFloat32Builder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(float32(v.(float64)))
			}
		}
		return b.NewArray()
	case *arrow.Float64Type:
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(v.(float64))
			}
		}
		return b.NewArray()
	case *arrow.Date32Type:
		b := array.NewDate32Builder(mem)
		defer b.Release()
		for _, v := range vals {
			switch x := v.(type) {
			case nil:
				b.AppendNull()
			case string:
				b.Append(arrow.Date32(ParseDate(x)))
			default:
				b.Append(arrow.Date32(mustInt(v, -1<<31, 1<<31-1)))
			}
		}
		return b.NewArray()
	case *arrow.Decimal128Type:
		b := array.NewDecimal128Builder(mem, d)
		defer b.Release()
		for _, v := range vals {
			switch x := v.(type) {
			case nil:
				b.AppendNull()
			case *big.Int:
				if x.BitLen() > 127 {
					panic(fmt.Sprintf("devicetest: %s does not fit 128 bits", x))
				}
				b.Append(decimal128.FromBigInt(x))
			default:
				b.Append(decimal128.FromI64(mustInt(v, -1<<63, 1<<63-1)))
			}
		}
		return b.NewArray()
	case *arrow.StringType:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(v.(string))
			}
		}
		return b.NewArray()
	case *arrow.LargeStringType:
		b := array.NewLargeStringBuilder(mem)
		defer b.Release()
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(v.(string))
			}
		}
		return b.NewArray()
	}
	panic(fmt.Sprintf("devicetest.MakeArray: type %s not supported", dt))
}

func mustInt(v any, lo, hi int64) int64 {
	var x int64
	switch n := v.(type) {
	case int:
		x = int64(n)
	case int64:
		x = n
	case int32:
		x = int64(n)
	default:
		panic(fmt.Sprintf("devicetest: %T is not an integer", v))
	}
	if x < lo || x > hi {
		panic(fmt.Sprintf("devicetest: %d out of range [%d, %d]", x, lo, hi))
	}
	return x
}

// ParseDate turns "YYYY-MM-DD" into days since 1970-01-01.
func ParseDate(s string) int32 {
	tm, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return int32(tm.Unix() / 86400)
}

// Upload uploads arr to dev and releases arr, failing the test on error.
func Upload(t testing.TB, dev gpu.Device, arr arrow.Array) gpu.Column {
	t.Helper()
	defer arr.Release()
	c, err := dev.Upload(context.Background(), arr)
	if err != nil {
		t.Fatalf("upload %s: %v", arr.DataType(), err)
	}
	return c
}

// ReleaseCols releases every non-nil column.
func ReleaseCols(cols []gpu.Column) {
	for _, c := range cols {
		if c != nil {
			c.Release()
		}
	}
}

// Cell helpers for writing expectations.

// I renders an integer cell.
func I(v int64) string { return fmt.Sprint(v) }

// D renders a decimal cell from its unscaled value.
func D(unscaled int64, scale int32) string { return FormatDecimal(big.NewInt(unscaled), scale) }

// S renders a string cell.
func S(s string) string { return fmt.Sprintf("%q", s) }

// F renders a float cell.
func F(f float64) string { return FloatPrefix + formatFloat(f) }

// B renders a boolean cell.
func B(b bool) string { return fmt.Sprint(b) }

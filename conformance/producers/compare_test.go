package producers

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func oneColumn(t *testing.T, typ arrow.DataType, add func(b array.Builder)) arrow.RecordBatch {
	t.Helper()
	b := array.NewBuilder(memory.DefaultAllocator, typ)
	add(b)
	arr := b.NewArray()
	return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: typ, Nullable: true}}, nil), []arrow.Array{arr}, int64(arr.Len()))
}

func dec(t *testing.T, scale int32, unscaled int64) arrow.RecordBatch {
	return oneColumn(t, &arrow.Decimal128Type{Precision: 38, Scale: scale}, func(b array.Builder) {
		b.(*array.Decimal128Builder).Append(decimal128.FromI64(unscaled))
	})
}

func f64(t *testing.T, v float64) arrow.RecordBatch {
	return oneColumn(t, arrow.PrimitiveTypes.Float64, func(b array.Builder) { b.(*array.Float64Builder).Append(v) })
}

func i64(t *testing.T, v int64) arrow.RecordBatch {
	return oneColumn(t, arrow.PrimitiveTypes.Int64, func(b array.Builder) { b.(*array.Int64Builder).Append(v) })
}

func TestCompareAcrossTypes(t *testing.T) {
	cases := []struct {
		name      string
		got, want arrow.RecordBatch
		equal     bool
	}{
		{"decimal equals integer as numbers", dec(t, 2, 700), i64(t, 7), true},
		{"decimal differs from integer", dec(t, 2, 701), i64(t, 7), false},
		{"decimal is the float rounded", dec(t, 6, 25522006), f64(t, 25.522005853257337), true},
		{"decimal is not the float rounded", dec(t, 6, 25522016), f64(t, 25.522005853257337), false},
		{"decimals of other scales compare exactly", dec(t, 2, 2292303), dec(t, 4, 229230280), false},
	}
	for _, c := range cases {
		err := Compare(c.got, c.want)
		if (err == nil) != c.equal {
			t.Errorf("%s: got %v, want equal=%v", c.name, err, c.equal)
		}
	}
	if err := Compare(i64(t, 1), f64(t, 1)); err != nil {
		t.Errorf("1 vs 1.0: %v", err)
	}
}

package cuda

import (
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// encode lays decimals out as the device reads them (the low word alone
// for precision <= 18, else the low word then the high one) and a string
// column as its dictionary's 32-bit codes: checked here value by value
// against encoding/binary, negative values, nulls and a sliced array
// included. Needs no GPU.
func TestEncodeLayouts(t *testing.T) {
	vals := []decimal128.Num{decimal128.FromI64(-3), decimal128.FromI64(0), decimal128.FromI64(1 << 40),
		decimal128.New(5, 7), decimal128.FromI64(-1 << 62), decimal128.FromI64(42)}
	for _, prec := range []int32{15, 30} {
		b := array.NewDecimal128Builder(memory.DefaultAllocator, &arrow.Decimal128Type{Precision: prec, Scale: 2})
		for i, v := range vals {
			if prec == 15 && v.HighBits() > 0 {
				v = decimal128.FromI64(int64(i))
			}
			if i == 2 {
				b.AppendNull()
			}
			b.Append(v)
		}
		whole := b.NewArray()
		b.Release()
		arr := array.NewSlice(whole, 1, int64(whole.Len()))
		whole.Release()
		h, err := encode(arr)
		if err != nil {
			t.Fatal(err)
		}
		defer h.free()
		w := h.t.Kind.Width()
		if (prec == 15) != (w == 8) || len(h.data) != arr.Len()*w || h.valid == nil {
			t.Fatalf("precision %d: width %d, %d bytes for %d rows", prec, w, len(h.data), arr.Len())
		}
		d := arr.(*array.Decimal128)
		for i := range arr.Len() {
			if d.IsNull(i) {
				if h.valid[i] != 0 {
					t.Fatalf("row %d is null", i)
				}
				continue
			}
			v := d.Value(i)
			if got := binary.LittleEndian.Uint64(h.data[i*w:]); got != v.LowBits() {
				t.Fatalf("precision %d row %d: low word %x, want %x", prec, i, got, v.LowBits())
			}
			if w == 16 {
				if got := binary.LittleEndian.Uint64(h.data[i*w+8:]); got != uint64(v.HighBits()) {
					t.Fatalf("precision %d row %d: high word %x, want %x", prec, i, got, uint64(v.HighBits()))
				}
			}
		}
		arr.Release()
	}
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	sb.AppendValues([]string{"R", "A", "N", "A", "R"}, nil)
	strs := sb.NewArray()
	sb.Release()
	defer strs.Release()
	h, err := encode(strs)
	if err != nil {
		t.Fatal(err)
	}
	defer h.free()
	for i, want := range []uint32{2, 0, 1, 0, 2} { // A N R sorted
		if got := binary.LittleEndian.Uint32(h.data[i*4:]); got != want {
			t.Fatalf("code %d: %d, want %d", i, got, want)
		}
	}
}

// Empty columns of every kind encode (to no bytes) and free.
func TestEncodeEmpty(t *testing.T) {
	for _, dt := range []arrow.DataType{arrow.BinaryTypes.String, &arrow.Decimal128Type{Precision: 15, Scale: 2},
		&arrow.Decimal128Type{Precision: 30, Scale: 2}, arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int64} {
		a := array.MakeArrayOfNull(memory.DefaultAllocator, dt, 0)
		h, err := encode(a)
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		if len(h.data) != 0 {
			t.Fatalf("%s: %d bytes", dt, len(h.data))
		}
		h.free()
		a.Release()
	}
}

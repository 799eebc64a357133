package arrowfmt

import (
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func record(t *testing.T, dec []int64, f []float64, nullAt int) arrow.RecordBatch {
	t.Helper()
	mem := memory.DefaultAllocator
	db := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 38, Scale: 2})
	fb := array.NewFloat64Builder(mem)
	for i := range dec {
		if i == nullAt {
			db.AppendNull()
		} else {
			db.Append(decimal128.FromBigInt(big.NewInt(dec[i])))
		}
		fb.Append(f[i])
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: db.Type()}, {Name: "f", Type: fb.Type()}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{db.NewArray(), fb.NewArray()}, int64(len(dec)))
}

func TestDecimalRendering(t *testing.T) {
	b := array.NewDecimal128Builder(memory.DefaultAllocator, &arrow.Decimal128Type{Precision: 38, Scale: 2})
	defer b.Release()
	in := []int64{12345, -5, 0, -100}
	for _, v := range in {
		b.Append(decimal128.FromI64(v))
	}
	largest, _ := new(big.Int).SetString(strings.Repeat("9", 38), 10) // 38 digits, the most a Decimal128 holds
	b.Append(decimal128.FromBigInt(largest).Negate())
	a := b.NewArray()
	defer a.Release()
	for i, want := range []string{"123.45", "-0.05", "0.00", "-1.00", "-999999999999999999999999999999999999.99"} {
		if got := Value(a, i); got != want {
			t.Errorf("row %d: %s, want %s", i, got, want)
		}
	}
}

func TestCompare(t *testing.T) {
	a := record(t, []int64{100, 200, 300}, []float64{1, 2, 3}, -1)
	same := record(t, []int64{300, 100, 200}, []float64{3, 1 + 1e-12, 2}, -1)
	if err := Compare(a, same, false); err != nil {
		t.Fatalf("unordered equal results: %v", err)
	}
	if err := Compare(a, same, true); err == nil {
		t.Fatal("ordered comparison ignored the row order")
	}
	offByOneCent := record(t, []int64{100, 201, 300}, []float64{1, 2, 3}, -1)
	if err := Compare(a, offByOneCent, true); err == nil || !strings.Contains(err.Error(), "2.01") {
		t.Fatalf("a decimal one cent off: %v", err)
	}
	floatOff := record(t, []int64{100, 200, 300}, []float64{1, 2.001, 3}, -1)
	if err := Compare(a, floatOff, true); err == nil {
		t.Fatal("a float off by 5e-4 relative passed")
	}
	withNull := record(t, []int64{100, 200, 300}, []float64{1, 2, 3}, 1)
	if err := Compare(a, withNull, true); err == nil {
		t.Fatal("a null compared equal to a value")
	}
	short := record(t, []int64{100, 200}, []float64{1, 2}, -1)
	if err := Compare(a, short, true); err == nil {
		t.Fatal("different row counts passed")
	}
}

// Rows equal in every exact column are matched by their float values: the
// unordered comparison must not depend on the order the engines gave them.
func TestCompareUnorderedTiesOnExactColumns(t *testing.T) {
	a := record(t, []int64{7, 7, 7}, []float64{3, 1, 2}, -1)
	b := record(t, []int64{7, 7, 7}, []float64{2, 3, 1 + 1e-12}, -1)
	if err := Compare(a, b, false); err != nil {
		t.Fatalf("same rows in another order: %v", err)
	}
	c := record(t, []int64{7, 7, 7}, []float64{2, 3, 4}, -1)
	if err := Compare(a, c, false); err == nil {
		t.Fatal("different float values passed")
	}
}

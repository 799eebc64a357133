package arrowrec

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func int64Batches(t *testing.T, batches, rows int) array.RecordReader {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.RecordBatch
	for i := 0; i < batches; i++ {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for k := 0; k < rows; k++ {
			b.Append(int64(k))
		}
		col := b.NewArray()
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{col}, int64(rows)))
		col.Release()
		b.Release()
	}
	rr, err := array.NewRecordReader(schema, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		r.Release()
	}
	return rr
}

// Past its bound, ReadAllWithin stops with ErrTooLarge; within it, it
// reads everything; 0 is no bound.
func TestReadAllWithin(t *testing.T) {
	rr := int64Batches(t, 10, 1000) // 10 batches of 8,000 bytes (8,128 with padding)
	defer rr.Release()
	if _, err := ReadAllWithin(rr, 30_000); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("80,000 bytes within 30,000: %v, want ErrTooLarge", err)
	}
	for _, max := range []int64{90_000, 0} {
		rr := int64Batches(t, 10, 1000)
		rec, err := ReadAllWithin(rr, max)
		if err != nil || rec.NumRows() != 10_000 {
			t.Fatalf("within %d: %v", max, err)
		}
		rec.Release()
		rr.Release()
	}
}

// DataBytes counts a dictionary array's indices and dictionary.
func TestDataBytesOfADictionary(t *testing.T) {
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	b := array.NewDictionaryBuilder(memory.DefaultAllocator, dt)
	defer b.Release()
	sb := b.(*array.BinaryDictionaryBuilder)
	for _, s := range []string{"alpha", "beta", "alpha"} {
		if err := sb.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	arr := b.NewArray()
	defer arr.Release()
	dict := arr.(*array.Dictionary).Dictionary()
	want := DataBytes(arr.Data()) - DataBytes(dict.Data())
	if DataBytes(dict.Data()) == 0 || want <= 0 {
		t.Fatalf("a dictionary array of %d bytes, its dictionary %d", DataBytes(arr.Data()), DataBytes(dict.Data()))
	}
}

package physical

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// segSource holds one table, t: an int64 column n (nulls at every 4th
// row) and a string column s the device holds as a dictionary. It reads
// columns whole or in segments, and records the segments' lengths.
type segSource struct {
	memSource
	rows     int
	mu       sync.Mutex // the columns load side by side
	segments []int
}

func (s *segSource) column(name string) arrow.Array {
	if name == "n" {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		defer b.Release()
		for i := range s.rows {
			if i%4 == 3 {
				b.AppendNull()
			} else {
				b.Append(int64(i * 7))
			}
		}
		return b.NewArray()
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	for i := range s.rows {
		b.Append(fmt.Sprintf("v%d", i%5))
	}
	return b.NewArray()
}

func (s *segSource) TableSchema(ctx context.Context, table string) (*arrow.Schema, error) {
	return arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil), nil
}

func (s *segSource) Rows(ctx context.Context, table string) (int64, error) { return int64(s.rows), nil }

func (s *segSource) ReadColumn(ctx context.Context, table, column string) (arrow.Array, error) {
	return s.column(column), nil
}

func (s *segSource) ReadColumnSegments(ctx context.Context, table, column string, dict bool, per int64, put func(arrow.Array) error) error {
	whole := s.column(column)
	defer whole.Release()
	if dict {
		enc, err := gpu.EncodeDictionary(whole)
		if err != nil {
			return err
		}
		codes := array.NewInt32Builder(memory.DefaultAllocator)
		codes.AppendValues(enc.Codes, nil)
		idx := codes.NewArray()
		codes.Release()
		whole = array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, idx, enc.Values)
		idx.Release()
		enc.Values.Release()
		defer whole.Release()
	}
	for i := int64(0); i < int64(s.rows); i += per {
		seg := array.NewSlice(whole, i, min(i+per, int64(s.rows)))
		s.mu.Lock()
		s.segments = append(s.segments, seg.Len())
		s.mu.Unlock()
		if err := put(seg); err != nil {
			return err
		}
	}
	return nil
}

// A column of more rows than a segment loads a segment at a time (the
// source hands segments of at most that many rows) into the column a
// whole load makes; a column of at most a segment's rows loads whole.
func TestLoadInSegments(t *testing.T) {
	scan := &Scan{Table: "t", Columns: []string{"n", "s"}, Types: []gpu.Type{{Kind: gpu.Int64, Nullable: true}, {Kind: gpu.Dict}}}
	load := func(rows int, per int64) ([][]string, []int) {
		c := NewColumnCache()
		c.segmentRows = per
		src := &segSource{rows: rows}
		dev := host.New()
		var pins []*cacheEntry
		var st ScanStats
		cols, err := c.get(context.Background(), dev, src, scan, &st, &pins)
		if err != nil {
			t.Fatal(err)
		}
		defer c.unpin(pins)
		var arrs []arrow.Array
		for _, col := range cols {
			a, err := dev.Download(context.Background(), col)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Release()
			arrs = append(arrs, a)
		}
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrs[0].DataType(), Nullable: true}, {Name: "s", Type: arrs[1].DataType()}}, nil), arrs, int64(rows))
		defer rec.Release()
		return arrowfmt.Rows(rec), src.segments
	}
	want, segs := load(10, -1) // whole columns
	if len(segs) != 0 {
		t.Fatalf("whole columns were read in segments: %v", segs)
	}
	got, segs := load(10, 3)
	slices.Sort(segs) // the two columns load side by side
	if fmt.Sprint(segs) != "[1 1 3 3 3 3 3 3]" {
		t.Fatalf("segments of 3 rows of two 10-row columns: %v", segs)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("loaded in segments:\n%v\nwhole:\n%v", got, want)
	}
	if _, segs := load(10, 10); len(segs) != 0 {
		t.Fatalf("a column of one segment's rows was read in segments: %v", segs)
	}
}

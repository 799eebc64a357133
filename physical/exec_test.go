package physical

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// memSource serves one table t(k INT64, v INT64) from memory and counts scans.
type memSource struct{ scans int }

func (m *memSource) ID() string { return "mem" }

func (m *memSource) TableSchema(ctx context.Context, table string) (*arrow.Schema, error) {
	return arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil), nil
}

func (m *memSource) ScanColumns(ctx context.Context, table string, cols []string) (array.RecordReader, error) {
	m.scans++
	var fields []arrow.Field
	var arrs []arrow.Array
	for _, c := range cols {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for i := int64(0); i < 10; i++ {
			if c == "k" {
				b.Append(i % 3)
			} else {
				b.Append(i * 10)
			}
		}
		fields = append(fields, arrow.Field{Name: c, Type: arrow.PrimitiveTypes.Int64})
		arrs = append(arrs, b.NewArray())
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, 10)
	return array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
}

var i64 = gpu.Type{Kind: gpu.Int64}

// SELECT v FROM t WHERE v >= 30 ORDER BY v DESC LIMIT 2 OFFSET 1
func topPlan() Node {
	scan := &Scan{Table: "t", Columns: []string{"v"}, Types: []gpu.Type{i64}}
	filter := &Pipeline{Input: scan, Pipe: &gpu.Pipeline{
		Inputs:  []gpu.Type{i64},
		Filter:  gpu.Call(gpu.OpGe, gpu.Type{Kind: gpu.Bool}, gpu.Col(0, i64), gpu.Const(i64, gpu.Value{I64: 30})),
		Project: []*gpu.Expr{gpu.Col(0, i64)},
		Sink:    gpu.SinkMaterialize,
	}}
	sort := &Sort{Input: filter, Keys: []gpu.SortKey{{Col: 0, Descending: true}}, Limit: 3}
	return &Slice{Input: sort, Offset: 1, Count: 2}
}

func TestRunWithSliceAndCache(t *testing.T) {
	src := &memSource{}
	x := &Executor{Dev: host.New(), Source: src, Cache: NewColumnCache()}
	ctx := context.Background()
	for run := 0; run < 2; run++ {
		rec, st, err := x.Run(ctx, topPlan(), []string{"v"})
		if err != nil {
			t.Fatal(err)
		}
		got := arrowfmt.Rows(rec)
		rec.Release()
		if len(got) != 2 || got[0][0] != "80" || got[1][0] != "70" {
			t.Fatalf("run %d: got %v, want [[80] [70]]", run, got)
		}
		if run == 1 && (st.Scan.BytesFromHost != 0 || st.Scan.CacheHits != 1) {
			t.Fatalf("second run read from the host: %+v", st.Scan)
		}
		if st.OpNanos["sort"] <= 0 || st.OpNanos["filter/project"] <= 0 {
			t.Fatalf("operator timings missing: %v", st.OpNanos)
		}
	}
	if src.scans != 1 {
		t.Fatalf("the source was scanned %d times, want 1", src.scans)
	}
}

func TestScanTypeMismatchIsAnError(t *testing.T) {
	x := &Executor{Dev: host.New(), Source: &memSource{}, Cache: NewColumnCache()}
	wrong := &Scan{Table: "t", Columns: []string{"v"}, Types: []gpu.Type{{Kind: gpu.Date32}}}
	_, _, err := x.Run(context.Background(), wrong, []string{"v"})
	if err == nil || !strings.Contains(err.Error(), "plan expects") {
		t.Fatalf("got %v, want an error naming the type mismatch", err)
	}
}

// A slice below the root (a LIMIT in a subquery) runs on the device: the
// sort above it sees the two rows it keeps, and a slice past the rows
// keeps none.
func TestSliceBelowRoot(t *testing.T) {
	x := &Executor{Dev: host.New(), Source: &memSource{}, Cache: NewColumnCache()}
	for _, c := range []struct {
		offset int64
		want   []string
	}{{1, []string{"70", "80"}}, {5, nil}} {
		top := topPlan().(*Slice)
		top.Offset = c.offset
		rec, _, err := x.Run(context.Background(), &Sort{Input: top, Keys: []gpu.SortKey{{Col: 0}}}, []string{"v"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range arrowfmt.Rows(rec) {
			got = append(got, r[0])
		}
		rec.Release()
		if !slices.Equal(got, c.want) {
			t.Errorf("offset %d: got %v, want %v", c.offset, got, c.want)
		}
	}
}

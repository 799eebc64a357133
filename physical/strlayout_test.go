package physical

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// strSource has one table "s" of strRows rows: k int64, hi (every value
// distinct, some null), lo (two values).
type strSource struct{}

const strRows = 3000

func (strSource) ID() string { return "strmem" }

func (strSource) TableSchema(ctx context.Context, table string) (*arrow.Schema, error) {
	return nil, fmt.Errorf("not used")
}

func (strSource) ScanColumns(ctx context.Context, table string, cols []string) (array.RecordReader, error) {
	var fields []arrow.Field
	var arrs []arrow.Array
	for _, c := range cols {
		var b array.Builder
		switch c {
		case "k":
			ib := array.NewInt64Builder(memory.DefaultAllocator)
			for i := 0; i < strRows; i++ {
				ib.Append(int64(i % 5))
			}
			b = ib
		case "hi", "lo":
			sb := array.NewStringBuilder(memory.DefaultAllocator)
			for i := 0; i < strRows; i++ {
				switch {
				case c == "lo":
					sb.Append([]string{"A", "B"}[i%2])
				case i%11 == 0:
					sb.AppendNull()
				default:
					sb.Append(fmt.Sprintf("row %d é %d", i, i*7))
				}
			}
			b = sb
		default:
			return nil, fmt.Errorf("no column %q", c)
		}
		fields = append(fields, arrow.Field{Name: c, Type: b.Type(), Nullable: true})
		arrs = append(arrs, b.NewArray())
		b.Release()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, strRows)
	return array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
}

var (
	dictT = gpu.Type{Kind: gpu.Dict, Nullable: true}
	boolN = gpu.Type{Kind: gpu.Bool, Nullable: true}
)

// strPlan: SELECT k, count(*) FROM s WHERE hi LIKE '%7%' AND lo = 'A'
// GROUP BY k; with project, hi is also an output column.
func strPlan(projectHi bool) Node {
	scan := &Scan{Table: "s", Columns: []string{"k", "hi", "lo"}, Types: []gpu.Type{i64, dictT, dictT}}
	hi := gpu.Col(1, dictT)
	filter := gpu.Call(gpu.OpAnd, boolN,
		gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrLike, Pattern: "%7%"}, boolN, hi),
		gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrCompare, Op: gpu.OpEq, Pattern: "A"}, boolN, gpu.Col(2, dictT)))
	if projectHi {
		return &Pipeline{Input: scan, Pipe: &gpu.Pipeline{Inputs: scan.Types, Filter: filter,
			Project: []*gpu.Expr{gpu.Col(0, i64), hi}, Sink: gpu.SinkMaterialize}}
	}
	return &Pipeline{Input: scan, Pipe: &gpu.Pipeline{Inputs: scan.Types, Filter: filter,
		Project: []*gpu.Expr{gpu.Col(0, i64)}, Sink: gpu.SinkAggregate, Keys: []int{0},
		Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: i64}}}}
}

func runPlan(t *testing.T, x *Executor, root Node, names ...string) arrow.RecordBatch {
	t.Helper()
	rec, _, err := x.Run(context.Background(), root, names)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestChooseStringLayouts(t *testing.T) {
	x := &Executor{Dev: host.New(), Source: strSource{}, Cache: NewColumnCache()}
	root := strPlan(false)
	if err := x.ChooseStringLayouts(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	scan := root.(*Pipeline).Input.(*Scan)
	if scan.Types[1].Kind != gpu.Str || scan.Types[2].Kind != gpu.Dict || root.(*Pipeline).Pipe.Inputs[1].Kind != gpu.Str {
		t.Fatalf("scan types %v, pipeline inputs %v: want hi str, lo dict", scan.Types, root.(*Pipeline).Pipe.Inputs)
	}
	plan := Explain(root, "host")
	for _, want := range []string{"hi: arrow strings (2727 of 3000 sampled values distinct)", "lo: dictionary (2 of 3000"} {
		if !strings.Contains(plan, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, plan)
		}
	}
	// Idempotent: a second pass changes nothing and adds no note.
	if err := x.ChooseStringLayouts(context.Background(), root); err != nil || Explain(root, "host") != plan {
		t.Fatalf("second pass changed the plan (%v):\n%s", err, Explain(root, "host"))
	}
	got := runPlan(t, x, root, "k", "n")
	defer got.Release()
	// The same plan left as dictionaries, on the same cache: the Str entry
	// of hi must not serve it.
	want := runPlan(t, x, strPlan(false), "k", "n")
	defer want.Release()
	if err := arrowfmt.Compare(got, want, false); err != nil {
		t.Fatalf("arrow layout answer differs from the dictionary one: %v", err)
	}
	if want.NumRows() != 5 {
		t.Fatalf("%d groups, want 5", want.NumRows())
	}
	if n := x.Cache.Len(); n != 4 { // k, hi (str), lo, hi (dict)
		t.Fatalf("%d cached columns, want 4 (hi once per layout)", n)
	}
	// Invalidate forgets the decision with the columns.
	x.Cache.Invalidate("strmem", "s")
	if _, ok := x.Cache.layouts.get(cacheKey("strmem", "s", "hi")); ok {
		t.Fatal("Invalidate kept the layout decision")
	}
}

// A column the pipeline passes on, or a device that cannot hold Str,
// keeps every column dictionary-encoded.
func TestStringLayoutsStayDict(t *testing.T) {
	x := &Executor{Dev: host.New(), Source: strSource{}, Cache: NewColumnCache()}
	root := strPlan(true)
	if err := x.ChooseStringLayouts(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	scan := root.(*Pipeline).Input.(*Scan)
	if scan.Types[1].Kind != gpu.Dict {
		t.Fatalf("hi is projected but became %s", scan.Types[1])
	}
	if plan := Explain(root, "host"); strings.Contains(plan, "hi:") {
		t.Fatalf("EXPLAIN names a layout for a column that had no choice:\n%s", plan)
	}
	noStr := &Executor{Dev: struct{ gpu.Device }{host.New()}, Source: strSource{}, Cache: NewColumnCache()}
	root = strPlan(false)
	if err := noStr.ChooseStringLayouts(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	if k := root.(*Pipeline).Input.(*Scan).Types[1].Kind; k != gpu.Dict {
		t.Fatalf("a device without StrUploader got a %s column", k)
	}
}

package physical

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rigel-db/rigel/gpu"
	"github.com/rigel-db/rigel/gpu/host"
	"github.com/rigel-db/rigel/internal/arrowfmt"
)

// doubler stands in for DuckDB: it checks what a Fallback hands over and
// answers each input value doubled (or a column of the wrong type).
type doubler struct {
	t        *testing.T
	wrongTyp bool
}

func (d doubler) RunOver(ctx context.Context, query string, names []string, inputs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if query != "SELECT c0 * 2 FROM in0" || len(names) != 1 || names[0] != "in0" || len(inputs) != 1 {
		d.t.Fatalf("runner got %q %v (%d inputs)", query, names, len(inputs))
	}
	in := inputs[0]
	if in.Schema().Field(0).Name != "c0" || in.NumRows() != 10 {
		d.t.Fatalf("input %s with %d rows, want column c0 and 10 rows", in.Schema(), in.NumRows())
	}
	if d.wrongTyp {
		b := array.NewFloat64Builder(memory.DefaultAllocator)
		defer b.Release()
		b.Append(1)
		a := b.NewArray()
		defer a.Release()
		return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: a.DataType()}}, nil), []arrow.Array{a}, 1), nil
	}
	col := in.Column(0).(*array.Int64)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := 0; i < col.Len(); i++ {
		b.Append(col.Value(i) * 2)
	}
	a := b.NewArray()
	defer a.Release()
	return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "x", Type: a.DataType()}}, nil), []arrow.Array{a}, int64(a.Len())), nil
}

func fallbackPlan() Node {
	scan := &Scan{Table: "t", Columns: []string{"v"}, Types: []gpu.Type{i64}}
	f := &Fallback{SQL: "SELECT c0 * 2 FROM in0", Inputs: []Node{scan}, InputNames: []string{"in0"}, Types: []gpu.Type{i64}, Reason: "a test"}
	return &Sort{Input: f, Keys: []gpu.SortKey{{Col: 0, Descending: true}}, Limit: 2}
}

// A Fallback's input comes from the device, its result goes back there
// for the operators above; EXPLAIN tags it and gives its reason.
func TestFallbackNode(t *testing.T) {
	x := &Executor{Dev: host.New(), Source: &memSource{}, Cache: NewColumnCache(), SQL: doubler{t: t}}
	rec, st, err := x.Run(context.Background(), fallbackPlan(), []string{"v"})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	if got := strings.Join(arrowfmt.Rows(rec)[0], ",") + ";" + strings.Join(arrowfmt.Rows(rec)[1], ","); got != "180;160" {
		t.Fatalf("got %s, want 180;160", got)
	}
	if st.OpNanos["fallback"] == 0 {
		t.Fatal("no time counted for the fallback")
	}
	ex := Explain(fallbackPlan(), "host")
	if !strings.Contains(ex, "[duckdb] Fallback DuckDB SQL over in0 (reason: a test)") || !strings.Contains(ex, "[host] Scan t") {
		t.Fatalf("EXPLAIN:\n%s", ex)
	}
	if got := FallbackReasons(fallbackPlan()); len(got) != 1 || got[0] != "a test" {
		t.Fatalf("reasons %v", got)
	}
}

// A result of another type than the plan's, or no database to run on, is
// an error marked unsupported (the engine then runs the whole SQL).
func TestFallbackNodeErrors(t *testing.T) {
	for name, runner := range map[string]SQLRunner{"wrong type": doubler{t: t, wrongTyp: true}, "no database": nil} {
		x := &Executor{Dev: host.New(), Source: &memSource{}, Cache: NewColumnCache(), SQL: runner}
		_, _, err := x.Run(context.Background(), fallbackPlan(), []string{"v"})
		if err == nil || !errors.Is(err, gpu.ErrUnsupported) {
			t.Fatalf("%s: got %v, want an unsupported error", name, err)
		}
	}
}

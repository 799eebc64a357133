package physical

import (
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// The walk reads plans before anything checks them: a pipeline the device
// will refuse (a group key out of range) must not stop it.
func TestForesightShapesBadPipelines(t *testing.T) {
	dict := gpu.Type{Kind: gpu.Dict}
	p := &gpu.Pipeline{
		Inputs:  []gpu.Type{dict},
		Project: []*gpu.Expr{gpu.Col(0, dict), gpu.Col(5, dict)},
		Sink:    gpu.SinkAggregate,
		Keys:    []int{0, 7},
		Aggs:    []gpu.Agg{{Kind: gpu.AggMin, Arg: 9, Type: dict}},
	}
	s := pipelineOutput(p, shape{dicts: []int{3}, rows: exactly(10)})
	if len(s.dicts) != 3 || s.dicts[0] != 3 || s.dicts[1] != 0 || s.dicts[2] != 0 {
		t.Fatalf("dictionaries %v, want [3 0 0]", s.dicts)
	}
	if s.rows != (rowBounds{1, 10}) {
		t.Fatalf("rows %+v, want 1 to 10", s.rows)
	}
	if passesThrough(&gpu.Pipeline{Inputs: []gpu.Type{dict}, Project: []*gpu.Expr{gpu.Col(3, dict)}, Sink: gpu.SinkMaterialize}) {
		t.Fatal("a projection of a column the input lacks passes through")
	}
}

// fakeColumn stands for a loaded column; the walk only passes it on.
type fakeColumn struct {
	gpu.Column
	id int
}

// A call the walk foresees names the columns its kernel will read where
// they are a scan's, passed on by projections that only pass columns, so
// that the device compiles for how they are held (gpu.KernelCall.Inputs);
// a pipeline that computes makes new columns, which it cannot name.
func TestForesightNamesScanColumns(t *testing.T) {
	i64 := gpu.Type{Kind: gpu.Int64}
	a, b := fakeColumn{id: 1}, fakeColumn{id: 2}
	scan := shape{dicts: []int{0, 0}, rows: exactly(10), cols: []gpu.Column{a, b}}
	swap := &gpu.Pipeline{Inputs: []gpu.Type{i64, i64}, Project: []*gpu.Expr{gpu.Col(1, i64), gpu.Col(0, i64)}, Sink: gpu.SinkMaterialize}
	if s := pipelineOutput(swap, scan); len(s.cols) != 2 || s.cols[0] != b || s.cols[1] != a {
		t.Fatalf("a projection passing columns on gives %v, want [b a]", s.cols)
	}
	filtered := &gpu.Pipeline{Inputs: swap.Inputs, Filter: gpu.Const(gpu.Type{Kind: gpu.Bool}, gpu.Value{I64: 1}), Project: swap.Project, Sink: gpu.SinkMaterialize}
	if s := pipelineOutput(filtered, scan); s.cols != nil {
		t.Fatalf("a filter's output names columns %v", s.cols)
	}
	made := shape{dicts: []int{0}, rows: exactly(3)}
	if got := inputsOf(made, scan); len(got) != 3 || got[0] != nil || got[1] != a || got[2] != b {
		t.Fatalf("inputs of a computed side and a scan: %v, want [nil a b]", got)
	}
	if got := inputsOf(made, countsShape); got != nil {
		t.Fatalf("inputs of sides with no known column: %v, want nil", got)
	}
}

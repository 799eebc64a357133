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

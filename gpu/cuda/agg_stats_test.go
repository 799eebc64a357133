package cuda

import (
	"errors"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// The CUDA device does not compute variance or standard deviation yet: its
// aggregate planner refuses them with ErrUnsupported (so the plan falls back),
// never generating wrong code. Runs without a GPU.
func TestStatAggsRefused(t *testing.T) {
	tf := gpu.Type{Kind: gpu.Float64, Nullable: true}
	for _, k := range []gpu.AggKind{gpu.AggVarSamp, gpu.AggVarPop, gpu.AggStdDevSamp, gpu.AggStdDevPop} {
		p := &gpu.Pipeline{
			Inputs: []gpu.Type{tf}, Project: []*gpu.Expr{gpu.Col(0, tf)}, Sink: gpu.SinkAggregate,
			Aggs: []gpu.Agg{{Kind: k, Arg: 0, Type: tf}},
		}
		_, err := planAggregate(p, []int{0})
		if !errors.Is(err, gpu.ErrUnsupported) {
			t.Errorf("%s: planAggregate error %v, want ErrUnsupported", k, err)
		}
	}
}

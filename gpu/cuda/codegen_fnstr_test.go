package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// The code generator refuses row-wise string functions (gpu.OpStrRow,
// gpu/ir_fnstr.go) with ErrUnsupported naming the op, so that the engine
// falls back, never with a panic or a kernel that computes something else.
func TestCodegenRefusesStrRow(t *testing.T) {
	nd := nul(tDict)
	cat := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowConcat}, nd, gpu.Col(0, nd), gpu.Col(1, nd))
	n := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowCharLength}, nul(tI64), gpu.Col(0, nd))
	for _, p := range []*gpu.Pipeline{
		{Inputs: []gpu.Type{nd, nd}, Project: []*gpu.Expr{cat}, Sink: gpu.SinkMaterialize},
		{Inputs: []gpu.Type{nd, nd}, Project: []*gpu.Expr{n}, Sink: gpu.SinkMaterialize},
		{Inputs: []gpu.Type{nd, nd}, Project: []*gpu.Expr{cat}, Sink: gpu.SinkAggregate, Keys: []int{0},
			Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: tI64}}},
	} {
		_, err := pipelineSource(p, []int{4, 4})
		if err == nil || !errors.Is(err, gpu.ErrUnsupported) || !strings.Contains(err.Error(), "str_row") {
			t.Errorf("%s: generate gave %v, want ErrUnsupported naming str_row", p, err)
		}
	}
}

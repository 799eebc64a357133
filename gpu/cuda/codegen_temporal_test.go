package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// The code generator refuses OpAddMonthsTs (gpu/ir_temporal.go) with
// ErrUnsupported naming the op, so that the engine falls back.
func TestCodegenRefusesAddMonthsTs(t *testing.T) {
	i64 := gpu.Type{Kind: gpu.Int64}
	e := call(gpu.OpAddMonthsTs, nul(tI64), gpu.Col(0, nul(tI64)), gpu.Col(1, nul(tI64)), gpu.Const(i64, gpu.Value{I64: 1_000_000}))
	p := &gpu.Pipeline{Inputs: []gpu.Type{nul(tI64), nul(tI64)}, Project: []*gpu.Expr{e}, Sink: gpu.SinkMaterialize}
	_, err := pipelineSource(p, []int{0, 0})
	if err == nil || !errors.Is(err, gpu.ErrUnsupported) || !strings.Contains(err.Error(), "add_months_ts") {
		t.Fatalf("generate gave %v, want ErrUnsupported naming add_months_ts", err)
	}
}

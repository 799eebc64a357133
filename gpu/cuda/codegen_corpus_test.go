package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// The code generator refuses OpMakeDate (gpu/ir_corpus.go) with
// ErrUnsupported naming the op, so that the engine falls back.
func TestCodegenRefusesMakeDate(t *testing.T) {
	y := gpu.Col(0, nul(tI64))
	e := call(gpu.OpMakeDate, nul(tDate), y, ci(tI64, 2), ci(tI64, 29))
	p := &gpu.Pipeline{Inputs: []gpu.Type{nul(tI64)}, Project: []*gpu.Expr{e}, Sink: gpu.SinkMaterialize}
	_, err := pipelineSource(p, []int{0})
	if err == nil || !errors.Is(err, gpu.ErrUnsupported) || !strings.Contains(err.Error(), "make_date") {
		t.Fatalf("generate gave %v, want ErrUnsupported naming make_date", err)
	}
}

// The sign of a float as translate builds it (translate/fn_corpus.go: a
// Case over comparisons, -x < 0 for "positive" so that NaN gives 0)
// compiles with NVRTC.
func TestNVRTCCompilesFloatSign(t *testing.T) {
	skipNoNVRTC(t)
	x := gpu.Col(0, nul(tF64))
	sign := call(gpu.OpCase, nul(tI8),
		call(gpu.OpIsNull, tBool, x), gpu.Const(nul(tI8), gpu.Value{Null: true}),
		call(gpu.OpLt, nul(tBool), x, cf(tF64, 0)), ci(tI8, -1),
		call(gpu.OpLt, nul(tBool), call(gpu.OpNeg, nul(tF64), x), cf(tF64, 0)), ci(tI8, 1),
		ci(tI8, 0))
	p := &gpu.Pipeline{Inputs: []gpu.Type{nul(tF64)}, Project: []*gpu.Expr{sign}, Sink: gpu.SinkMaterialize}
	src, err := pipelineSource(p, []int{0})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	compileClean(t, "float_sign", src)
}

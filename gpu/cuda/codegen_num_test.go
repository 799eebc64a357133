package cuda

import (
	"errors"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// numPipeline projects every numeric operator the CUDA codegen generates.
// Inputs: f64, f32, i32, i64, decimal(18,2), decimal(38,0).
func numPipeline() *gpu.Pipeline {
	f64, f32, i32, i64 := gpu.Col(0, nul(tF64)), gpu.Col(1, tF32), gpu.Col(2, nul(tI32)), gpu.Col(3, tI64)
	d18, d38 := gpu.Col(4, dec64(18, 2)), gpu.Col(5, nul(dec128(38, 0)))
	var proj []*gpu.Expr
	for op := range cudaFloatFuncs {
		proj = append(proj, call(op, nul(tF64), f64), call(op, tF32, f32))
	}
	proj = append(proj,
		call(gpu.OpAtan2, nul(tF64), f64, f64), call(gpu.OpPow, tF32, f32, f32),
		call(gpu.OpRound, nul(tF64), f64, i32), call(gpu.OpRound, tF32, f32, ci(tI32, 2)),
		call(gpu.OpAbs, nul(tI32), i32), call(gpu.OpAbs, dec64(18, 2), d18), call(gpu.OpAbs, nul(dec128(38, 0)), d38),
		call(gpu.OpBitAnd, nul(tI32), i32, i32), call(gpu.OpBitOr, tI64, i64, i64), call(gpu.OpBitXor, nul(dec128(38, 0)), d38, d38),
		call(gpu.OpBitNot, tI64, i64),
		call(gpu.OpShl, tI64, i64, ci(tI32, 8)), call(gpu.OpShr, nul(tI32), i32, ci(tI32, 1)), call(gpu.OpShrU, tI64, i64, ci(tI32, 2)),
		call(gpu.OpSaturate, gpu.Type{Kind: gpu.Int8, Nullable: true}, d38), call(gpu.OpWrap, gpu.Type{Kind: gpu.Int16, Nullable: true}, d38),
		call(gpu.OpCeil, dec64(17, 0), d18), call(gpu.OpFloor, dec64(17, 0), d18),
		call(gpu.OpRound, dec64(18, 2), d18, ci(tI32, -1)), call(gpu.OpRound, nul(dec128(38, 0)), d38, ci(tI32, -40)),
		call(gpu.OpShl, nul(tI32), i32, i32), call(gpu.OpShrU, tI64, i64, i64),
		call(gpu.OpMod, tI64, i64, i64), call(gpu.OpIntDiv, nul(tI32), i32, i32),
		call(gpu.OpIntPow, tI64, i64, i64), call(gpu.OpFactorial, nul(dec128(38, 0)), d38), call(gpu.OpFactorial, tI64, i64),
		call(gpu.OpCheck, nul(tF64), call(gpu.OpLt, nul(tBool), f64, cf(tF64, 0)), call(gpu.OpSqrt, nul(tF64), f64)),
		call(gpu.OpCheck, tI64, call(gpu.OpLt, tBool, i64, ci(tI64, 0)), i64),
	)
	return &gpu.Pipeline{
		Inputs:  []gpu.Type{nul(tF64), tF32, nul(tI32), tI64, dec64(18, 2), nul(dec128(38, 0))},
		Project: proj, Sink: gpu.SinkMaterialize,
	}
}

func TestNVRTCCompilesNumeric(t *testing.T) {
	src, err := pipelineSource(numPipeline(), nil)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	skipNoNVRTC(t)
	compileClean(t, "numeric.cu", src)
}

// TestCodegenRefusesRoundByColumn: rounding an exact number by a digit
// count that is not a constant is refused with ErrUnsupported.
func TestCodegenRefusesRoundByColumn(t *testing.T) {
	d := gpu.Col(0, dec64(18, 2))
	e := call(gpu.OpRound, dec64(18, 2), d, gpu.Col(1, tI32))
	p := &gpu.Pipeline{Inputs: []gpu.Type{dec64(18, 2), tI32}, Project: []*gpu.Expr{e}, Sink: gpu.SinkMaterialize}
	if _, err := pipelineSource(p, nil); !errors.Is(err, gpu.ErrUnsupported) {
		t.Errorf("%s: got %v, want ErrUnsupported", e, err)
	}
}

// DuckDB's average division (gpu.OpAvgDivide, prelude.cuh's rg_avg_divide)
// compiles in both modes; the battery's avg/divide_as_duckdb checks its
// bits on a GPU.
func TestNVRTCCompilesAvgDivide(t *testing.T) {
	skipNoNVRTC(t)
	sum, cnt := nul(gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: 2}), gpu.Type{Kind: gpu.Int64}
	f := nul(gpu.Type{Kind: gpu.Float64})
	mode := func(m int64) *gpu.Expr { return gpu.Const(gpu.Type{Kind: gpu.Int64}, gpu.Value{I64: m}) }
	p := &gpu.Pipeline{Inputs: []gpu.Type{sum, cnt}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		call(gpu.OpAvgDivide, f, gpu.Col(0, sum), gpu.Col(1, cnt), mode(gpu.AvgLongDouble)),
		call(gpu.OpAvgDivide, f, gpu.Col(0, sum), gpu.Col(1, cnt), mode(gpu.AvgDouble)),
	}}
	src, err := pipelineSource(p, []int{0, 0})
	if err != nil {
		t.Fatal(err)
	}
	compileClean(t, "avg_divide", src)
}

// A variance from exact moments (gpu.OpStatMoments, prelude.cuh's
// rg_stat_moments) compiles for every kind and a decimal scale; the
// battery's stats cases check its bits on a GPU.
func TestNVRTCCompilesStatMoments(t *testing.T) {
	skipNoNVRTC(t)
	cnt, i64, f := gpu.Type{Kind: gpu.Int64}, gpu.Type{Kind: gpu.Int64}, nul(gpu.Type{Kind: gpu.Float64})
	s1, s2 := nul(gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: 2}), nul(gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: 4})
	p := &gpu.Pipeline{Inputs: []gpu.Type{cnt, s1, s2}, Sink: gpu.SinkMaterialize}
	for _, k := range []gpu.AggKind{gpu.AggVarSamp, gpu.AggVarPop, gpu.AggStdDevSamp, gpu.AggStdDevPop} {
		p.Project = append(p.Project, call(gpu.OpStatMoments, f, gpu.Col(0, cnt), gpu.Col(1, s1), gpu.Col(2, s2), gpu.Const(i64, gpu.Value{I64: int64(k)})))
	}
	src, err := pipelineSource(p, []int{0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	compileClean(t, "stat_moments", src)
}

package cuda

import (
	"errors"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// The translator's questions (gpu.Refuser) get the code generator's and
// the aggregate planner's own answers. Runs without a GPU.
func TestRefusals(t *testing.T) {
	d := &Device{}
	nd, i64 := nul(tDict), gpu.Type{Kind: gpu.Int64}
	f := nul(gpu.Type{Kind: gpu.Float64})
	refused := []*gpu.Expr{
		call(gpu.OpTimePart, nul(tI64), gpu.Col(2, nul(tI64)), gpu.Const(i64, gpu.Value{I64: int64(gpu.PartHour)}), gpu.Const(i64, gpu.Value{I64: 1_000_000})),
	}
	for _, e := range refused {
		if err := d.RefuseExpr(e); !errors.Is(err, gpu.ErrUnsupported) {
			t.Errorf("RefuseExpr(%s) = %v, want ErrUnsupported", e, err)
		}
	}
	runs := []*gpu.Expr{
		gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowConcat}, nd, gpu.Col(0, nd), gpu.Col(1, nd)), // on the host (rowstrings.go)
		call(gpu.OpAdd, nul(tI64), gpu.Col(0, nul(tI64)), gpu.Const(i64, gpu.Value{I64: 3})),
		call(gpu.OpAddDayInterval, nul(tDate), gpu.Col(0, nul(tDate)), gpu.Col(1, nul(tI64)), gpu.Const(i64, gpu.Value{I64: 1})),
		call(gpu.OpAvgDivide, f, gpu.Col(0, nul(gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: 2})), gpu.Col(1, i64), gpu.Const(i64, gpu.Value{I64: gpu.AvgLongDouble})),
		call(gpu.OpCast, nul(tI64), gpu.Col(0, f)),
		call(gpu.OpStatMoments, f, gpu.Col(0, i64), gpu.Col(1, nul(gpu.Type{Kind: gpu.Decimal128, Precision: 38})), gpu.Col(2, nul(gpu.Type{Kind: gpu.Decimal128, Precision: 38})), gpu.Const(i64, gpu.Value{I64: int64(gpu.AggStdDevSamp)})),
	}
	for _, e := range runs {
		if err := d.RefuseExpr(e); err != nil {
			t.Errorf("RefuseExpr(%s) = %v, want nil", e, err)
		}
	}
	for _, k := range []gpu.AggKind{gpu.AggVarSamp, gpu.AggStdDevSamp} {
		if err := d.RefuseAgg(gpu.Agg{Kind: k, Type: f}, f); !errors.Is(err, gpu.ErrUnsupported) {
			t.Errorf("RefuseAgg(%s) = %v, want ErrUnsupported", k, err)
		}
	}
	if err := d.RefuseAgg(gpu.Agg{Kind: gpu.AggSum, Type: nul(gpu.Type{Kind: gpu.Decimal128, Precision: 38, Scale: 2})}, nul(gpu.Type{Kind: gpu.Decimal64, Precision: 15, Scale: 2})); err != nil {
		t.Errorf("RefuseAgg(sum) = %v, want nil", err)
	}
}

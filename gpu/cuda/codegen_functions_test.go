package cuda

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// The code generator refuses row-wise string functions (gpu.OpStrRow,
// gpu/ir_strrow.go: the device evaluates them on the host before any
// kernel, rowstrings.go) and OpTimePart with ErrUnsupported naming the op,
// never with a panic or a kernel that computes something else.
func TestCodegenRefusesStrRow(t *testing.T) {
	nd := nul(tDict)
	cat := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowConcat}, nd, gpu.Col(0, nd), gpu.Col(1, nd))
	n := gpu.RowCall(&gpu.StrFunc{Kind: gpu.StrRowCharLength}, nul(tI64), gpu.Col(0, nd))
	i64 := gpu.Type{Kind: gpu.Int64}
	part := call(gpu.OpTimePart, nul(tI64), gpu.Col(2, nul(tI64)),
		gpu.Const(i64, gpu.Value{I64: int64(gpu.PartHour)}), gpu.Const(i64, gpu.Value{I64: 1_000_000}))
	in := []gpu.Type{nd, nd, nul(tI64), nul(tDate)}
	for _, p := range []*gpu.Pipeline{
		{Inputs: in, Project: []*gpu.Expr{part}, Sink: gpu.SinkMaterialize},
		{Inputs: []gpu.Type{nd, nd}, Project: []*gpu.Expr{cat}, Sink: gpu.SinkMaterialize},
		{Inputs: []gpu.Type{nd, nd}, Project: []*gpu.Expr{n}, Sink: gpu.SinkMaterialize},
		{Inputs: []gpu.Type{nd, nd}, Project: []*gpu.Expr{cat}, Sink: gpu.SinkAggregate, Keys: []int{0},
			Aggs: []gpu.Agg{{Kind: gpu.AggCountStar, Type: tI64}}},
	} {
		_, err := pipelineSource(p, []int{4, 4, 0, 0}[:len(p.Inputs)])
		named := false
		for _, op := range []string{"str_row", "time_part"} {
			named = named || strings.Contains(fmt.Sprint(err), op)
		}
		if err == nil || !errors.Is(err, gpu.ErrUnsupported) || !named {
			t.Errorf("%s: generate gave %v, want ErrUnsupported naming the op", p, err)
		}
	}
}

// Row functions in their dictionary-table form (gpu/strrow_tables.go) are
// ordinary OpStrMap/OpStrPred nodes: the kernels compile.
func TestNVRTCCompilesRowTables(t *testing.T) {
	skipNoNVRTC(t)
	nd, nb := nul(tDict), nul(tBool)
	up := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrRowUpper}, nd, gpu.Col(0, nd))
	lp := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrRowLpad, List: []string{"5", "*"}}, nd, up)
	ci := gpu.StrCall(&gpu.StrFunc{Kind: gpu.StrRowContainsFold, List: []string{"B"}}, nb, gpu.Col(0, nd))
	p := &gpu.Pipeline{Inputs: []gpu.Type{nd}, Filter: ci, Project: []*gpu.Expr{lp, up}, Sink: gpu.SinkMaterialize}
	src, err := pipelineSource(p, []int{100})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	compileClean(t, "row_tables", src)
}

// Date plus months or a day interval (gpu/ir_datetime.go) and a float's cast
// to an integer compile; the battery's time/add_months_days and
// cast/float_to_int check the values on a GPU.
func TestNVRTCCompilesDateArithmetic(t *testing.T) {
	skipNoNVRTC(t)
	i64 := gpu.Type{Kind: gpu.Int64}
	f64 := gpu.Type{Kind: gpu.Float64, Nullable: true}
	in := []gpu.Type{nul(tDate), nul(tI64), f64}
	months := call(gpu.OpAddMonths, nul(tDate), gpu.Col(0, nul(tDate)), gpu.Col(1, nul(tI64)))
	days := call(gpu.OpAddDayInterval, nul(tDate), gpu.Col(0, nul(tDate)), gpu.Col(1, nul(tI64)), gpu.Const(i64, gpu.Value{I64: 1}))
	toInt := call(gpu.OpCast, nul(tI64), gpu.Col(2, f64))
	p := &gpu.Pipeline{Inputs: in, Project: []*gpu.Expr{months, days, toInt}, Sink: gpu.SinkMaterialize}
	src, err := pipelineSource(p, []int{0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	compileClean(t, "date_arithmetic", src)
}

// The code generator refuses OpMakeDate (gpu/ir_datetime.go) with
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

// The sign of a float as translate builds it (translate/fn_sign_makedate.go: a
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

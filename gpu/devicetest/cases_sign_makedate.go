package devicetest

import (
	"errors"
	"math"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// The corpus functions (translate/fn_sign_makedate.go): the sign of a float as
// translate builds it (a Case over comparisons, which every device runs),
// and OpMakeDate (gpu/ir_datetime.go), which a device that does not run it
// yet (the CUDA code generator) must refuse with ErrUnsupported: the case
// then checks that and skips. Expectations are DuckDB's, by hand.

func signMakeDateCases() []testCase {
	return []testCase{
		{"corpus/float_sign", testFloatSign},
		{"corpus/make_date", testMakeDate},
	}
}

// DuckDB's sign of a DOUBLE: -1, 0 or 1 as TINYINT; 0 for -0.0 and NaN,
// which the devices order above every number (so x > 0 would hold for
// it): "positive" is -x < 0.
func testFloatSign(t *testing.T, dev gpu.Device) {
	xs := MakeArray(F64, 2.5, -2.5, 0.0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), -1e-300, 5e-324, nil)
	tx := inputType(xs)
	x := gpu.Col(0, tx)
	i8 := gpu.Type{Kind: gpu.Int8}
	zero := gpu.Const(gpu.Type{Kind: gpu.Float64}, gpu.Value{})
	cond := gpu.Type{Kind: gpu.Bool, Nullable: true}
	sign := gpu.Call(gpu.OpCase, i8.WithNullable(true),
		gpu.Call(gpu.OpIsNull, gpu.Type{Kind: gpu.Bool}, x), gpu.Const(i8.WithNullable(true), gpu.Value{Null: true}),
		gpu.Call(gpu.OpLt, cond, x, zero), gpu.Const(i8, gpu.Value{I64: -1}),
		gpu.Call(gpu.OpLt, cond, gpu.Call(gpu.OpNeg, tx, x), zero), gpu.Const(i8, gpu.Value{I64: 1}),
		gpu.Const(i8, gpu.Value{I64: 0}))
	p := &gpu.Pipeline{Inputs: []gpu.Type{tx}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{sign}}
	cols, _ := table(t, dev, xs)
	defer ReleaseCols(cols)
	expectRows(t, RunPipeline(t, dev, p, cols), []string{
		Row("1"), Row("-1"), Row("0"), Row("0"), Row("0"), Row("1"), Row("-1"), Row("-1"), Row("1"), Row(NullCell),
	}, true)
}

func testMakeDate(t *testing.T, dev gpu.Device) {
	y := MakeArray(I64, 2024, 2023, 0, -5877641, 5881580, 1900, nil, 2000)
	m := MakeArray(I64, 2, 12, 1, 6, 7, 2, 1, nil)
	d := MakeArray(I64, 29, 31, 1, 25, 10, 28, 1, 1)
	ty, tm, td := inputType(y), inputType(m), inputType(d)
	date := gpu.Type{Kind: gpu.Date32, Nullable: true}
	p := &gpu.Pipeline{Inputs: []gpu.Type{ty, tm, td}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		gpu.Call(gpu.OpMakeDate, date, gpu.Col(0, ty), gpu.Col(1, tm), gpu.Col(2, td)),
	}}
	cols, _ := table(t, dev, y, m, d)
	defer ReleaseCols(cols)
	if err := RunPipelineErr(dev, p, cols); errors.Is(err, gpu.ErrUnsupported) {
		t.Skipf("SKIP: the device refuses make_date: %v", err)
	}
	// Day numbers: DuckDB's first and last days are 2147483646 days from
	// the epoch either way (its infinities are the int32 extremes).
	expectRows(t, RunPipeline(t, dev, p, cols), []string{
		Row(FormatDate(19782)), Row(FormatDate(19722)), Row(FormatDate(-719528)), Row(FormatDate(-2147483646)),
		Row(FormatDate(2147483646)), Row(FormatDate(-25509)), Row(NullCell), Row(NullCell),
	}, true)
	// Days that do not exist are errors, never NULL: 2023-02-29, month 13,
	// day 0, the day after DuckDB's last.
	for _, c := range [][3]int64{{2023, 2, 29}, {2024, 13, 1}, {2024, 1, 0}, {5881580, 7, 11}, {-5877641, 6, 24}} {
		bad := &gpu.Pipeline{Inputs: []gpu.Type{TI64, TI64, TI64}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
			gpu.Call(gpu.OpMakeDate, gpu.Type{Kind: gpu.Date32}, gpu.Col(0, TI64), gpu.Col(1, TI64), gpu.Col(2, TI64)),
		}}
		bc, _ := table(t, dev, MakeArray(I64, c[0]), MakeArray(I64, c[1]), MakeArray(I64, c[2]))
		err := RunPipelineErr(dev, bad, bc)
		ReleaseCols(bc)
		expectError(t, err, "make_date of a day that does not exist")
		if !errors.Is(err, gpu.ErrDomain) {
			t.Errorf("make_date%v: %v, want ErrDomain", c, err)
		}
	}
}

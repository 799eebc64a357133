package devicetest

import (
	"math"
	"strconv"
	"testing"

	"github.com/rigel-db/rigel/gpu"
)

// Timestamp arithmetic (OpAddMonthsTs, gpu/ir_temporal.go). A device that
// does not run it yet (the CUDA code generator) must refuse it with
// ErrUnsupported: the case then checks that and skips. Expectations are
// computed by hand from the civil calendar.

func temporalCases() []testCase {
	return []testCase{
		{"time/add_months_ts", testAddMonthsTs},
	}
}

func testAddMonthsTs(t *testing.T, dev gpu.Device) {
	const us = int64(1_000_000)
	day := 86400 * us
	// 2020-01-31 13:30:15.000001, 1969-12-31 23:59:59.999999 (before the
	// epoch: the time of day is kept, not mirrored), 2016-12-01 13:30:15,
	// 2016-12-01 13:30:15 minus 60 years, null.
	jan31 := 18292*day + (13*3600+30*60+15)*us + 1
	dec01 := 17136*day + (13*3600+30*60+15)*us
	ts := MakeArray(I64, jan31, int64(-1), dec01, dec01, nil)
	m := MakeArray(I64, 1, 2, 60, -720, 1)
	tt, tm := inputType(ts), inputType(m)
	p := &gpu.Pipeline{Inputs: []gpu.Type{tt, tm}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		gpu.Call(gpu.OpAddMonthsTs, gpu.Type{Kind: gpu.Int64, Nullable: true}, gpu.Col(0, tt), gpu.Col(1, tm),
			gpu.Const(TI64, gpu.Value{I64: us})),
	}}
	// 2020-02-29 13:30:15.000001; 1970-02-28 23:59:59.999999;
	// 2021-12-01 13:30:15; 1956-12-01 13:30:15.
	feb29 := 18321*day + (13*3600+30*60+15)*us + 1
	feb28 := 58*day + day - 1
	dec2021 := 18962*day + (13*3600+30*60+15)*us
	dec1956 := -4779*day + (13*3600+30*60+15)*us
	expectRows(t, runTime(t, dev, p, arrs(ts, m)), []string{
		Row(itoa64(feb29)), Row(itoa64(feb28)), Row(itoa64(dec2021)), Row(itoa64(dec1956)), Row(NullCell),
	}, true)
	// A result beyond Int64 is an error, not a wrapped value.
	big := &gpu.Pipeline{Inputs: []gpu.Type{TI64, TI64}, Sink: gpu.SinkMaterialize, Project: []*gpu.Expr{
		gpu.Call(gpu.OpAddMonthsTs, TI64, gpu.Col(0, TI64), gpu.Col(1, TI64), gpu.Const(TI64, gpu.Value{I64: 1_000_000_000})),
	}}
	cols, _ := table(t, dev, MakeArray(I64, int64(math.MaxInt64/2)), MakeArray(I64, 12*200))
	defer ReleaseCols(cols)
	expectError(t, RunPipelineErr(dev, big, cols), "adding 200 years to a nanosecond timestamp near its limit")
}

func itoa64(v int64) string { return strconv.FormatInt(v, 10) }
